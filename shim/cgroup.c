/* The command's memory cgroup (cgroup.h).
 *
 * RLIMIT_AS holds one process's address space; it says nothing of what no
 * process maps (a memfd written and never mapped, SysV shared memory
 * attached, filled and detached, a file on a tmpfs), nor of many processes
 * together. The kernel charges every page, those too, to the memory cgroup
 * of the process that brought it in, and holds a cgroup to its limit (the
 * allocation fails, or the kernel kills a process of the cgroup). So the
 * command runs in a cgroup of its own.
 *
 * Its cgroup is a child of the one the shim runs in, on the hierarchy the
 * header names: whatever limit the caller is under still holds the command,
 * and a caller the host delegated a cgroup to can make it without
 * privilege. On cgroup v2 the kernel lets a cgroup hand memory to its
 * children only when it holds no process itself (but the root), so lcsb
 * (src/detect.c) names v2 only where the shim's cgroup already does
 * (cgroup.subtree_control holds "memory"); on v1 any cgroup may.
 *
 * Only the init and what it starts join: the shim outside stays where it
 * was, and removes the cgroup once the init, and with it every process of
 * the command, is gone. It is made before any namespace, and reached by
 * descriptor only: the init's new root hides the host's /sys from the shim
 * outside too. A shim killed before its end (SIGKILL to lcsb) leaves an
 * empty cgroup named after its pid; the next run removes those whose pid
 * is gone and whose lock nobody holds.
 *
 * libc and kernel headers only, like the rest of the shim. */
#define _GNU_SOURCE
#include "cgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

#define PREFIX "lcsb-"

static const char *kind_name(enum cgroup_kind kind) {
    return kind == CGROUP_V2 ? "cgroup v2" : "cgroup v1";
}

/* Octal escapes as /proc/self/mountinfo writes a space, tab, newline or
 * backslash in a path (\040), decoded in place. */
static void unescape(char *s) {
    char *out = s;

    for (; *s != '\0'; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *out++ = *s;
        }
    }
    *out = '\0';
}

