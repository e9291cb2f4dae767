/* The shim as a real subprocess: the fixture every test_sandbox_shim_*.c
 * suite shares. Every setup fault is a 97 and the command never runs; a valid
 * policy does run it, so that those refusals mean something. The socket
 * filter's cases run probes under each "sockets" value and under "any", which
 * proves each refusal is the filter's; the terminal filter and the dropped
 * capabilities, which no policy turns off, are shown against the same command
 * run without the shim.
 *
 * The command in every case is `touch MARKER` in a fresh directory that the
 * valid policy lets it write. Each malformed case is the valid argv with one
 * edit (or, where the fault is in argv's shape, an argv written out), so the
 * same case without its fault would create MARKER. A 97 with MARKER absent is
 * then a refusal, not a sandbox that happened to stop `touch`.
 *
 * A suite registers each case with T(name): a fresh directory per case, and
 * shim_group_setup probes the kernel once for the group. */
#ifndef LCSB_TESTS_SHIM_FIXTURE_H
#define LCSB_TESTS_SHIM_FIXTURE_H

#include <limits.h>
#include <linux/audit.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "helpers.h"

#ifndef LCSB_SHIM_PATH
#error "build with -DLCSB_SHIM_PATH='\"/path/to/lcsb-exec\"'"
#endif

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif

#define SETUP_FAILED 97
#define PYTHON "/usr/bin/python3"
#define MAX_ARGS 16

/* Templates are written with ' for " to keep them legible; ` stands for a
 * real apostrophe. Tokens: {T} the case's directory, {TESC} the same with
 * every '/' written as the escape \/, {SYS} a rule granting read and execute
 * on the system directories, {LONG} a path longer than PATH_MAX, {NEST} ten
 * thousand '['. An argv element "{CMD}" becomes `/usr/bin/touch MARKER`. */
#define HEAD "{'lcsb-exec':5,'abi':1,'parts':1,"
#define FS "'fs':['execute','write_file','read_file','read_dir','make_reg']"
#define TAIL                                                                                       \
    ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}"
#define H_OK HEAD FS TAIL
#define H_READONLY                                                                                 \
    HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],"                        \
            "'world':'policy','protect':[],'hide':[],'limits':{},'proxy':0}"
#define H_SOCKETS(value)                                                                           \
    HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'" value                                    \
            "','dropped':[],'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}"
#define RULE_T "{'access':['write_file','make_reg'],'paths':['{T}']}"
#define P_OK "{'part':1,'rules':[{SYS}," RULE_T "]}"

/* What the test, as root, gives the process that runs the shim (or the twin's
 * command): a capability it could pass on through exec. */
enum caller_caps {
    CALLER_AS_IS,
    CALLER_INHERITABLE,  /* root, with CAP_NET_BIND_SERVICE in its inheritable set */
    CALLER_AMBIENT_USER, /* uid NOBODY, with CAP_NET_BIND_SERVICE as an ambient capability */
};

#define NOBODY 65534
#define STATUS_NOT_NOBODYS 96 /* the program is not executable by NOBODY */

struct fixture {
    const struct refusal *refusal;
    char dir[64];
    char marker[96];
    char errfile[96];
    char outfile[96];
    char *args[MAX_ARGS + 1]; /* owned, NULL-terminated */
    int stdin_fd;             /* > 0: the command's stdin instead of ours */
    bool ctty;                /* and in a new session, with it as the terminal */
    enum caller_caps caps;    /* capabilities to run with (as root only) */
};

struct result {
    int status; /* exit status, or 128 + signal */
    char err[8192];
    char out[4096];
};

/* A fault the kernel injects: syscall NR (and, when ARG0 >= 0, only with that
 * first argument) fails with ERR. With NTH > 0 only the NTH such call fails
 * and the others go through: a filter cannot count, so those calls are sent
 * to the test (SECCOMP_RET_USER_NOTIF), which counts them. */
struct fault {
    long nr;
    long arg0;
    int err;
    int nth;
};

extern int kernel_abi;
extern char self_exe[PATH_MAX]; /* this binary, which also serves as a probe */

int shim_group_setup(void **state);
int shim_setup(void **state);
int shim_teardown(void **state);
#define T(name) cmocka_unit_test_setup_teardown(name, shim_setup, shim_teardown)

void *xmalloc(size_t n);
/* Enforcement cases need a kernel that can enforce; in CI that is required. */
void require_landlock(void);
/* python3 makes the probes; without it those cases skip. */
void require_python(void);
/* Expands a template's tokens into a new string. */
char *expand(const struct fixture *f, const char *tmpl);
/* Sets the fixture's argv from templates; "{CMD}" is `touch MARKER`. */
void set_args(struct fixture *f, const char *const *tmpls, size_t count);
void free_args(struct fixture *f);
/* The valid argv with HEADER, and an optional replacement part. */
void set_valid_header(struct fixture *f, const char *header, const char *part);
/* The valid argv, with an optional replacement part. */
void set_valid(struct fixture *f, const char *part);

/* Runs the shim with ARGS (after argv[0]), optionally under FAULT. */
void run_argv(struct fixture *f, char **args, const struct fault *fault, struct result *r);
void run(struct fixture *f, const struct fault *fault, struct result *r);
/* Runs the fixture's command, what follows "--", without the shim: a twin. */
void run_direct(struct fixture *f, struct result *r);
/* A 97, MARKER absent, and the shim's message, holding EXPECT unless NULL. */
void assert_refused(const struct fixture *f, const struct result *r, const char *expect);

#endif
