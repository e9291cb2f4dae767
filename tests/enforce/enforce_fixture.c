/* The fixture of the enforcement suites (test_sandbox_enforce_*.c); what it
 * holds is said in enforce_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enforce_fixture.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define LANDLOCK_VERSION_FLAG 1u /* LANDLOCK_CREATE_RULESET_VERSION */

int landlock_abi;
const char *mech;
bool oci_ready;
char oci_rootfs[PATH_MAX];
static char oci_conf[PATH_MAX];
proc P;

/* ---- fixtures ---- */

void assert_content(const char *path, const char *want) {
    char *got = slurp(path);
    if (!got) fail_msg("%s: %s", path, strerror(errno));
    if (strcmp(got, want) != 0) fail_msg("%s holds \"%s\", expected \"%s\"", path, got, want);
    free(got);
}

void assert_exists(const char *path, bool want) {
    if (exists(path) != want) fail_msg("%s %s", path, want ? "is missing" : "exists");
}

/* Write PROJECT/p.lua returning exec_policy{ BODY }. */
void policy(fx *f, const char *body_fmt, ...) {
    char body[8192], text[9000];
    va_list ap;
    va_start(ap, body_fmt);
    vsnprintf(body, sizeof body, body_fmt, ap);
    va_end(ap);
    if (strcmp(mech, "oci") == 0)
        FMT(text,
            "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy{ %s, oci = { rootfs = \"%s\" } "
            "}\n",
            body, oci_rootfs);
    else
        FMT(text, "local lcsb = require \"lcsb\"\nreturn lcsb.exec_policy{ %s }\n", body);
    write_file(f->policy, text);
}

void raw_policy(fx *f, const char *text) { write_file(f->policy, text); }

/* The default policy of the file-system cases: the tools, RO readable. */
void fs_policy(fx *f) { policy(f, "exec = { " TOOLS " }, read = { \"%s\" }", f->ro); }

int enforce_group_setup(void **state) {
    (void)state;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_VERSION_FLAG);
    landlock_abi = abi > 0 ? (int)abi : 0;
    mech = landlock_abi                                 ? "landlock"
           : access("/usr/bin/sandbox-exec", X_OK) == 0 ? "seatbelt"
                                                        : NULL;
    if (!landlock_abi)
        fprintf(stderr, "# no Landlock on this host (%s)%s\n", strerror(errno),
                tests_required() ? "; LCSB_SANDBOX_TESTS_REQUIRED=1: failing" : "; skipping");
    return 0;
}