/* Does the comma-separated LIST hold WORD? */
static bool in_list(const char *list, const char *word) {
    size_t n = strlen(word);

    for (const char *p = list; p != NULL; p = strchr(p, ',')) {
        p += *p == ',';
        if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* The shim's cgroup on KIND's hierarchy, as /proc/self/cgroup names it:
 * "0::PATH" on v2, "ID:CONTROLLERS:PATH" with "memory" among the
 * controllers on v1. */
static int own_cgroup(enum cgroup_kind kind, char *path, size_t size) {
    FILE *f = fopen("/proc/self/cgroup", "re");
    char *line = NULL;
    size_t cap = 0;
    int rc = -1;

    if (f == NULL)
        return fail("read /proc/self/cgroup: %s", strerror(errno));
    while (rc != 0 && getline(&line, &cap, f) > 0) {
        char *controllers = strchr(line, ':');
        char *where = controllers ? strchr(controllers + 1, ':') : NULL;
        if (where == NULL)
            continue;
        *controllers++ = '\0';
        *where++ = '\0';
        where[strcspn(where, "\n")] = '\0';
        bool match = kind == CGROUP_V2 ? strcmp(line, "0") == 0 && *controllers == '\0'
                                       : in_list(controllers, "memory");
        if (match && where[0] == '/' && strlen(where) < size) {
            strcpy(path, where);
            rc = 0;
        }
    }
    free(line);
    fclose(f);
    if (rc != 0)
        fail("find the shim's own %s%s: /proc/self/cgroup does not name it", kind_name(kind),
             kind == CGROUP_V1 ? " memory cgroup" : "");
    return rc;
}

/* Where the hierarchy holding PATH is mounted: DIR is the directory of
 * PATH there, from /proc/self/mountinfo ("ID PARENT DEV ROOT MOUNTPOINT
 * OPTIONS... - TYPE SOURCE SUPER_OPTIONS"). */
static int mounted_at(enum cgroup_kind kind, const char *path, char *dir, size_t size) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char *line = NULL;
    size_t cap = 0;
    int rc = -1;

    if (f == NULL)
        return fail("read /proc/self/mountinfo: %s", strerror(errno));
    while (rc != 0 && getline(&line, &cap, f) > 0) {
        char *field[5], *save = NULL, *type, *super, *dash = strstr(line, " - ");
        size_t n = 0;
        if (dash == NULL)
            continue;
        *dash = '\0';
        type = strtok_r(dash + 3, " \n", &save);
        (void)strtok_r(NULL, " \n", &save); /* the source */
        super = strtok_r(NULL, " \n", &save);
        if (type == NULL || super == NULL ||
            (kind == CGROUP_V2 ? strcmp(type, "cgroup2") != 0
                               : strcmp(type, "cgroup") != 0 || !in_list(super, "memory")))
            continue;
        for (char *tok = strtok_r(line, " ", &save); tok != NULL && n < 5;
             tok = strtok_r(NULL, " ", &save))
            field[n++] = tok;
        if (n < 5)
            continue;
        unescape(field[3]);
        unescape(field[4]);
        /* The mount shows the hierarchy from ROOT down: PATH must lie there. */
        size_t root = strcmp(field[3], "/") == 0 ? 0 : strlen(field[3]);
        if (strncmp(path, field[3], root) != 0 || (path[root] != '/' && path[root] != '\0'))
            continue;
        if ((size_t)snprintf(dir, size, "%s%s", field[4], path + root) < size)
            rc = 0;
    }
    free(line);
    fclose(f);
    if (rc != 0)
        fail("find where the %s%s is mounted: /proc/self/mountinfo shows none holding %s",
             kind_name(kind), kind == CGROUP_V1 ? " memory hierarchy" : "", show(path));
    return rc;
}

static int open_own(enum cgroup_kind kind, char *dir, size_t size) {
    char path[PATH_MAX];
    struct statfs fs;
    int fd;

    if (own_cgroup(kind, path, sizeof path) != 0 || mounted_at(kind, path, dir, size) != 0)
        return -1;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fail("open the shim's own cgroup %s: %s", show(dir), strerror(errno));
    if (fstatfs(fd, &fs) != 0 ||
        fs.f_type != (kind == CGROUP_V2 ? CGROUP2_SUPER_MAGIC : CGROUP_SUPER_MAGIC)) {
        fail("open the shim's own cgroup %s: not a %s", show(dir), kind_name(kind));
        close(fd);
        return -1;
    }
    return fd;
}

/* Is PID gone: no such process, or one that has exited and waits to be
 * reaped (a shim killed with lcsb is reparented, and reaped when its new
 * parent gets to it)? */
static bool gone(long pid) {
    char path[64], text[512];
    int fd;
    ssize_t n;
    const char *state;

    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return true;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    state = strrchr(text, ')');
    return state != NULL && (state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X'));
}

/* The cgroups of earlier runs whose shim is gone: "lcsb-PID" with PID gone
 * and no lock held on it (its shim holds one from making it to removing
 * it, and the kernel lets go of it when the shim exits). rmdir takes only
 * an empty cgroup, so one still in use stays. */
static void remove_stale(int parent) {
    int fd = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;

    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        const char *digits = e->d_name + strlen(PREFIX);
        char *end;
        long pid;
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) != 0 || !isdigit((unsigned char)*digits))
            continue;
        pid = strtol(digits, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == getpid() || !gone(pid))
            continue;
        int dir = openat(parent, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir >= 0 && flock(dir, LOCK_EX | LOCK_NB) == 0)
            (void)unlinkat(parent, e->d_name, AT_REMOVEDIR);
        if (dir >= 0)
            close(dir);
    }
    closedir(d);
}

/* TEXT into FILE of DIR; ENOENT is OPTIONAL's to forgive (a file the
 * kernel has only with swap accounting). */
static int write_at(int dir, const char *file, const char *text, bool optional) {
    int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));
    int err = errno;

    if (fd >= 0)
        close(fd);
    if (fd < 0 && err == ENOENT && optional)
        return 0;
    if (n != (ssize_t)strlen(text))
        return fail("write %s of the command's memory cgroup: %s", file, strerror(err));
    return 0;
}

/* Its limits: BYTES of memory, and no more with swap. On v1 memory.memsw
 * counts memory and swap together, on v2 memory.swap.max swap alone. */
static int set_limit(const struct cgroup *cg, uint64_t bytes) {
    char text[32];

    snprintf(text, sizeof text, "%llu", (unsigned long long)bytes);
    if (cg->kind == CGROUP_V1)
        return write_at(cg->dir, "memory.limit_in_bytes", text, false) != 0 ||
                       write_at(cg->dir, "memory.memsw.limit_in_bytes", text, true) != 0
                   ? -1
                   : 0;
    if (write_at(cg->dir, "memory.max", text, false) != 0) {
        hint("the kernel hands memory to a child cgroup only where cgroup.subtree_control "
             "holds \"memory\"");
        return -1;
    }
    return write_at(cg->dir, "memory.swap.max", "0", true);
}

