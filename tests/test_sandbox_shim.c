/* The shim as a real subprocess: every setup fault is a 97 and the command
 * never runs; a valid policy does run it, so that those refusals mean
 * something.
 *
 * The command in every case is `touch MARKER` in a fresh directory that the
 * valid policy lets it write. Each malformed case is the valid argv with one
 * edit (or, where the fault is in argv's shape, an argv written out), so the
 * same case without its fault would create MARKER. A 97 with MARKER absent is
 * then a refusal, not a sandbox that happened to stop `touch`. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
#define MAX_ARGS 16
#define ARG_LIMIT (128 * 1024) /* MAX_ARG_STRLEN, NUL included */
#define MANY_PATHS 20000

/* Templates are written with ' for " to keep them legible; ` stands for a
 * real apostrophe. Tokens: {T} the case's directory, {TESC} the same with
 * every '/' written as the escape \/, {SYS} a rule granting read and execute
 * on the system directories, {LONG} a path longer than PATH_MAX, {NEST} ten
 * thousand '['. An argv element "{CMD}" becomes `/usr/bin/touch MARKER`. */
#define HEAD "{'lcsb-exec':1,'abi':1,'parts':1,"
#define FS "'fs':['execute','write_file','read_file','read_dir','make_reg']"
#define TAIL ",'net':[],'ports':[],'scope':[]}"
#define H_OK HEAD FS TAIL
#define RULE_T "{'access':['write_file','make_reg'],'paths':['{T}']}"
#define P_OK "{'part':1,'rules':[{SYS}," RULE_T "]}"
#define H_NET "{'lcsb-exec':1,'abi':4,'parts':1," FS ",'net':['connect_tcp'],'ports':[" \
    "{'access':['connect_tcp'],'ports':[443]}],'scope':[]}"

struct edit {
    const char *from; /* replaced at its first occurrence, which must exist */
    const char *to;
};

/* One malformed input. With ARGV NULL it is the valid argv (H_OK, P_OK, --,
 * touch MARKER) with EDITS applied to element ARG. */
struct refusal {
    const char *name;
    const char *expect; /* a piece of the shim's message */
    int arg;
    struct edit edits[2];
    const char *argv[8];
    bool after_ruleset; /* found only while adding rules, so needs Landlock */
};

#define EDIT(name, expect, arg, from, to) {name, expect, arg, {{from, to}, {NULL, NULL}}, \
    {NULL}, false}
#define EDIT2(name, expect, arg, f1, t1, f2, t2) {name, expect, arg, {{f1, t1}, {f2, t2}}, \
    {NULL}, false}
#define ARGV(name, expect, ...) {name, expect, 0, {{NULL, NULL}, {NULL, NULL}}, \
    {__VA_ARGS__, NULL}, false}
#define LATE(name, expect, arg, from, to) {name, expect, arg, {{from, to}, {NULL, NULL}}, \
    {NULL}, true}

