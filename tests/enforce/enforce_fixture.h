/* The kernel's answer: the real CLI, the real exec_policy, the real Landlock.
 * The fixture every test_sandbox_enforce_*.c suite shares.
 *
 * Every denial case runs twice. Under `--backend landlock` the command must be
 * refused (its own nonzero status, the target untouched, the trailer on
 * stderr); under `--backend none` the very same command in the very same
 * state must succeed with its effect visible. A denial test whose command
 * would fail unsandboxed too is testing nothing; the second run proves it
 * can fail.
 *
 * Each test gets fresh directories: PROJECT (the policy's read+write root and
 * the command's cwd, holding p.lua), OUTSIDE (not granted at all) and RO
 * (granted as `read = { RO }`). Commands run with PATH=/usr/bin:/bin so a
 * caller's shims (pyenv, ...) do not decide what runs.
 *
 * Without Landlock every test skips, unless LCSB_SANDBOX_TESTS_REQUIRED=1
 * makes that a failure. The file-system and exec cases are the mechanism's
 * answer, whatever the mechanism: where Landlock is missing and
 * /usr/bin/sandbox-exec exists (macOS), they run under `--backend seatbelt`,
 * required there and never on Linux, where Seatbelt cannot be. The suites pass as root and as an
 * unprivileged user; cases that need root (mount) skip otherwise, and "the caller's real HOME" is
 * /root for root and the passwd HOME for anyone else.
 *
 * A suite runs its cases in a group set up by enforce_group_setup, which probes
 * the kernel once; the cases a container answers too run again in a second
 * group, through podman (oci_group_setup). */
#ifndef LCSB_TESTS_ENFORCE_FIXTURE_H
#define LCSB_TESTS_ENFORCE_FIXTURE_H

#include <limits.h>
#include <stdbool.h>

#include "helpers.h"

#ifndef LCSB_CLI_PATH
#error "build with -DLCSB_CLI_PATH='\"/path/to/lcsb\"'"
#endif

#define SECRET "s3cr3t-contents"
#define PYTHON "/usr/bin/python3"

/* The tools the file-system cases use; the command itself is always allowed. */
#define TOOLS                                                                                      \
    "\"sh\", \"cat\", \"ls\", \"rm\", \"ln\", \"mv\", \"truncate\", \"cp\", \"touch\", "           \
    "\"stat\""

extern int landlock_abi;
/* The mechanism the file-system and exec cases run under: "landlock",
 * "seatbelt" where only sandbox-exec is present, or NULL; then, in a second
 * group, "oci", through podman, with an empty directory as the container's
 * root. */
extern const char *mech;
extern bool oci_ready;
extern char oci_rootfs[PATH_MAX];

/* ---- fixtures ---- */

typedef struct fx {
    char project[PATH_MAX];
    char outside[PATH_MAX];
    char ro[PATH_MAX];
    char policy[PATH_MAX];
    char home_file[PATH_MAX]; /* a file the test put in the caller's real HOME */
    char mounted[PATH_MAX];   /* a mount point to undo at teardown */
} fx;

void assert_content(const char *path, const char *want);
void assert_exists(const char *path, bool want);

/* Write PROJECT/p.lua returning exec_policy{ BODY }. */
void policy(fx *f, const char *body_fmt, ...) __attribute__((format(printf, 2, 3)));
void raw_policy(fx *f, const char *text);
/* The default policy of the file-system cases: the tools, RO readable. */
void fs_policy(fx *f);

int enforce_group_setup(void **state);
int oci_group_setup(void **state);
int oci_group_teardown(void **state);
int fx_setup(void **state);
int fx_teardown(void **state);

#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)

/* At the top of the cases any mechanism answers: none here means skip, or
 * fail when required and this OS has one to require (Landlock on Linux,
 * Seatbelt on macOS; podman for the OCI group). */
#ifdef __APPLE__
#define OS_MECHANISM "seatbelt"
#else
#define OS_MECHANISM "landlock"
#endif
bool oci_group(void);

