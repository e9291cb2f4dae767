/* Detection: what this host can enforce, asked of the kernel and the file
 * system, into a Capability. With sys.c, the only place a platform branch
 * stands; every other file is mechanism-neutral. */
#include "detect.h"
#include "installed.h"
#include "policy.h"
#include "sys.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

#ifdef __linux__
static int read_int_file(const char *path, int fallback) {
    FILE *f = fopen(path, "re");
    int value = fallback;
    if (!f) return fallback;
    if (fscanf(f, "%d", &value) != 1) value = fallback;
    fclose(f);
    return value;
}

/* May this process make a user namespace, as the shim does for the world?
 * The sysctls do not say it all: AppArmor (Ubuntu 24.04) or a seccomp filter
 * (a container's) can refuse it. So a child is made in a new one, and exits
 * at once: sharing memory and waited for like vfork (the kernel has made the
 * namespace by then), it costs about as much as the namespace. Once per
 * process: the answer does not change while it runs; but a probe that could
 * not be made or waited for (no process left to fork, a caller's SIGCHLD
 * handler that reaps every child) says nothing, and is asked again. */
static bool can_make_user_namespaces(void) {
    static int known = -1;
    if (known >= 0) return known;
    if (read_int_file("/proc/sys/user/max_user_namespaces", 0) <= 0 ||
        read_int_file("/proc/sys/kernel/unprivileged_userns_clone", 1) == 0)
        return (known = 0);
    /* vfork's own: a raw clone sharing this stack let the child's next
     * call overwrite the return address the parent came back by, which
     * then skipped storing the pid and waited for any child (a shim spawned
     * ahead, lcsb_runner_start), taking its status for the probe's. */
    lcsb__children_hold();
    pid_t pid = vfork();
    if (pid == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
    int status = 0;
    if (pid < 0) lcsb__children_release();
    if (pid < 0 || lcsb__children_reap(pid, &status) != pid) return false;
    known = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return known;
}

/* Does this process hold CAP_SYS_ADMIN (root in a container may not)? */
static bool can_admin(void) {
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & (1u << CAP_SYS_ADMIN));
}

/* Does the comma-separated LIST hold WORD? */
static bool in_list(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; p; p = strchr(p, ',')) {
        p += *p == ',';
        if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0')) return true;
    }
    return false;
}

/* Octal escapes of /proc/self/mountinfo (\040 for a space), decoded in place. */
static void unescape(char *s) {
    char *out = s;
    for (; *s; s++) {
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

/* As the shim finds it (shim/cgroup.c): its path from /proc/self/cgroup,
 * under the mount of that hierarchy that shows it in /proc/self/mountinfo. */
bool lcsb__own_cgroup_dir(int version, char *dir, size_t size) {
    char path[PATH_MAX] = "", *line = NULL;
    size_t cap = 0;
    bool found = false;
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f) return false;
    while (!path[0] && getline(&line, &cap, f) > 0) {
        char *controllers = strchr(line, ':'),
             *where = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!where) continue;
        *controllers++ = '\0';
        *where++ = '\0';
        where[strcspn(where, "\n")] = '\0';
        bool match =
            version == 2 ? strcmp(line, "0") == 0 && !*controllers : in_list(controllers, "memory");
        if (match && where[0] == '/' && strlen(where) < sizeof path) strcpy(path, where);
    }
    fclose(f);
    if (!path[0] || !(f = fopen("/proc/self/mountinfo", "re"))) {
        free(line);
        return false;
    }
    while (!found && getline(&line, &cap, f) > 0) {
        char *field[5], *save = NULL, *dash = strstr(line, " - ");
        size_t n = 0;
        if (!dash) continue;
        *dash = '\0';
        char *type = strtok_r(dash + 3, " \n", &save);
        (void)strtok_r(NULL, " \n", &save);
        char *super = strtok_r(NULL, " \n", &save);
        if (!type || !super ||
            (version == 2 ? strcmp(type, "cgroup2") != 0
                          : strcmp(type, "cgroup") != 0 || !in_list(super, "memory")))
            continue;
        for (char *tok = strtok_r(line, " ", &save); tok && n < 5; tok = strtok_r(NULL, " ", &save))
            field[n++] = tok;
        if (n < 5) continue;
        unescape(field[3]);
        unescape(field[4]);
        size_t root = strcmp(field[3], "/") == 0 ? 0 : strlen(field[3]);
        if (strncmp(path, field[3], root) != 0 || (path[root] != '/' && path[root] != '\0'))
            continue;
        int len = snprintf(dir, size, "%s%s", field[4], path + root);
        found = len > 0 && (size_t)len < size;
    }
    free(line);
    fclose(f);
    return found;
}