static const struct refusal refusals[] = {
    /* JSON syntax */
    ARGV("header not JSON", "expected '{'", "hello", P_OK, "--", "{CMD}"),
    ARGV("header empty", "expected '{'", "", P_OK, "--", "{CMD}"),
    ARGV("header an array", "expected '{'", "[]", P_OK, "--", "{CMD}"),
    ARGV("huge nesting", "expected '{'", "{NEST}", P_OK, "--", "{CMD}"),
    EDIT("nested arrays in a value", "as a string", 0, "'fs':[", "'fs':[[[["),
    EDIT("header truncated", "the end of the argument", 0, TAIL, ",'net':["),
    ARGV("unterminated key", "unterminated string", "{'lcsb-exec", P_OK, "--", "{CMD}"),
    EDIT("unterminated path", "unterminated string", 1, "'{T}']}]}", "'{T}"),
    EDIT("unknown escape", "unknown escape", 0, "'read_file'", "'read\\qfile'"),
    EDIT("escape at the end", "unknown escape", 1, "'{T}']}]}", "'{T}\\"),
    EDIT("\\u0000 in a name", "\\u0001 to \\u007f", 0, "'read_file'", "'read_file\\u0000'"),
    EDIT("\\u0000 in a path", "\\u0001 to \\u007f", 1, "'{T}'", "'{T}\\u0000/x'"),
    EDIT("\\u0080", "\\u0001 to \\u007f", 1, "'{T}'", "'{T}\\u0080'"),
    EDIT("\\ud800", "\\u0001 to \\u007f", 1, "'{T}'", "'{T}\\ud800'"),
    EDIT("\\u cut short", "\\u0001 to \\u007f", 1, "'{T}'", "'{T}\\u00'"),
    EDIT("raw control byte", "control byte 0x01", 1, "'{T}'", "'{T}\x01'"),
    EDIT("raw tab in a string", "control byte 0x09", 1, "'{T}'", "'{T}\t'"),
    EDIT("single-quoted key", "a key as a string", 0, "'abi':1", "`abi`:1"),
    EDIT("trailing comma", "as a string, found ']'", 0, "'make_reg']", "'make_reg',]"),
    EDIT("missing comma", "expected ',' or ']'", 0, "'read_dir',", "'read_dir' "),
    EDIT("trailing garbage", "trailing bytes", 0, "'scope':[]}", "'scope':[]} x"),
    EDIT("second object", "trailing bytes", 0, "'scope':[]}", "'scope':[]}{}"),
    EDIT("part trailing garbage", "trailing bytes", 1, "]}]}", "]}]},"),
    EDIT("part truncated", "expected ',' or '}'", 1, "]}]}", "]}]"),
    /* keys */
    EDIT("unknown key", "unknown key \"extra\"", 0, "'scope':[]", "'scope':[],'extra':1"),
    EDIT("duplicate key", "key \"abi\" given twice", 0, "'abi':1,", "'abi':1,'abi':1,"),
    EDIT("duplicate version", "\"lcsb-exec\" given twice", 0, "'abi':1", "'abi':1,'lcsb-exec':1"),
    EDIT("missing key", "missing key \"scope\"", 0, ",'scope':[]", ""),
    EDIT("version not first", "expected key \"lcsb-exec\"", 0, "'lcsb-exec':1,'abi':1",
         "'abi':1,'lcsb-exec':1"),
    ARGV("empty header object", "missing key \"lcsb-exec\"", "{}", P_OK, "--", "{CMD}"),
    ARGV("part empty object", "missing key \"part\"", H_OK, "{}", "--", "{CMD}"),
    ARGV("part not an object", "expected '{'", H_OK, "'x'", "--", "{CMD}"),
    ARGV("part keys out of order", "expected key \"part\"", H_OK, "{'rules':[],'part':1}", "--",
         "{CMD}"),
    EDIT("part unknown key", "no key may follow \"rules\"", 1, "]}]}", "]}],'x':1}"),
    EDIT("part repeated key", "no key may follow \"rules\"", 1, "]}]}", "]}],'rules':[]}"),
    EDIT("rule keys out of order", "expected key \"access\"", 1, RULE_T,
         "{'paths':['{T}'],'access':['write_file']}"),
    EDIT("rule without paths", "missing key \"paths\"", 1, ",'paths':['{T}']}", "}"),
    EDIT("rule unknown key", "no key may follow \"paths\"", 1, "'{T}']}", "'{T}'],'x':[]}"),
    ARGV("rules an object", "expected '['", H_OK, "{'part':1,'rules':{}}", "--", "{CMD}"),
    /* integers and types */
    EDIT("version 2", "version 2 is not 1", 0, "'lcsb-exec':1", "'lcsb-exec':2"),
    EDIT("version as a string", "non-negative integer", 0, "'lcsb-exec':1", "'lcsb-exec':'1'"),
    EDIT("version with a leading zero", "leading zero", 0, "'lcsb-exec':1", "'lcsb-exec':01"),
    EDIT("abi 0", "abi 0 is not", 0, "'abi':1", "'abi':0"),
    EDIT("abi 8", "abi 8 is not", 0, "'abi':1", "'abi':8"),
    EDIT("abi negative", "non-negative integer", 0, "'abi':1", "'abi':-1"),
    EDIT("abi with a plus sign", "non-negative integer", 0, "'abi':1", "'abi':+1"),
    EDIT("abi huge", "out of range", 0, "'abi':1", "'abi':184467440737095516160"),
    EDIT("abi a fraction", "without fraction", 0, "'abi':1", "'abi':1.0"),
    EDIT("abi an exponent", "without fraction", 0, "'abi':1", "'abi':1e0"),
    EDIT("abi true", "non-negative integer", 0, "'abi':1", "'abi':true"),
    EDIT("abi null", "non-negative integer", 0, "'abi':1", "'abi':null"),
    EDIT("parts huge", "out of range", 0, "'parts':1", "'parts':99999999999"),
    EDIT("fs a string", "expected '['", 0, FS, "'fs':'read_file'"),
    EDIT("part index wrong", "says it is part 2", 1, "'part':1", "'part':2"),
    EDIT("part index a string", "non-negative integer", 1, "'part':1", "'part':'1'"),
    /* rights */
    EDIT("unknown fs right", "unknown fs right name \"read_all\"", 0, "'make_reg']",
         "'make_reg','read_all']"),
    EDIT("right given twice", "given twice", 0, "'make_reg']", "'make_reg','make_reg']"),
    EDIT("fs right newer than abi", "\"truncate\" is newer than abi 1", 0, "'make_reg']",
         "'make_reg','truncate']"),
    EDIT("refer at abi 1", "\"refer\" is newer than abi 1", 0, "'make_reg']",
         "'make_reg','refer']"),
    EDIT2("ioctl_dev at abi 4", "\"ioctl_dev\" is newer than abi 4", 0, "'abi':1",
          "'abi':4", "'make_reg']", "'make_reg','ioctl_dev']"),
    EDIT("net right newer than abi", "\"connect_tcp\" is newer than abi 1", 0, "'net':[]",
         "'net':['connect_tcp']"),
    EDIT2("scope newer than abi", "scope \"signal\" is newer than abi 5", 0, "'abi':1",
          "'abi':5", "'scope':[]", "'scope':['signal']"),
    EDIT2("unknown scope", "unknown scope name", 0, "'abi':1", "'abi':6", "'scope':[]",
          "'scope':['everything']"),
    EDIT("unknown net right", "unknown net right name", 0, "'net':[]", "'net':['udp']"),
    ARGV("nothing handled", "handles no right", "{'lcsb-exec':1,'abi':1,'parts':0,'fs':[],"
         "'net':[],'ports':[],'scope':[]}", "--", "{CMD}"),
    EDIT("rule right not in fs", "\"make_dir\", which the header's \"fs\" does not handle", 1,
         "'write_file','make_reg']", "'write_file','make_dir']"),
    EDIT("rule unknown right", "unknown fs right name", 1, "'make_reg']", "'make_all']"),
    EDIT("rule grants nothing", "a rule grants no right", 1, "['write_file','make_reg']", "[]"),
    /* ports */
    EDIT2("port out of range", "at most 65535", 0, H_OK, H_NET, "[443]", "[65536]"),
    EDIT2("port negative", "non-negative integer", 0, H_OK, H_NET, "[443]", "[-1]"),
    EDIT2("port a string", "non-negative integer", 0, H_OK, H_NET, "[443]", "['443']"),
    EDIT2("port right not in net", "which \"net\" does not handle", 0, H_OK, H_NET,
          "'net':['connect_tcp']", "'net':['bind_tcp']"),
    EDIT2("port rule grants nothing", "a port rule grants no right", 0, H_OK, H_NET,
          "'access':['connect_tcp'],", "'access':[],"),
    EDIT2("port rule keys out of order", "expected key \"access\"", 0, H_OK, H_NET,
          "{'access':['connect_tcp'],'ports':[443]}", "{'ports':[443],'access':['connect_tcp']}"),
    /* paths */
    EDIT("relative path", "is not absolute", 1, "'{T}'", "'tmp/x'"),
    EDIT("empty path", "is not absolute", 1, "'{T}'", "''"),
    EDIT("path longer than PATH_MAX", "longer than 4095 bytes", 1, "'{T}'", "'{LONG}'"),
    LATE("nonexistent path", "No such file or directory", 1, "'{T}'", "'{T}/missing'"),
    LATE("path through a file", "Not a directory", 1, "'{T}'", "'/etc/passwd/x'"),
    /* argv's shape */
    EDIT("parts count too high", "announces 2 parts and argv holds 1", 0, "'parts':1",
         "'parts':2"),
    EDIT("parts count too low", "announces 0 parts and argv holds 1", 0, "'parts':1",
         "'parts':0"),
    ARGV("extra part", "announces 1 parts and argv holds 2", H_OK, P_OK, P_OK, "--", "{CMD}"),
    ARGV("parts out of order", "says it is part 2",
         "{'lcsb-exec':1,'abi':1,'parts':2," FS TAIL, "{'part':2,'rules':[]}", P_OK, "--",
         "{CMD}"),
    ARGV("missing --", "no \"--\"", H_OK, P_OK, "{CMD}"),
    ARGV("empty command", "nothing follows \"--\"", H_OK, P_OK, "--"),
    ARGV("--version with arguments", "expected '{'", "--version", "--", "{CMD}"),
    ARGV("no arguments", "no arguments", NULL),
};

