/* The fixture of the shim suites (test_sandbox_shim_*.c); what it holds is
 * said in shim_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim_fixture.h"

int kernel_abi;
static char sys_rule[512];
char self_exe[PATH_MAX];

void *xmalloc(size_t n) {
    void *p = malloc(n);
    assert_non_null(p);
    return p;
}

int shim_group_setup(void **state) {
    static const char *const sys[] = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc"};
    size_t n;
    (void)state;

    kernel_abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, 1U);
    ssize_t len = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    self_exe[len > 0 ? len : 0] = '\0';
    n = (size_t)snprintf(sys_rule, sizeof sys_rule,
                         "{'access':['read_file','read_dir','execute'],'paths':[");
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        struct stat st;
        /* Real paths only: on a merged /usr, /bin and /lib are symlinks,
         * which the shim refuses, and /usr covers them anyway. */
        if (lstat(sys[i], &st) != 0 || S_ISLNK(st.st_mode)) continue;
        n += (size_t)snprintf(sys_rule + n, sizeof sys_rule - n, "%s'%s'",
                              sys_rule[n - 1] == '[' ? "" : ",", sys[i]);
    }
    snprintf(sys_rule + n, sizeof sys_rule - n, "]}");
    return 0;
}

int shim_setup(void **state) {
    struct fixture *f = calloc(1, sizeof *f);

    if (f == NULL) return -1;
    f->refusal = *state;
    snprintf(f->dir, sizeof f->dir, "/tmp/lcsb-shim-XXXXXX");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->marker, sizeof f->marker, "%s/marker", f->dir);
    snprintf(f->errfile, sizeof f->errfile, "%s/stderr", f->dir);
    snprintf(f->outfile, sizeof f->outfile, "%s/stdout", f->dir);
    *state = f;
    return 0;
}

int shim_teardown(void **state) {
    struct fixture *f = *state;

    for (size_t i = 0; f->args[i] != NULL; i++) free(f->args[i]);
    if (f->stdin_fd > 0) close(f->stdin_fd);
    rm_rf(f->dir);
    free(f);
    return 0;
}

/* Enforcement cases need a kernel that can enforce; in CI that is required. */
void require_landlock(void) {
    if (kernel_abi >= 1) return;
    if (tests_required())
        fail_msg("Landlock is unavailable (ABI probe: %d) and LCSB_SANDBOX_TESTS_REQUIRED=1",
                 kernel_abi);
    skip();
}

void require_python(void) {
    if (access(PYTHON, X_OK) == 0) return;
    print_message("skipped: %s is missing; nothing here can make the probes\n", PYTHON);
    skip();
}