/* Does FILE in DIR hold WORD among its space-separated words? */
static bool file_lists(const char *dir, const char *file, const char *word) {
    char path[PATH_MAX + 64], text[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (char *save = NULL, *w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
        if (strcmp(w, word) == 0) return true;
    return false;
}

/* May this process do MODE (access(2)) to FILE in DIR (NULL: DIR itself)? */
static bool allowed(const char *dir, const char *file, int mode) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s%s%s", dir, file ? "/" : "", file ? file : "");
    return access(path, mode) == 0;
}

/* The memory cgroup the shim can make for limits.memory, a child of the one
 * lcsb runs in, so that whatever limit holds lcsb holds the command too:
 * 2 on cgroup v2 where that cgroup hands memory to its children
 * (cgroup.subtree_control holds "memory"; the kernel allows that only to a
 * cgroup with no process of its own, or the root) and lcsb may make a child
 * and move a process into it; else 1 where cgroup v1's memory hierarchy
 * is mounted and lcsb's cgroup there writable; else 0. Asked, never tried:
 * nothing is made here. */
static int memory_cgroup(void) {
    char dir[PATH_MAX];
    if (lcsb__own_cgroup_dir(2, dir, sizeof dir) &&
        file_lists(dir, "cgroup.subtree_control", "memory") && allowed(dir, NULL, W_OK) &&
        allowed(dir, "cgroup.procs", W_OK))
        return 2;
    if (lcsb__own_cgroup_dir(1, dir, sizeof dir) && allowed(dir, NULL, W_OK) &&
        allowed(dir, "memory.limit_in_bytes", F_OK))
        return 1;
    return 0;
}

/* LCSB_LANDLOCK_ABI_MAX=N makes this host look older than it is, to try a
 * policy against an older kernel; it can only lower the ABI (0: no Landlock),
 * and a value that is not a small number is refused rather than ignored. */
static int abi_cap(int *out, lcsb_error *err) {
    const char *text = getenv("LCSB_LANDLOCK_ABI_MAX");
    *out = INT_MAX;
    if (!text) return 0;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (strspn(text, "0123456789") != strlen(text) || !*text || *end || errno || v > 1000)
        return lcsb__fail(err, LCSB_EINVAL,
                          "LCSB_LANDLOCK_ABI_MAX=\"%s\": expected a number from 0 (no Landlock) up",
                          text);
    *out = (int)v;
    return 0;
}
#else
bool lcsb__own_cgroup_dir(int version, char *dir, size_t size) {
    (void)version;
    (void)dir;
    (void)size;
    return false;
}
#endif

int lcsb__detect(lcsb_capability *cap, const char *shim, unsigned want, lcsb_error *err) {
    memset(cap, 0, sizeof *cap);
    if (shim) {
        if (strlen(shim) >= sizeof cap->shim)
            return lcsb__fail(err, LCSB_EINVAL, "detect: shim path too long");
        strcpy(cap->shim, shim);
        int n = snprintf(cap->shim_searched, sizeof cap->shim_searched, "%s (given)", shim);
        if (n < 0 || (size_t)n >= sizeof cap->shim_searched) strcpy(cap->shim_searched, shim);
        cap->shim_found = lcsb__installed_executable(shim);
    } else if (want & LCSB__DETECT_SHIM) {
        /* Not found is no failure here: a host may want no Landlock at all.
         * Selecting it names every place looked at. */
        cap->shim_found = lcsb__installed_shim(cap->shim, cap->shim_searched, sizeof cap->shim);
    }
#ifdef __linux__
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    cap->landlock_abi = cap->landlock_abi_kernel = abi > 0 ? (int)abi : 0;
    int cap_abi, rc = abi_cap(&cap_abi, err);
    if (rc) return rc;
    if (cap_abi < cap->landlock_abi) cap->landlock_abi = cap_abi;
    cap->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
    /* Asks only: nothing is installed. */
    uint32_t notify = SECCOMP_RET_USER_NOTIF;
    cap->seccomp_notify =
        cap->seccomp && syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &notify) == 0;
    cap->user_namespaces = can_make_user_namespaces();
    cap->mount_namespaces = cap->user_namespaces || (geteuid() == 0 && can_admin());
    if (want & LCSB__DETECT_MEMORY_CGROUP) cap->memory_cgroup = memory_cgroup();
#elif defined(__APPLE__)
    cap->sandbox_exec = access("/usr/bin/sandbox-exec", X_OK) == 0;
#endif
    if ((want & LCSB__DETECT_OCI_ENGINE) &&
        !lcsb__find_on_path("podman", cap->oci_engine, sizeof cap->oci_engine))
        lcsb__find_on_path("docker", cap->oci_engine, sizeof cap->oci_engine);
    return 0;
}

int lcsb_detect(lcsb_capability *cap, const char *shim, lcsb_error *err) {
    return lcsb__detect(cap, shim, LCSB__DETECT_ALL, err);
}

int lcsb_detect_for(lcsb_capability *cap, const char *shim, const lcsb_policy *policy,
                    const char *backend, lcsb_error *err) {
    unsigned want = LCSB__DETECT_SHIM;
    if (policy->limits[LCSB_LIMIT_MEMORY]) want |= LCSB__DETECT_MEMORY_CGROUP;
    if (backend && strcmp(backend, "oci") == 0) want |= LCSB__DETECT_OCI_ENGINE;
    return lcsb__detect(cap, shim, want, err);
}

#define FIELD(key, kind, member)                                                                   \
    { key, LCSB__FIELD_##kind, offsetof(lcsb_capability, member), NULL, NULL }
const lcsb__field lcsb__capability_fields[] = {
    FIELD("landlock_abi", INT, landlock_abi),
    FIELD("landlock_abi_kernel", INT, landlock_abi_kernel),
    FIELD("seccomp", BOOL, seccomp),
    FIELD("user_namespaces", BOOL, user_namespaces),
    FIELD("mount_namespaces", BOOL, mount_namespaces),
    FIELD("sandbox_exec", BOOL, sandbox_exec),
    FIELD("shim", TEXT, shim),
    FIELD("shim_found", BOOL, shim_found),
    FIELD("shim_searched", TEXT, shim_searched),
    FIELD("oci_engine", TEXT, oci_engine),
    FIELD("memory_cgroup", INT, memory_cgroup),
    FIELD("seccomp_notify", BOOL, seccomp_notify),
    {0},
};
#undef FIELD

char *lcsb_capability_json(const lcsb_capability *cap) {
    return lcsb__fields_json(lcsb__capability_fields, cap);
}