#define N_REFUSALS (sizeof refusals / sizeof refusals[0])

struct fixture {
    const struct refusal *refusal;
    char dir[64];
    char marker[96];
    char errfile[96];
    char outfile[96];
    char *args[MAX_ARGS + 1]; /* owned, NULL-terminated */
};

struct result {
    int status; /* exit status, or 128 + signal */
    char err[8192];
    char out[256];
};

/* A fault the kernel injects: syscall NR (and, when ARG0 >= 0, only with that
 * first argument) fails with ERR. */
struct fault {
    long nr;
    long arg0;
    int err;
};

static int kernel_abi;
static char sys_rule[512];

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    assert_non_null(p);
    return p;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int group_setup(void **state) {
    static const char *const sys[] = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc"};
    size_t n;
    (void)state;

    kernel_abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, 1U);
    n = (size_t)snprintf(sys_rule, sizeof sys_rule,
                         "{'access':['read_file','read_dir','execute'],'paths':[");
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        if (access(sys[i], F_OK) != 0)
            continue;
        n += (size_t)snprintf(sys_rule + n, sizeof sys_rule - n, "%s'%s'",
                              sys_rule[n - 1] == '[' ? "" : ",", sys[i]);
    }
    snprintf(sys_rule + n, sizeof sys_rule - n, "]}");
    return 0;
}