/* Expands a template's tokens into a new string. */
char *expand(const struct fixture *f, const char *tmpl) {
    size_t cap = strlen(tmpl) + 2 * PATH_MAX + 16384, n = 0;
    char *out = xmalloc(cap);

    for (const char *p = tmpl; *p != '\0'; p++) {
        assert_true(n + 2 * PATH_MAX + 1024 < cap);
        if (*p == '\'') {
            out[n++] = '"';
        } else if (*p == '`') {
            out[n++] = '\'';
        } else if (strncmp(p, "{TESC}", 6) == 0) {
            for (const char *d = f->dir; *d != '\0'; d++) {
                if (*d == '/') out[n++] = '\\';
                out[n++] = *d;
            }
            p += 5;
        } else if (strncmp(p, "{T}", 3) == 0) {
            n += (size_t)sprintf(out + n, "%s", f->dir);
            p += 2;
        } else if (strncmp(p, "{SYS}", 5) == 0) {
            for (const char *s = sys_rule; *s != '\0'; s++) out[n++] = *s == '\'' ? '"' : *s;
            p += 4;
        } else if (strncmp(p, "{LONG}", 6) == 0) {
            out[n++] = '/';
            memset(out + n, 'a', PATH_MAX + 8);
            n += PATH_MAX + 8;
            p += 5;
        } else if (strncmp(p, "{NEST}", 6) == 0) {
            memset(out + n, '[', 10000);
            n += 10000;
            p += 5;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    return out;
}

/* Sets the fixture's argv from templates; "{CMD}" is `touch MARKER`. */
void set_args(struct fixture *f, const char *const *tmpls, size_t count) {
    size_t n = 0;

    for (size_t i = 0; i < count && tmpls[i] != NULL; i++) {
        assert_true(n + 2 <= MAX_ARGS);
        if (strcmp(tmpls[i], "{CMD}") == 0) {
            f->args[n++] = strdup("/usr/bin/touch");
            f->args[n++] = strdup(f->marker);
        } else {
            f->args[n++] = expand(f, tmpls[i]);
        }
    }
    f->args[n] = NULL;
}

/* Sends descriptor FD over the socket SOCK. */
static int send_fd(int sock, int fd) {
    char data = 'f';
    struct iovec iov = {.iov_base = &data, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

    memset(u.buf, 0, sizeof u.buf);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* The descriptor sent over SOCK, or -1 when the sender went away first. */
static int recv_fd(int sock) {
    char data;
    struct iovec iov = {.iov_base = &data, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    struct cmsghdr *cm;
    int fd = -1;

    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1) return -1;
    cm = CMSG_FIRSTHDR(&msg);
    if (cm != NULL && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
        memcpy(&fd, CMSG_DATA(cm), sizeof(int));
    return fd;
}

/* In the child: FAULT's filter. With FAULT->nth the filter's listener goes
 * to the test over SOCK. */
static void install_fault(const struct fault *fault, int sock) {
#ifdef NATIVE_ARCH
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fault->nr, 0, 3),
        /* The low half of args[0] on these little-endian arches. */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fault->arg0, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)fault->err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};

    if (fault->arg0 < 0) /* any argument: turn the argument test into "always" */
        filter[6] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(98);
    if (fault->nth <= 0) {
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) _exit(98);
        return;
    }
    filter[7] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    int listener = (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                                SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0 || send_fd(sock, listener) != 0) _exit(98);
    close(listener);
    close(sock);
#else
    (void)fault;
    (void)sock;
    _exit(98);
#endif
}

/* In the test, while child PID runs: answers the calls FAULT's filter sends
 * to LISTENER, failing the NTH and letting the others go through, until PID
 * exits; returns its wait status. */
static int serve_fault(int listener, pid_t pid, const struct fault *fault) {
    int seen = 0, status;

    for (;;) {
        struct pollfd p = {.fd = listener, .events = POLLIN};
        struct seccomp_notif req;
        struct seccomp_notif_resp resp;
        pid_t done;

        if (poll(&p, 1, 50) > 0 && (p.revents & POLLIN) != 0) {
            memset(&req, 0, sizeof req);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
                /* ENOENT: the caller died waiting; the loop's end sees it. */
                assert_true(errno == ENOENT || errno == EINTR);
                continue;
            }
            memset(&resp, 0, sizeof resp);
            resp.id = req.id;
            if (++seen == fault->nth)
                resp.error = -fault->err;
            else
                resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
            assert_true(ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0 || errno == ENOENT);
            continue;
        }
        done = waitpid(pid, &status, WNOHANG);
        assert_true(done >= 0);
        if (done == pid) return status;
    }
}

/* In the child, as root: the capabilities HOW names, then PROG must be
 * executable by whom it runs as. */
static void give_caps(enum caller_caps how, const char *prog) {
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2];
    const uint32_t bit = 1U << CAP_NET_BIND_SERVICE;

    if (how == CALLER_AS_IS) return;
    /* With KEEPCAPS leaving uid 0 keeps the permitted set, from which the
     * ambient capability is raised below. */
    if (how == CALLER_AMBIENT_USER &&
        (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || setgroups(0, NULL) != 0 ||
         setresgid(NOBODY, NOBODY, NOBODY) != 0 || setresuid(NOBODY, NOBODY, NOBODY) != 0))
        _exit(98);
    if (syscall(SYS_capget, &hdr, data) != 0) _exit(98);
    data[0].inheritable |= bit;
    if (how == CALLER_AMBIENT_USER) {
        data[0].permitted = data[0].effective = bit;
        data[1].permitted = data[1].effective = 0;
    }
    if (syscall(SYS_capset, &hdr, data) != 0) _exit(98);
    if (how == CALLER_AMBIENT_USER) {
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0) != 0) _exit(98);
        if (access(prog, X_OK) != 0) _exit(STATUS_NOT_NOBODYS);
    }
}