#define NEED_MECHANISM()                                                                           \
    do {                                                                                           \
        if (oci_group() ? !oci_ready : !mech) {                                                    \
            if (tests_required())                                                                  \
                fail_msg("no %s here and LCSB_SANDBOX_TESTS_REQUIRED=1",                           \
                         oci_group() ? "container engine (podman)" : OS_MECHANISM);                \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* At the top of the cases only Landlock answers (the OCI group lists those a
 * container answers too, and runs them under its own mechanism). */
#define NEED_LANDLOCK()                                                                            \
    do {                                                                                           \
        if (oci_group()) {                                                                         \
            NEED_MECHANISM();                                                                      \
        } else if (!landlock_abi) {                                                                \
            if (tests_required())                                                                  \
                fail_msg("Landlock is unavailable and LCSB_SANDBOX_TESTS_REQUIRED=1");             \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* ---- running lcsb ---- */

#define MAX_ARGV 64
#define CMD(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

extern proc P; /* one result buffer: the tests run one at a time */

/* Run `LAUNCHER... lcsb --backend BACKEND OPTIONS... p.lua -- CMD...` (the
 * launcher may be NULL), with ENV on top. */
void lcsb_launched(fx *f, const char *const *launcher, const char *backend,
                   const char *const *options, const char *const *cmd, const char *const *env,
                   proc *p);
/* A launcher for lcsb_launched where user namespaces are refused, as a
 * container's seccomp refuses them: FAULT_LAUNCHER (the suite's
 * fault_launcher) twice, unshare refused with EPERM, and clone with
 * CLONE_NEWUSER. NULL-terminated; the fixture's until the next call. */
const char *const *without_userns(const char *fault_launcher);
void lcsb_opts(fx *f, const char *backend, const char *const *options, const char *const *cmd,
               const char *const *env, proc *p);
void lcsb_env(fx *f, const char *backend, const char *const *cmd, const char *const *env, proc *p);
void lcsb(fx *f, const char *backend, const char *const *cmd, proc *p);

/* A line of stderr that starts with PREFIX and holds every one of the NULL-
 * terminated NEEDLES. */
bool has_line(const char *text, const char *prefix, const char *const *needles);
void assert_trailer(const proc *p, const char *backend);
void describe(const char *what, const char *const *cmd, const proc *p);

/* Under the mechanism CMD must fail with WANT (or any status but 0, 97 and
 * 125 when WANT is -1), with the trailer. WANT is what the GNU tools and
 * Linux's execve say; macOS's BSD tools and sandbox-exec say otherwise, so
 * there any refusal of the command's own counts. The result is left in P. */
void expect_denied(fx *f, const char *const *cmd, int want, proc *p);
/* Under none the same CMD must succeed: the denial above was the sandbox's. */
void expect_unsandboxed_ok(fx *f, const char *const *cmd, proc *p);
/* Under the mechanism CMD must succeed. */
void expect_allowed(fx *f, const char *const *cmd, proc *p);

/* ---- where lcsb keeps the private HOME and TMPDIR ---- */

/* The TMPDIR lcsb itself runs with, where it makes each run's private HOME
 * and TMPDIR: OUTSIDE/tmp, fresh and empty, and empty again after every run. */
typedef struct run_tmp {
    char dir[PATH_MAX];
    char env[PATH_MAX + 8]; /* TMPDIR=dir */
} run_tmp;

void make_run_tmp(fx *f, run_tmp *t);
/* DIR holds nothing: whatever is left in it is named in the failure. */
void assert_left_nothing(const char *dir, const char *when);
/* The first line of OUT, which the command printed as its $HOME. */
void first_line(const char *out, char *buf, size_t size);
/* Is DIR in this process's mount table? */
bool is_mount_point(const char *dir);

/* ---- sockets on the host's loopback ---- */

int listener(int type, int *port);
/* Did a connection arrive on listening socket FD? Drains one. */
bool accepted(int fd);
/* Did a datagram arrive on FD? Drains one. */
bool received(int fd);
/* Python that sends one datagram to 127.0.0.1, port argv[1]. */
extern const char udp_py[];

#endif