static int setup(void **state) {
    struct fixture *f = calloc(1, sizeof *f);

    if (f == NULL)
        return -1;
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

static int teardown(void **state) {
    struct fixture *f = *state;

    for (size_t i = 0; f->args[i] != NULL; i++)
        free(f->args[i]);
    nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* Enforcement cases need a kernel that can enforce; in CI that is required. */
static void require_landlock(void) {
    const char *required = getenv("LCSB_SANDBOX_TESTS_REQUIRED");

    if (kernel_abi >= 1)
        return;
    if (required != NULL && strcmp(required, "1") == 0)
        fail_msg("Landlock is unavailable (ABI probe: %d) and LCSB_SANDBOX_TESTS_REQUIRED=1",
                 kernel_abi);
    skip();
}

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Applies EDIT to TMPL: the edit must apply, or the case tests nothing. */
static char *apply(const char *tmpl, const struct edit *e) {
    const char *at = strstr(tmpl, e->from);
    size_t head, from = strlen(e->from), to = strlen(e->to);
    char *out;

    if (at == NULL)
        fail_msg("edit \"%s\" does not apply to %s", e->from, tmpl);
    head = (size_t)(at - tmpl);
    out = xmalloc(strlen(tmpl) - from + to + 1);
    memcpy(out, tmpl, head);
    memcpy(out + head, e->to, to);
    strcpy(out + head + to, at + from);
    return out;
}

/* Expands a template's tokens into a new string. */
static char *expand(const struct fixture *f, const char *tmpl) {
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
                if (*d == '/')
                    out[n++] = '\\';
                out[n++] = *d;
            }
            p += 5;
        } else if (strncmp(p, "{T}", 3) == 0) {
            n += (size_t)sprintf(out + n, "%s", f->dir);
            p += 2;
        } else if (strncmp(p, "{SYS}", 5) == 0) {
            for (const char *s = sys_rule; *s != '\0'; s++)
                out[n++] = *s == '\'' ? '"' : *s;
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
static void set_args(struct fixture *f, const char *const *tmpls, size_t count) {
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

static void install_fault(const struct fault *fault) {
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
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        _exit(98);
#else
    (void)fault;
    _exit(98);
#endif
}

static void read_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? 0 : read(fd, buf, cap - 1);

    buf[n > 0 ? n : 0] = '\0';
    if (fd >= 0)
        close(fd);
}

/* Runs the shim with ARGS (after argv[0]), optionally under FAULT. */
static void run_argv(struct fixture *f, char **args, const struct fault *fault,
                     struct result *r) {
    size_t n = 0;
    char **argv;
    pid_t pid;
    int status;

    while (args[n] != NULL)
        n++;
    argv = xmalloc((n + 2) * sizeof *argv);
    argv[0] = (char *)LCSB_SHIM_PATH;
    memcpy(argv + 1, args, (n + 1) * sizeof *argv);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int err = open(f->errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int out = open(f->outfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (err < 0 || out < 0 || dup2(err, 2) < 0 || dup2(out, 1) < 0)
            _exit(98);
        /* LeakSanitizer cannot read /proc inside the sandbox and would turn
         * an exit status into its own; the shim allocates nothing anyway. */
        setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
        if (fault != NULL)
            install_fault(fault);
        execv(LCSB_SHIM_PATH, argv);
        _exit(99);
    }
    free(argv);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    assert_int_not_equal(r->status, 98); /* the harness failed, not the shim */
    assert_int_not_equal(r->status, 99);
    read_file(f->errfile, r->err, sizeof r->err);
    read_file(f->outfile, r->out, sizeof r->out);
}

static void run(struct fixture *f, const struct fault *fault, struct result *r) {
    run_argv(f, f->args, fault, r);
}

/* The valid argv, with an optional replacement part. */
static void set_valid(struct fixture *f, const char *part) {
    const char *tmpls[] = {H_OK, part != NULL ? part : P_OK, "--", "{CMD}"};
    set_args(f, tmpls, 4);
}

static void assert_refused(const struct fixture *f, const struct result *r, const char *expect) {
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

static void test_refusal(void **state) {
    struct fixture *f = *state;
    const struct refusal *c = f->refusal;
    struct result r;

    if (c->argv[0] != NULL || c->edits[0].from == NULL) {
        size_t n = 0;
        while (n < 8 && c->argv[n] != NULL)
            n++;
        set_args(f, c->argv, n);
    } else {
        const char *tmpls[] = {H_OK, P_OK, "--", "{CMD}"};
        char *edited = apply(tmpls[c->arg], &c->edits[0]);
        if (c->edits[1].from != NULL) {
            char *twice = apply(edited, &c->edits[1]);
            free(edited);
            edited = twice;
        }
        tmpls[c->arg] = edited;
        set_args(f, tmpls, 4);
        free(edited);
    }
    run(f, NULL, &r);
    /* Without Landlock the shim stops earlier, at the kernel probe: still a
     * 97, but with another message. */
    assert_refused(f, &r, c->after_ruleset && kernel_abi < 1 ? NULL : c->expect);
}

static void test_valid_policy_runs(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(f, NULL);
    run(f, NULL, &r);
    if (r.status != 0)
        print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
    assert_string_equal(r.err, "");
}

/* Whitespace, escapes and any order of the header's later keys are JSON the
 * shim must read as the same policy. */
static void test_valid_policy_spelled_differently(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {
        " {\n\t'lcsb-exec' : 1 ,\r\n 'scope':[ ], 'parts':1,'abi' :1, 'net':[],'ports':[],"
        "'fs':['\\u0065xecute','write\\u005ffile','read_file','read_dir','make_reg']} ",
        ("{'part':1,\n'rules':[ {SYS} , {'access':['write_file','make_reg'],"
         "'paths':['{TESC}']} ]}\n"),
        "--", "{CMD}"};
    struct result r;

    require_landlock();
    set_args(f, tmpls, 4);
    run(f, NULL, &r);
    if (r.status != 0)
        print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

/* Paths are byte strings: a control byte arrives escaped, a byte above 0x7f
 * raw, and both must reach open() as the bytes they stand for. */
static void test_path_bytes_decoded(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {H_OK,
                           "{'part':1,'rules':[{SYS},{'access':['write_file','make_reg'],"
                           "'paths':['{T}\\/odd\\u0001\xe9\\u007f\\\\']}]}",
                           "--", "/usr/bin/touch", NULL};
    char odd[128], inside[160];
    struct result r;

    require_landlock();
    snprintf(odd, sizeof odd, "%s/odd\x01\xe9\x7f\\", f->dir);
    snprintf(inside, sizeof inside, "%s/file", odd);
    assert_int_equal(mkdir(odd, 0755), 0);
    set_args(f, tmpls, 4);
    f->args[4] = strdup(inside);
    f->args[5] = NULL;
    run(f, NULL, &r);
    if (r.status != 0)
        print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(inside));
}

/* Every right, net and scope of the newest ABI, so the ruleset's full size
 * and every name reach the kernel. */
static void test_valid_policy_newest_abi(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {
        "{'lcsb-exec':1,'abi':7,'parts':1,'fs':['execute','write_file','read_file','read_dir',"
        "'remove_dir','remove_file','make_char','make_dir','make_reg','make_sock','make_fifo',"
        "'make_block','make_sym','refer','truncate','ioctl_dev'],'net':['bind_tcp',"
        "'connect_tcp'],'ports':[{'access':['connect_tcp'],'ports':[0,443,65535]},"
        "{'access':['bind_tcp','connect_tcp'],'ports':[8080]}],"
        "'scope':['abstract_unix_socket','signal']}",
        ("{'part':1,'rules':[{SYS},{'access':['write_file','make_reg','truncate'],"
         "'paths':['{T}']}]}"),
        "--", "{CMD}"};
    struct result r;

    require_landlock();
    if (kernel_abi < 7)
        skip();
    set_args(f, tmpls, 4);
    run(f, NULL, &r);
    if (r.status != 0)
        print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

/* A file rule naming only directory rights is dropped, not refused. */
static void test_directory_rights_on_a_file_are_dropped(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(f, "{'part':1,'rules':[{SYS}," RULE_T ",{'access':['read_dir','make_reg'],"
                 "'paths':['/etc/passwd']}]}");
    run(f, NULL, &r);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

static void test_write_not_granted(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(f, "{'part':1,'rules':[{SYS}]}");
    run(f, NULL, &r);
    assert_int_not_equal(r.status, 0);
    assert_int_not_equal(r.status, SETUP_FAILED);
    assert_false(exists(f->marker));
}

static void test_command_not_found(void **state) {
    struct fixture *f = *state;
    char *old_path;
    struct result r;

    require_landlock();
    set_valid(f, NULL);
    free(f->args[3]);
    f->args[3] = strdup("/nonexistent/lcsb-no-such-command");
    run(f, NULL, &r);
    assert_int_equal(r.status, 127);
    assert_non_null(strstr(r.err, "lcsb-exec: cannot execute /nonexistent/lcsb-no-such-command"));

    /* Searched on PATH; a PATH entry the user may not search would turn
     * execvp's ENOENT into EACCES, so use one every user can. */
    free(f->args[3]);
    f->args[3] = strdup("lcsb-no-such-command");
    old_path = getenv("PATH") != NULL ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/usr/bin:/bin", 1);
    run(f, NULL, &r);
    if (old_path != NULL)
        setenv("PATH", old_path, 1);
    free(old_path);
    assert_int_equal(r.status, 127);
    assert_false(exists(f->marker));
}

static void test_command_not_executable(void **state) {
    struct fixture *f = *state;
    char script[128];
    struct result r;
    int fd;

    require_landlock();
    snprintf(script, sizeof script, "%s/script", f->dir);
    fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    close(fd);
    /* The directory's files are executable as far as Landlock goes; the
     * mode alone says no. */
    set_valid(f, "{'part':1,'rules':[{SYS},{'access':['read_file','execute'],"
                 "'paths':['{T}']}]}");
    free(f->args[3]);
    f->args[3] = strdup(script);
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_non_null(strstr(r.err, "Permission denied"));
}

static void test_command_exec_denied(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    set_valid(f, "{'part':1,'rules':[{'access':['read_file','read_dir'],'paths':['/usr','/etc']},"
                 RULE_T "]}");
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_false(exists(f->marker));
}

/* 20,000 file rules over several parts, each below the kernel's argv-string
 * limit; reading the last file proves the last part was enforced too, and
 * reading an unlisted one proves the rules are all that was granted. */
static void test_many_paths(void **state) {
    struct fixture *f = *state;
    const size_t part_max = 120 * 1024;
    char many[128], path[192], header[256];
    char *args[64 + 8];
    size_t nargs = 1, len = 0;
    char *cur = NULL;
    struct result r;

    require_landlock();
    snprintf(many, sizeof many, "%s/many", f->dir);
    assert_int_equal(mkdir(many, 0755), 0);
    for (int i = 0; i <= MANY_PATHS; i++) { /* the last one is left out of the policy */
        snprintf(path, sizeof path, "%s/f%05d", many, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
    }
    for (int i = 0; i < MANY_PATHS; i++) {
        snprintf(path, sizeof path, "%s/f%05d", many, i);
        if (cur != NULL && len + strlen(path) + 8 > part_max) {
            len += (size_t)sprintf(cur + len, "]}]}");
            args[nargs++] = cur;
            cur = NULL;
        }
        if (cur == NULL) {
            assert_true(nargs < 64);
            cur = xmalloc(part_max + 4096);
            len = (size_t)sprintf(cur, "{\"part\":%zu,\"rules\":[", nargs);
            if (nargs == 1) {
                char *sys = expand(f, "{SYS}," RULE_T ",");
                len += (size_t)sprintf(cur + len, "%s", sys);
                free(sys);
            }
            len += (size_t)sprintf(cur + len, "{\"access\":[\"read_file\"],\"paths\":[");
        } else {
            cur[len++] = ',';
        }
        len += (size_t)sprintf(cur + len, "\"%s\"", path);
    }
    len += (size_t)sprintf(cur + len, "]}]}");
    args[nargs++] = cur;
    snprintf(header, sizeof header,
             "{\"lcsb-exec\":1,\"abi\":1,\"parts\":%zu,\"fs\":[\"execute\",\"write_file\","
             "\"read_file\",\"read_dir\",\"make_reg\"],\"net\":[],\"ports\":[],\"scope\":[]}",
             nargs - 1);
    args[0] = header;
    assert_true(nargs - 1 >= 5);
    for (size_t i = 0; i < nargs; i++)
        assert_true(strlen(args[i]) + 1 < ARG_LIMIT);

    snprintf(path, sizeof path, "%s/f%05d", many, MANY_PATHS - 1);
    args[nargs] = "--";
    args[nargs + 1] = "/bin/sh";
    args[nargs + 2] = "-c";
    args[nargs + 3] = "exec <\"$1\" && exec /usr/bin/touch \"$2\"";
    args[nargs + 4] = "sh";
    args[nargs + 5] = path;
    args[nargs + 6] = f->marker;
    args[nargs + 7] = NULL;
    run_argv(f, args, NULL, &r);
    if (r.status != 0)
        print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));

    assert_int_equal(unlink(f->marker), 0);
    snprintf(path, sizeof path, "%s/f%05d", many, MANY_PATHS);
    run_argv(f, args, NULL, &r);
    assert_int_not_equal(r.status, 0);
    assert_int_not_equal(r.status, SETUP_FAILED);
    assert_false(exists(f->marker));
    for (size_t i = 1; i < nargs; i++)
        free(args[i]);
}

static void test_version(void **state) {
    struct fixture *f = *state;
    struct result r;
    const char *tmpls[] = {"--version"};

    set_args(f, tmpls, 1);
    run(f, NULL, &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "lcsb-exec 1\n");
    assert_string_equal(r.err, "");
}

/* The kernel saying no, for real, at each step after parsing. */
static void check_fault(void **state, long nr, long arg0, int err, const char *expect) {
    struct fixture *f = *state;
    struct fault fault = {nr, arg0, err};
    struct result r;

#ifndef NATIVE_ARCH
    skip();
#endif
    set_valid(f, NULL);
    run(f, &fault, &r);
    assert_refused(f, &r, expect);
}

static void test_fault_no_landlock(void **state) {
    check_fault(state, __NR_landlock_create_ruleset, -1, ENOSYS, "cannot use Landlock");
}

static void test_fault_add_rule(void **state) {
    require_landlock();
    check_fault(state, __NR_landlock_add_rule, -1, EPERM, "cannot add a Landlock rule for");
}

static void test_fault_no_new_privs(void **state) {
    require_landlock();
    check_fault(state, __NR_prctl, PR_SET_NO_NEW_PRIVS, EPERM, "cannot set no_new_privs");
}

static void test_fault_restrict_self(void **state) {
    require_landlock();
    check_fault(state, __NR_landlock_restrict_self, -1, EPERM,
                "cannot enforce the Landlock ruleset");
}

int main(void) {
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test_setup_teardown(test_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_policy_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_policy_spelled_differently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_policy_newest_abi, setup, teardown),
        cmocka_unit_test_setup_teardown(test_path_bytes_decoded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_rights_on_a_file_are_dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_write_not_granted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_not_executable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_exec_denied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_no_landlock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_add_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_no_new_privs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_restrict_self, setup, teardown),
    };
    const size_t n_fixed = sizeof fixed / sizeof fixed[0];
    struct CMUnitTest *tests = calloc(n_fixed + N_REFUSALS, sizeof *tests);
    int failed;

    if (tests == NULL)
        return 1;
    memcpy(tests, fixed, sizeof fixed);
    /* One test per malformed input, so a failure names its case. */
    for (size_t i = 0; i < N_REFUSALS; i++) {
        struct CMUnitTest t = {refusals[i].name, test_refusal, setup, teardown,
                               (void *)&refusals[i]};
        tests[n_fixed + i] = t;
    }
    failed = _cmocka_run_group_tests("sandbox_shim", tests, n_fixed + N_REFUSALS, group_setup,
                                     NULL);
    free(tests);
    return failed;
}