/* Runs PROG with ARGV (argv[0] included), optionally under FAULT. */
static void spawn(struct fixture *f, const char *prog, char **argv, const struct fault *fault,
                  struct result *r) {
    int sv[2] = {-1, -1};
    pid_t pid;
    int status;

    if (fault != NULL && fault->nth > 0)
        assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int err = open(f->errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int out = open(f->outfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (err < 0 || out < 0 || dup2(err, 2) < 0 || dup2(out, 1) < 0) _exit(98);
        if (f->stdin_fd > 0 && dup2(f->stdin_fd, 0) < 0) _exit(98);
        if (f->ctty && (setsid() < 0 || ioctl(0, TIOCSCTTY, 0) != 0)) _exit(98);
        /* A world of its own holds the policy's paths only: stand in one. */
        if (chdir(f->dir) != 0) _exit(98);
        /* LeakSanitizer cannot read /proc inside the sandbox and would turn
         * an exit status into its own. */
        setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
        give_caps(f->caps, prog);
        if (fault != NULL) install_fault(fault, sv[1]);
        execv(prog, argv);
        _exit(99);
    }
    if (sv[0] >= 0) {
        int listener;
        close(sv[1]);
        listener = recv_fd(sv[0]);
        close(sv[0]);
        if (listener >= 0) {
            status = serve_fault(listener, pid, fault);
            close(listener);
        } else {
            assert_int_equal(waitpid(pid, &status, 0), pid);
        }
    } else {
        assert_int_equal(waitpid(pid, &status, 0), pid);
    }
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    assert_int_not_equal(r->status, 98); /* the harness failed, not the shim */
    assert_int_not_equal(r->status, 99);
    read_file(f->errfile, r->err, sizeof r->err);
    read_file(f->outfile, r->out, sizeof r->out);
}

/* Runs the shim with ARGS (after argv[0]), optionally under FAULT. */
void run_argv(struct fixture *f, char **args, const struct fault *fault, struct result *r) {
    size_t n = 0;
    char **argv;

    while (args[n] != NULL) n++;
    argv = xmalloc((n + 2) * sizeof *argv);
    argv[0] = (char *)LCSB_SHIM_PATH;
    memcpy(argv + 1, args, (n + 1) * sizeof *argv);
    spawn(f, LCSB_SHIM_PATH, argv, fault, r);
    free(argv);
}

void run(struct fixture *f, const struct fault *fault, struct result *r) {
    run_argv(f, f->args, fault, r);
}

/* Runs the fixture's command, what follows "--", without the shim: a twin. */
void run_direct(struct fixture *f, struct result *r) {
    size_t i = 0;

    while (f->args[i] != NULL && strcmp(f->args[i], "--") != 0) i++;
    assert_non_null(f->args[i]);
    assert_non_null(f->args[i + 1]);
    spawn(f, f->args[i + 1], f->args + i + 1, NULL, r);
}

void free_args(struct fixture *f) {
    for (size_t k = 0; f->args[k] != NULL; k++) {
        free(f->args[k]);
        f->args[k] = NULL;
    }
}

/* The valid argv with HEADER, and an optional replacement part. */
void set_valid_header(struct fixture *f, const char *header, const char *part) {
    const char *tmpls[] = {header, part != NULL ? part : P_OK, "--", "{CMD}"};
    set_args(f, tmpls, 4);
}

/* The valid argv, with an optional replacement part. */
void set_valid(struct fixture *f, const char *part) { set_valid_header(f, H_OK, part); }

void assert_refused(const struct fixture *f, const struct result *r, const char *expect) {
    if (r->status != SETUP_FAILED || exists(f->marker))
        print_error("status %d, stderr: %s", r->status, r->err);
    assert_int_equal(r->status, SETUP_FAILED);
    assert_false(exists(f->marker));
    /* A line, not the first: a tool wrapping the shim (valgrind) may speak first. */
    assert_true(strncmp(r->err, "lcsb-exec: cannot ", 18) == 0 ||
                strstr(r->err, "\nlcsb-exec: cannot ") != NULL);
    if (expect != NULL && strstr(r->err, expect) == NULL)
        fail_msg("expected \"%s\" in: %s", expect, r->err);
}