int cgroup_make(enum cgroup_kind kind, uint64_t bytes, struct cgroup *cg) {
    char where[PATH_MAX];
    int made;

    *cg = (struct cgroup)CGROUP_INIT;
    if (kind == CGROUP_NONE)
        return 0;
    cg->parent = open_own(kind, where, sizeof where);
    if (cg->parent < 0)
        return -1;
    remove_stale(cg->parent);
    snprintf(cg->name, sizeof cg->name, PREFIX "%d", (int)getpid());
    made = mkdirat(cg->parent, cg->name, 0755);
    /* One of ours, left by an earlier shim that had this pid, goes if it is
     * empty; one that is not is no cgroup to share. */
    if (made != 0 && errno == EEXIST && unlinkat(cg->parent, cg->name, AT_REMOVEDIR) == 0)
        made = mkdirat(cg->parent, cg->name, 0755);
    if (made == 0)
        cg->dir = openat(cg->parent, cg->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (cg->dir < 0) {
        int err = errno;
        if (made == 0)
            (void)unlinkat(cg->parent, cg->name, AT_REMOVEDIR);
        fail("make the command's memory cgroup %s/%s: %s", show(where), cg->name,
             strerror(err));
        if (err == EACCES || err == EROFS)
            hint("the %s the shim runs in is not the caller's to divide; run with "
                 "degrade = { \"memory\" } to hold memory per process only",
                 kind_name(kind));
        close(cg->parent);
        *cg = (struct cgroup)CGROUP_INIT;
        return -1;
    }
    cg->kind = kind;
    cg->owner = getpid();
    /* Held until the shim exits: the next run's sweep leaves it alone. */
    if (flock(cg->dir, LOCK_EX) != 0) {
        fail("lock the command's memory cgroup: %s", strerror(errno));
        goto undo;
    }
    if (set_limit(cg, bytes) != 0)
        goto undo;
    cg->procs = openat(cg->dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
    if (cg->procs < 0) {
        fail("open cgroup.procs of the command's memory cgroup: %s", strerror(errno));
        goto undo;
    }
    return 0;
undo:
    cgroup_remove(cg);
    return -1;
}

int cgroup_join(struct cgroup *cg) {
    int rc = 0;

    if (cg->kind == CGROUP_NONE)
        return 0;
    /* "0": the writer itself. The kernel judges the move by the
     * credentials the file was opened with, the caller's. */
    if (write(cg->procs, "0", 1) != 1)
        rc = fail("join the command's memory cgroup %s: %s", cg->name, strerror(errno));
    close(cg->procs);
    close(cg->dir);
    close(cg->parent);
    *cg = (struct cgroup)CGROUP_INIT;
    return rc;
}

bool cgroup_out_of_memory(const struct cgroup *cg) {
    char text[512], *at;
    int fd;
    ssize_t n;

    if (cg->kind == CGROUP_NONE)
        return false;
    fd = openat(cg->dir, cg->kind == CGROUP_V2 ? "memory.events" : "memory.oom_control",
                O_RDONLY | O_CLOEXEC);
    n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    at = strstr(text, "oom_kill ");
    return at != NULL && strtoull(at + strlen("oom_kill "), NULL, 10) > 0;
}

void cgroup_remove(struct cgroup *cg) {
    const struct timespec pause = {.tv_nsec = 10 * 1000 * 1000};
    int tries = 0, rc;

    if (cg->kind == CGROUP_NONE || cg->owner != getpid())
        return;
    if (cg->procs >= 0)
        close(cg->procs);
    close(cg->dir);
    /* The init is reaped, and the kernel reaped its namespace before it:
     * a cgroup still busy is one the kernel has not yet let go of. */
    while ((rc = unlinkat(cg->parent, cg->name, AT_REMOVEDIR)) != 0 && errno == EBUSY &&
           ++tries < 200)
        nanosleep(&pause, NULL);
    if (rc != 0)
        fail("remove the command's memory cgroup %s: %s (the next run removes it)", cg->name,
             strerror(errno));
    close(cg->parent);
    *cg = (struct cgroup)CGROUP_INIT;
}
