/* What several suites would otherwise write again, in one place (libuv's
 * task.h habit): running a child and collecting what it said, files read and
 * written whole, rm -rf, the LCSB_SANDBOX_TESTS_REQUIRED switch, text and argv
 * assertions, and the public API's builders that fail the test on a refusal.
 * Include it after <cmocka.h>; helpers.c is linked into every suite. */
#ifndef LCSB_TESTS_HELPERS_H
#define LCSB_TESTS_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "lcsb.h"

/* snprintf that must not truncate */
#define FMT(buf, ...)                                                                              \
    do {                                                                                           \
        int fmt_n_ = snprintf(buf, sizeof buf, __VA_ARGS__);                                       \
        assert_true(fmt_n_ >= 0 && (size_t)fmt_n_ < sizeof buf);                                   \
    } while (0)

/* A sanitizer build runs the policy scripts that allocate up to lcsb's
 * 1 GiB cap several times slower, and CI runs two suites at once. */
#ifdef LCSB_SANITIZED
#define TIMEOUT_SECONDS 90
#else
#define TIMEOUT_SECONDS 20
#endif
#define OUTPUT_MAX (256 * 1024)

/* In CI (LCSB_SANDBOX_TESTS_REQUIRED=1) a case this host cannot run fails
 * instead of skipping. */
bool tests_required(void);

/* ---- files ---- */

bool exists(const char *path); /* lstat: a dangling link exists */
/* BUF (PATH_MAX bytes) := DIR/LEAF; returns BUF. */
char *path_in(char *buf, const char *dir, const char *leaf);
void write_file(const char *path, const char *content);
/* Up to CAP - 1 bytes of PATH into BUF, NUL-terminated; "" when it cannot be
 * read. */
void read_file(const char *path, char *buf, size_t cap);
/* The whole file (up to OUTPUT_MAX - 1 bytes), or NULL when it cannot be
 * read. Caller frees. */
char *slurp(const char *path);
/* rm -rf PATH, never following a link nor crossing a mount; "" is nothing. */
void rm_rf(const char *path);

/* ---- running a child ---- */

typedef struct proc {
    int status; /* exit status, or 128+N when killed by signal N */
    char out[OUTPUT_MAX];
    char err[OUTPUT_MAX];
    size_t out_n, err_n;
} proc;

/* What the next run_child's child holds besides stdout and stderr: stdin is
 * /dev/null unless CHILD_STDIN names a file to open; CHILD_FD7, when set, is
 * opened on fds 7 and 8 without O_CLOEXEC (a descriptor lcsb's caller leaks). Both
 * are cleared by the test that sets them. */
extern const char *child_stdin;
extern const char *child_fd7;

/* Run ARGV in CWD with the caller's environment, PATH=/usr/bin:/bin (so a
 * caller's shims, pyenv and the like, do not decide what runs), and the
 * NAME=VALUE entries of ENV on top; capture stdout and stderr. Killed (with
 * its process group) after TIMEOUT_SECONDS. */
void run_child(const char *cwd, const char *const *argv, const char *const *env, proc *p);

/* Read one line from FD into BUF within TIMEOUT_SECONDS (NUL-terminated, no
 * newline); false at EOF or on timeout. */
bool read_line(int fd, char *buf, size_t size);

/* The monotonic clock, in seconds. */
double now_seconds(void);
/* The host pid of a process named COMM (as in /proc/PID/comm) among ROOT's
 * descendants, waiting up to two seconds for it to appear; 0 if none does.
 * A command in a pid namespace of its own cannot say its host pid itself. */
pid_t descendant_named(pid_t root, const char *comm);

/* ---- text and argv ---- */

/* assert_contains(TEXT, NEEDLE[, WHAT]) and assert_lacks(TEXT, NEEDLE[, WHAT]):
 * TEXT holds NEEDLE, or does not; WHAT names TEXT in the failure ("stdout",
 * "the attestation"), which is reported at the caller's line. */
#define assert_contains(...)                                                                       \
    helpers_text(HELPERS_ARGS3(__VA_ARGS__, NULL, 0), true, __FILE__, __LINE__)
#define assert_lacks(...)                                                                          \
    helpers_text(HELPERS_ARGS3(__VA_ARGS__, NULL, 0), false, __FILE__, __LINE__)
#define HELPERS_ARGS3(a, b, c, ...) a, b, c
void helpers_text(const char *text, const char *needle, const char *what, bool want,
                  const char *file, int line);

/* A copy of S with its first FROM replaced by TO; FROM must be there. Caller
 * frees. */
char *replaced(const char *s, const char *from, const char *to);

size_t argc_of(char **argv);
/* GOT is WANT, word for word; both NULL-terminated. */
void assert_argv_equal(char **got, const char *const *want);

/* ---- policies and backends through the public API, failing on a refusal ---- */

lcsb_policy *new_policy(void);
/* Add PATH to TIER: "read", "write", "protect", else exec; lcsb's answer. */
int policy_add(lcsb_policy *p, lcsb_tier tier, const char *path, lcsb_error *err);
/* The same, failing the test on a refusal. */
void add(lcsb_policy *p, lcsb_tier tier, const char *path);
/* The same, and what the policy stored for it (read, write or exec). */
const char *added(lcsb_policy *p, lcsb_tier tier, const char *path);
void add_port(lcsb_policy *p, lcsb_port_kind kind, long port);
void set_env(lcsb_policy *p, const char *name, const char *value);
lcsb_backend *landlock_backend(int abi, const char *shim);

#endif