int fx_setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    FMT(f->project, "/tmp/lcsb-enf-project.XXXXXX");
    FMT(f->outside, "/tmp/lcsb-enf-outside.XXXXXX");
    FMT(f->ro, "/tmp/lcsb-enf-ro.XXXXXX");
    if (!mkdtemp(f->project) || !mkdtemp(f->outside) || !mkdtemp(f->ro)) {
        fprintf(stderr, "# mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    FMT(f->policy, "%s/p.lua", f->project);
    *state = f;
    return 0;
}

int fx_teardown(void **state) {
    fx *f = *state;
    if (!f) return 0;
    if (f->mounted[0]) umount2(f->mounted, MNT_DETACH);
    if (f->home_file[0]) unlink(f->home_file);
    rm_rf(f->project);
    rm_rf(f->outside);
    rm_rf(f->ro);
    free(f);
    return 0;
}

bool oci_group(void) { return mech && strcmp(mech, "oci") == 0; }

/* ---- the OCI backend: the same policy as a container's world ---- */

/* What podman needs on this kind of host (Debian's podman, runc, hybrid
 * cgroups): cgroupfs, runc, and explicit limits a rootless container may set. */
static const char containers_conf[] =
    "[containers]\n"
    "default_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n"
    "[engine]\n"
    "cgroup_manager = \"cgroupfs\"\n"
    "runtime = \"runc\"\n"
    "events_logger = \"file\"\n";

int oci_group_setup(void **state) {
    (void)state;
    mech = "oci";
    oci_ready = access("/usr/bin/podman", X_OK) == 0;
    if (!oci_ready) {
        fprintf(stderr, "# no podman on this host%s\n",
                tests_required() ? "; LCSB_SANDBOX_TESTS_REQUIRED=1: failing" : "; skipping");
        return 0;
    }
    /* The container's root: an empty directory the read baseline is mounted into. */
    FMT(oci_rootfs, "/tmp/lcsb-enf-rootfs.XXXXXX");
    if (!mkdtemp(oci_rootfs)) return -1;
    if (!getenv("CONTAINERS_CONF")) {
        FMT(oci_conf, "/tmp/lcsb-enf-containers.XXXXXX");
        int fd = mkstemp(oci_conf);
        if (fd < 0) return -1;
        bool written =
            write(fd, containers_conf, strlen(containers_conf)) == (ssize_t)strlen(containers_conf);
        close(fd);
        if (!written) return -1;
        setenv("CONTAINERS_CONF", oci_conf, 1);
    }
    return 0;
}

int oci_group_teardown(void **state) {
    (void)state;
    rm_rf(oci_rootfs);
    if (oci_conf[0]) {
        unlink(oci_conf);
        unsetenv("CONTAINERS_CONF");
    }
    mech = NULL;
    return 0;
}

/* ---- running lcsb ---- */

/* Run `LAUNCHER... lcsb --backend BACKEND OPTIONS... p.lua -- CMD...` (the
 * launcher may be NULL), with ENV on top. */
void lcsb_launched(fx *f, const char *const *launcher, const char *backend,
                   const char *const *options, const char *const *cmd, const char *const *env,
                   proc *p) {
    const char *argv[MAX_ARGV];
    size_t n = 0;
    for (size_t i = 0; launcher && launcher[i]; i++) argv[n++] = launcher[i];
    argv[n++] = LCSB_CLI_PATH;
    argv[n++] = "--no-trust-check"; /* the suite's policies are its own */
    argv[n++] = "--backend";
    argv[n++] = backend;
    for (size_t i = 0; options && options[i]; i++) argv[n++] = options[i];
    argv[n++] = f->policy;
    argv[n++] = "--";
    for (size_t i = 0; cmd[i]; i++) {
        assert_true(n < MAX_ARGV - 1);
        argv[n++] = cmd[i];
    }
    argv[n] = NULL;
    run_child(f->project, argv, env, p);
}

const char *const *without_userns(const char *fault_launcher) {
    static char nr[16], clone_nr[16], eperm[16], newuser[24];
    static const char *launcher[10];
    FMT(nr, "%d", (int)SYS_unshare);
    FMT(clone_nr, "%d", (int)SYS_clone);
    FMT(eperm, "%d", EPERM);
    FMT(newuser, "&%d", CLONE_NEWUSER);
    const char *const whole[] = {fault_launcher, nr,    eperm,   "--", fault_launcher,
                                 clone_nr,       eperm, newuser, "--", NULL};
    memcpy(launcher, whole, sizeof whole);
    return launcher;
}

void lcsb_opts(fx *f, const char *backend, const char *const *options, const char *const *cmd,
               const char *const *env, proc *p) {
    lcsb_launched(f, NULL, backend, options, cmd, env, p);
}

void lcsb_env(fx *f, const char *backend, const char *const *cmd, const char *const *env, proc *p) {
    lcsb_opts(f, backend, NULL, cmd, env, p);
}

void lcsb(fx *f, const char *backend, const char *const *cmd, proc *p) {
    lcsb_env(f, backend, cmd, NULL, p);
}

/* A line of stderr that starts with PREFIX and holds every one of the NULL-
 * terminated NEEDLES. */
bool has_line(const char *text, const char *prefix, const char *const *needles) {
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[4096];
        FMT(buf, "%.*s", (int)len, line);
        bool ok = strncmp(buf, prefix, strlen(prefix)) == 0;
        for (size_t i = 0; ok && needles[i]; i++) ok = strstr(buf, needles[i]) != NULL;
        if (ok) return true;
        line = end ? end + 1 : NULL;
    }
    return false;
}

void assert_trailer(const proc *p, const char *backend) {
    char under[64];
    FMT(under, "under %s", backend);
    if (!has_line(p->err, "lcsb: ", CMD(" exited ", under)))
        fail_msg("no trailer \"lcsb: ... exited ... %s\" on stderr:\n%s", under, p->err);
}

void describe(const char *what, const char *const *cmd, const proc *p) {
    fprintf(stderr, "# %s:", what);
    for (size_t i = 0; cmd[i]; i++) fprintf(stderr, " '%s'", cmd[i]);
    fprintf(stderr, "\n# -> status %d\n# stdout: %s\n# stderr: %s\n", p->status, p->out, p->err);
}

/* Under the mechanism CMD must fail with WANT (or any status but 0, 97 and
 * 125 when WANT is -1), with the trailer. WANT is what the GNU tools and
 * Linux's execve say; macOS's BSD tools and sandbox-exec say otherwise, so
 * there any refusal of the command's own counts. The result is left in P. */
void expect_denied(fx *f, const char *const *cmd, int want, proc *p) {
    lcsb(f, mech, cmd, p);
    if (strcmp(mech, "seatbelt") == 0) want = -1;
    bool ok =
        want >= 0 ? p->status == want : (p->status != 0 && p->status != 97 && p->status != 125);
    if (!ok) {
        describe(mech, cmd, p);
        if (want >= 0) fail_msg("expected status %d under %s, got %d", want, mech, p->status);
        fail_msg("expected the command's own refusal under %s, got %d", mech, p->status);
    }
    assert_trailer(p, mech);
}

/* Under none the same CMD must succeed: the denial above was the sandbox's. */
void expect_unsandboxed_ok(fx *f, const char *const *cmd, proc *p) {
    lcsb(f, "none", cmd, p);
    if (p->status != 0) {
        describe("unsandboxed run", cmd, p);
        fail_msg("the same command failed unsandboxed (%d): the denial test proves nothing",
                 p->status);
    }
}

/* Under the mechanism CMD must succeed. */
void expect_allowed(fx *f, const char *const *cmd, proc *p) {
    lcsb(f, mech, cmd, p);
    if (p->status != 0) {
        describe(mech, cmd, p);
        fail_msg("expected success under %s, got %d", mech, p->status);
    }
}

/* ---- where lcsb keeps the private HOME and TMPDIR ---- */

/* OUTSIDE/tmp, fresh and empty, as the TMPDIR lcsb itself runs with. */
void make_run_tmp(fx *f, run_tmp *t) {
    assert_int_equal(mkdir(path_in(t->dir, f->outside, "tmp"), 0700), 0);
    FMT(t->env, "TMPDIR=%s", t->dir);
}

/* DIR holds nothing: whatever is left in it is named in the failure. */
void assert_left_nothing(const char *dir, const char *when) {
    DIR *d = opendir(dir);
    if (!d) fail_msg("cannot list %s: %s", dir, strerror(errno));
    char left[1024] = "";
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n++ < 8 && strlen(left) + strlen(e->d_name) + 2 < sizeof left) {
            strcat(left, " ");
            strcat(left, e->d_name);
        }
    }
    closedir(d);
    if (n) fail_msg("%s: lcsb left %zu entries behind in its TMPDIR %s:%s", when, n, dir, left);
}

/* The first line of OUT, which the command printed as its $HOME. */
void first_line(const char *out, char *buf, size_t size) {
    snprintf(buf, size, "%.*s", (int)strcspn(out, "\n"), out);
}

/* Is DIR in this process's mount table? */
bool is_mount_point(const char *dir) {
    char *mounts = slurp("/proc/self/mounts");
    assert_non_null(mounts);
    char needle[PATH_MAX + 2];
    FMT(needle, " %s ", dir);
    bool found = strstr(mounts, needle) != NULL;
    free(mounts);
    return found;
}

/* ---- sockets on the host's loopback ---- */

int listener(int type, int *port) {
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    if (type == SOCK_STREAM) assert_int_equal(listen(fd, 16), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* Did a connection arrive on listening socket FD? Drains one. */
bool accepted(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 0) != 1) return false;
    int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) return false;
    close(c);
    return true;
}

const char udp_py[] = "import socket, sys\n"
                      "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                      "s.sendto(b'lcsb', ('127.0.0.1', int(sys.argv[1])))\n";

/* Did a datagram arrive on FD? Drains one. */
bool received(int fd) {
    char buf[16];
    return recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0;
}
