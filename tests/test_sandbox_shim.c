/* The shim as a real subprocess: every setup fault is a 97 and the command
 * never runs; a valid policy does run it, so that those refusals mean
 * something. The socket filter's cases run probes under each "sockets" value
 * and under "any", which proves each refusal is the filter's; the terminal
 * filter and the dropped capabilities, which no policy turns off, are shown
 * against the same command run without the shim.
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
#include <grp.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
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

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

#define SETUP_FAILED 97
#define PYTHON "/usr/bin/python3"
#define MAX_ARGS 16
#define ARG_LIMIT (128 * 1024) /* MAX_ARG_STRLEN, NUL included */
#define MANY_PATHS 20000

/* Templates are written with ' for " to keep them legible; ` stands for a
 * real apostrophe. Tokens: {T} the case's directory, {TESC} the same with
 * every '/' written as the escape \/, {SYS} a rule granting read and execute
 * on the system directories, {LONG} a path longer than PATH_MAX, {NEST} ten
 * thousand '['. An argv element "{CMD}" becomes `/usr/bin/touch MARKER`. */
#define HEAD "{'lcsb-exec':2,'abi':1,'parts':1,"
#define FS "'fs':['execute','write_file','read_file','read_dir','make_reg']"
#define TAIL ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],'world':'open','protect':[]}"
#define H_OK HEAD FS TAIL
#define H_READONLY HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[]," \
    "'world':'readonly','protect':[]}"
#define H_DROPPED(parts) HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[" parts "],'world':'open','protect':[]}"
#define TIOCSTI_PY "import fcntl,termios,sys; fcntl.ioctl(0, termios.TIOCSTI, b\"x\")"
#define H_SOCKETS(value) HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'" value "','dropped':[],'world':'open','protect':[]}"
#define RULE_T "{'access':['write_file','make_reg'],'paths':['{T}']}"
#define P_OK "{'part':1,'rules':[{SYS}," RULE_T "]}"
#define H_NET "{'lcsb-exec':2,'abi':4,'parts':1," FS ",'net':['connect_tcp'],'ports':[" \
    "{'access':['connect_tcp'],'ports':[443]}],'scope':[],'sockets':'unix+tcp','dropped':[],'world':'open','protect':[]}"

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
    EDIT("trailing garbage", "trailing bytes", 0, "[]}", "[]} x"),
    EDIT("second object", "trailing bytes", 0, "[]}", "[]}{}"),
    EDIT("part trailing garbage", "trailing bytes", 1, "]}]}", "]}]},"),
    EDIT("part truncated", "expected ',' or '}'", 1, "]}]}", "]}]"),
    /* keys */
    EDIT("unknown key", "unknown key \"extra\"", 0, "'scope':[]", "'scope':[],'extra':1"),
    EDIT("duplicate key", "key \"abi\" given twice", 0, "'abi':1,", "'abi':1,'abi':1,"),
    EDIT("duplicate version", "\"lcsb-exec\" given twice", 0, "'abi':1", "'abi':1,'lcsb-exec':2"),
    EDIT("missing key", "missing key \"scope\"", 0, ",'scope':[]", ""),
    EDIT("version not first", "expected key \"lcsb-exec\"", 0, "'lcsb-exec':2,'abi':1",
         "'abi':1,'lcsb-exec':2"),
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
    EDIT("version 1", "version 1 is not 2", 0, "'lcsb-exec':2", "'lcsb-exec':1"),
    EDIT("version 3", "version 3 is not 2", 0, "'lcsb-exec':2", "'lcsb-exec':3"),
    EDIT("version as a string", "non-negative integer", 0, "'lcsb-exec':2", "'lcsb-exec':'1'"),
    EDIT("version with a leading zero", "leading zero", 0, "'lcsb-exec':2", "'lcsb-exec':01"),
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
    ARGV("nothing handled", "handles no right", "{'lcsb-exec':2,'abi':1,'parts':0,'fs':[],"
         "'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],'world':'open','protect':[]}", "--", "{CMD}"),
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
    /* sockets */
    EDIT("sockets missing", "missing key \"sockets\"", 0, ",'sockets':'any'", ""),
    EDIT("sockets an array", "expected sockets as a string", 0, "'sockets':'any'",
         "'sockets':['unix']"),
    EDIT("sockets an integer", "expected sockets as a string", 0, "'sockets':'any'",
         "'sockets':1"),
    EDIT("sockets null", "expected sockets as a string", 0, "'sockets':'any'", "'sockets':null"),
    EDIT("sockets unknown", "unknown sockets value \"tcp\"", 0, "'sockets':'any'",
         "'sockets':'tcp'"),
    EDIT("sockets empty", "unknown sockets value \"\"", 0, "'sockets':'any'", "'sockets':''"),
    EDIT("sockets in capitals", "unknown sockets value \"UNIX\"", 0, "'sockets':'any'",
         "'sockets':'UNIX'"),
    EDIT("sockets with a space", "unknown sockets value \"unix \"", 0, "'sockets':'any'",
         "'sockets':'unix '"),
    EDIT("sockets tcp+unix", "unknown sockets value \"tcp+unix\"", 0, "'sockets':'any'",
         "'sockets':'tcp+unix'"),
    EDIT("sockets too long", "longer than 15 bytes", 0, "'sockets':'any'",
         "'sockets':'unix+tcp+udp+raw'"),
    EDIT("sockets given twice", "key \"sockets\" given twice", 0, "'sockets':'any'",
         "'sockets':'unix','sockets':'any'"),
    EDIT("world missing", "missing key \"world\"", 0, ",'world':'open'", ""),
    EDIT("world unknown", "unknown world value \"ro\"", 0, "'world':'open'", "'world':'ro'"),
    EDIT("world not a string", "expected world as a string", 0, "'world':'open'", "'world':1"),
    EDIT("protect missing", "missing key \"protect\"", 0, ",'protect':[]", ""),
    EDIT("protect relative", "protected path \"x\" is not absolute", 0, "'protect':[]",
         "'protect':['x']"),
    EDIT("protect an open world", "protected paths need", 0, "'protect':[]", "'protect':['/tmp']"),
    EDIT("protect given twice", "key \"protect\" given twice", 0, "'protect':[]",
         "'protect':[],'protect':[]"),
    EDIT("dropped missing", "missing key \"dropped\"", 0, ",'dropped':[]", ""),
    EDIT("dropped unknown part", "unknown dropped part name \"fs\"", 0, "'dropped':[]",
         "'dropped':['fs']"),
    EDIT("dropped a string", "expected", 0, "'dropped':[]", "'dropped':'scope'"),
    EDIT("dropped part twice", "dropped part name \"scope\" given twice", 0, "'dropped':[]",
         "'dropped':['scope','scope']"),
    EDIT("dropped given twice", "key \"dropped\" given twice", 0, "'dropped':[]",
         "'dropped':[],'dropped':[]"),
    EDIT2("terminal dropped with a socket filter", "\"terminal\" is dropped, yet", 0,
          "'sockets':'any'", "'sockets':'unix'", "'dropped':[]", "'dropped':['terminal']"),
    EDIT("sockets twice, same value", "key \"sockets\" given twice", 0, "'sockets':'any'",
         "'sockets':'any','sockets':'any'"),
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
         "{'lcsb-exec':2,'abi':1,'parts':2," FS TAIL, "{'part':2,'rules':[]}", P_OK, "--",
         "{CMD}"),
    ARGV("missing --", "no \"--\"", H_OK, P_OK, "{CMD}"),
    ARGV("empty command", "nothing follows \"--\"", H_OK, P_OK, "--"),
    ARGV("--version with arguments", "expected '{'", "--version", "--", "{CMD}"),
    ARGV("no arguments", "no arguments", NULL),
};

#define N_REFUSALS (sizeof refusals / sizeof refusals[0])

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

static int kernel_abi;
static char sys_rule[512];
static char self_exe[PATH_MAX]; /* this binary, which also serves as a probe */

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
    ssize_t len = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    self_exe[len > 0 ? len : 0] = '\0';
    n = (size_t)snprintf(sys_rule, sizeof sys_rule,
                         "{'access':['read_file','read_dir','execute'],'paths':[");
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        struct stat st;
        /* Real paths only: on a merged /usr, /bin and /lib are symlinks,
         * which the shim refuses, and /usr covers them anyway. */
        if (lstat(sys[i], &st) != 0 || S_ISLNK(st.st_mode))
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
    if (f->stdin_fd > 0)
        close(f->stdin_fd);
    nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* In CI (LCSB_SANDBOX_TESTS_REQUIRED=1) a case this host cannot run fails
 * instead of skipping. */
static bool tests_required(void) {
    const char *required = getenv("LCSB_SANDBOX_TESTS_REQUIRED");
    return required != NULL && strcmp(required, "1") == 0;
}

/* Enforcement cases need a kernel that can enforce; in CI that is required. */
static void require_landlock(void) {
    if (kernel_abi >= 1)
        return;
    if (tests_required())
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

/* Sends descriptor FD over the socket SOCK. */
static int send_fd(int sock, int fd) {
    char data = 'f';
    struct iovec iov = {.iov_base = &data, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
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
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
    struct cmsghdr *cm;
    int fd = -1;

    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
        return -1;
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
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(98);
    if (fault->nth <= 0) {
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
            _exit(98);
        return;
    }
    filter[7] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    int listener = (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                                SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0 || send_fd(sock, listener) != 0)
        _exit(98);
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
        if (done == pid)
            return status;
    }
}

static void read_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? 0 : read(fd, buf, cap - 1);

    buf[n > 0 ? n : 0] = '\0';
    if (fd >= 0)
        close(fd);
}

/* In the child, as root: the capabilities HOW names, then PROG must be
 * executable by whom it runs as. */
static void give_caps(enum caller_caps how, const char *prog) {
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct data[2];
    const uint32_t bit = 1U << CAP_NET_BIND_SERVICE;

    if (how == CALLER_AS_IS)
        return;
    /* With KEEPCAPS leaving uid 0 keeps the permitted set, from which the
     * ambient capability is raised below. */
    if (how == CALLER_AMBIENT_USER &&
        (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || setgroups(0, NULL) != 0 ||
         setresgid(NOBODY, NOBODY, NOBODY) != 0 || setresuid(NOBODY, NOBODY, NOBODY) != 0))
        _exit(98);
    if (syscall(SYS_capget, &hdr, data) != 0)
        _exit(98);
    data[0].inheritable |= bit;
    if (how == CALLER_AMBIENT_USER) {
        data[0].permitted = data[0].effective = bit;
        data[1].permitted = data[1].effective = 0;
    }
    if (syscall(SYS_capset, &hdr, data) != 0)
        _exit(98);
    if (how == CALLER_AMBIENT_USER) {
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0) != 0)
            _exit(98);
        if (access(prog, X_OK) != 0)
            _exit(STATUS_NOT_NOBODYS);
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
        if (err < 0 || out < 0 || dup2(err, 2) < 0 || dup2(out, 1) < 0)
            _exit(98);
        if (f->stdin_fd > 0 && dup2(f->stdin_fd, 0) < 0)
            _exit(98);
        if (f->ctty && (setsid() < 0 || ioctl(0, TIOCSCTTY, 0) != 0))
            _exit(98);
        /* LeakSanitizer cannot read /proc inside the sandbox and would turn
         * an exit status into its own; the shim allocates nothing anyway. */
        setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
        give_caps(f->caps, prog);
        if (fault != NULL)
            install_fault(fault, sv[1]);
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
static void run_argv(struct fixture *f, char **args, const struct fault *fault,
                     struct result *r) {
    size_t n = 0;
    char **argv;

    while (args[n] != NULL)
        n++;
    argv = xmalloc((n + 2) * sizeof *argv);
    argv[0] = (char *)LCSB_SHIM_PATH;
    memcpy(argv + 1, args, (n + 1) * sizeof *argv);
    spawn(f, LCSB_SHIM_PATH, argv, fault, r);
    free(argv);
}

static void run(struct fixture *f, const struct fault *fault, struct result *r) {
    run_argv(f, f->args, fault, r);
}

/* Runs the fixture's command, what follows "--", without the shim: a twin. */
static void run_direct(struct fixture *f, struct result *r) {
    size_t i = 0;

    while (f->args[i] != NULL && strcmp(f->args[i], "--") != 0)
        i++;
    assert_non_null(f->args[i]);
    assert_non_null(f->args[i + 1]);
    spawn(f, f->args[i + 1], f->args + i + 1, NULL, r);
}

static void free_args(struct fixture *f) {
    for (size_t k = 0; f->args[k] != NULL; k++) {
        free(f->args[k]);
        f->args[k] = NULL;
    }
}

/* The valid argv with HEADER, and an optional replacement part. */
static void set_valid_header(struct fixture *f, const char *header, const char *part) {
    const char *tmpls[] = {header, part != NULL ? part : P_OK, "--", "{CMD}"};
    set_args(f, tmpls, 4);
}

/* The valid argv, with an optional replacement part. */
static void set_valid(struct fixture *f, const char *part) {
    set_valid_header(f, H_OK, part);
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

/* The seam's env hop (`/usr/bin/env -u NAME -- NAME=VALUE CMD`) is carried
 * out by the shim, not executed: with /usr/bin/env not executable, the hop
 * still runs CMD, and CMD sees the environment env would have made. The
 * twin: the same hop in a shape the shim leaves to env (no "--") runs env,
 * which the policy refuses (126). */
#define P_NO_ENV "{'part':1,'rules':[{'access':['read_file','read_dir'],'paths':['/usr','/etc']}," \
    "{'access':['execute','read_file'],'paths':['/usr/bin/touch','/usr/lib']}," RULE_T "]}"

static void test_env_hop_carried_out(void **state) {
    struct fixture *f = *state;
    struct result r;
    const char *elided[] = {H_OK, P_NO_ENV, "--", "/usr/bin/env", "-u", "LCSB_T_GONE", "--",
                            "LCSB_T=1", "{CMD}"};
    const char *exec_env[] = {H_OK, P_NO_ENV, "--", "/usr/bin/env", "LCSB_T=1", "{CMD}"};
    const char *sees[] = {H_OK, P_OK, "--", "/usr/bin/env", "-u", "LCSB_T_GONE", "--",
                          "LCSB_T=a=b", "PATH=/nowhere:/usr/bin", "sh", "-c",
                          "test \"$LCSB_T\" = a=b && test -z \"${LCSB_T_GONE+set}\" && "
                          "test \"$PATH\" = /nowhere:/usr/bin && touch \"$0\""};

    require_landlock();
    setenv("LCSB_T_GONE", "x", 1);
    free_args(f);
    set_args(f, elided, 9);
    run(f, NULL, &r);
    if (r.status != 0)
        print_error("hop: stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
    unlink(f->marker);

    free_args(f);
    set_args(f, exec_env, 6);
    run(f, NULL, &r);
    assert_int_equal(r.status, 126);
    assert_false(exists(f->marker));

    /* What the command sees; sh found through the new PATH, as env would. */
    free_args(f);
    set_args(f, sees, 12);
    f->args[12] = strdup(f->marker);
    f->args[13] = NULL;
    run(f, NULL, &r);
    unsetenv("LCSB_T_GONE");
    if (r.status != 0)
        print_error("environment: stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
}

static void test_valid_policy_runs(void **state) {
    static const char *const headers[] = {H_OK, H_SOCKETS("unix"), H_SOCKETS("unix+tcp"),
                                          H_READONLY};
    struct fixture *f = *state;
    struct result r;

    require_landlock();
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        for (size_t k = 0; f->args[k] != NULL; k++)
            free(f->args[k]);
        set_valid_header(f, headers[i], NULL);
        unlink(f->marker);
        run(f, NULL, &r);
        if (r.status != 0)
            print_error("%s: stderr: %s", headers[i], r.err);
        assert_int_equal(r.status, 0);
        assert_true(exists(f->marker));
        assert_string_equal(r.err, "");
    }
}

/* Whitespace, escapes and any order of the header's later keys are JSON the
 * shim must read as the same policy. */
static void test_valid_policy_spelled_differently(void **state) {
    struct fixture *f = *state;
    const char *tmpls[] = {
        " {\n\t'lcsb-exec' : 2 ,\r\n 'scope':[ ], 'sockets' : 'unix\\u002btcp', 'dropped' : [ ], 'world':'open', 'protect' : [ ], 'parts':1,"
        "'abi' :1, 'net':[],'ports':[],"
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
        "{'lcsb-exec':2,'abi':7,'parts':1,'fs':['execute','write_file','read_file','read_dir',"
        "'remove_dir','remove_file','make_char','make_dir','make_reg','make_sock','make_fifo',"
        "'make_block','make_sym','refer','truncate','ioctl_dev'],'net':['bind_tcp',"
        "'connect_tcp'],'ports':[{'access':['connect_tcp'],'ports':[0,443,65535]},"
        "{'access':['bind_tcp','connect_tcp'],'ports':[8080]}],"
        "'scope':['abstract_unix_socket','signal'],'sockets':'unix+tcp','dropped':[],'world':'open','protect':[]}",
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

/* A rule's path is opened without following a symlink anywhere along it:
 * the library names real paths, so a symlink there was planted after it
 * looked, and would move the grant to wherever it points. Each case's twin,
 * the same policy through the real path, runs. */
static void test_rule_path_through_symlink(void **state) {
    static const char *const cases[][2] = {
        /* through a symlink, and the real path */
        {"{T}/link", "{T}/real"},         /* the last component, to a directory */
        {"{T}/link/sub", "{T}/real/sub"}, /* a parent component */
        {"{T}/filelink", "{T}/real/file"}, /* the last component, to a file */
    };
    struct fixture *f = *state;
    char path[128], part[512], expect[256];
    struct result r;
    int fd;

    require_landlock();
    snprintf(path, sizeof path, "%s/real", f->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/real/sub", f->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/real/file", f->dir);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    close(fd);
    snprintf(path, sizeof path, "%s/link", f->dir);
    assert_int_equal(symlink("real", path), 0);
    snprintf(path, sizeof path, "%s/filelink", f->dir);
    assert_int_equal(symlink("real/file", path), 0);

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int real = 0; real <= 1; real++) {
            snprintf(part, sizeof part,
                     "{'part':1,'rules':[{SYS}," RULE_T
                     ",{'access':['read_file'],'paths':['%s']}]}",
                     cases[i][real]);
            free_args(f);
            unlink(f->marker);
            set_valid(f, part);
            run(f, NULL, &r);
            if (real) {
                if (r.status != 0)
                    print_error("%s: stderr: %s", cases[i][1], r.err);
                assert_int_equal(r.status, 0);
                assert_true(exists(f->marker));
                continue;
            }
            char *shown = expand(f, cases[i][0]);
            snprintf(expect, sizeof expect,
                     "lcsb-exec: cannot open %s: the path passes through a symlink", shown);
            free(shown);
            assert_refused(f, &r, expect);
        }
    }
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
             "{\"lcsb-exec\":2,\"abi\":1,\"parts\":%zu,\"fs\":[\"execute\",\"write_file\","
             "\"read_file\",\"read_dir\",\"make_reg\"],\"net\":[],\"ports\":[],\"scope\":[],"
             "\"sockets\":\"any\",\"dropped\":[],\"world\":\"open\",\"protect\":[]}",
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
    assert_string_equal(r.out, "lcsb-exec 2\n");
    assert_string_equal(r.err, "");
}

/* The kernel saying no, for real, at each step after parsing, with HEADER:
 * the NTH call (0: every call) to NR, with ARG0 when it is not -1, fails with
 * ERR. The same policy without the fault runs (test_valid_policy_runs). */
static void check_fault_nth(void **state, const char *header, long nr, long arg0, int nth,
                            int err, const char *expect) {
    struct fixture *f = *state;
    struct fault fault = {.nr = nr, .arg0 = arg0, .err = err, .nth = nth};
    struct result r;

#ifndef NATIVE_ARCH
    skip();
#endif
    free_args(f);
    unlink(f->marker);
    set_valid_header(f, header, NULL);
    run(f, &fault, &r);
    assert_refused(f, &r, expect);
}

static void check_fault_header(void **state, const char *header, long nr, long arg0, int err,
                               const char *expect) {
    check_fault_nth(state, header, nr, arg0, 0, err, expect);
}

static void check_fault(void **state, long nr, long arg0, int err, const char *expect) {
    check_fault_header(state, H_OK, nr, arg0, err, expect);
}

/* NR (with ARG0) failing, or only its NTH call, leaves the command to run:
 * the shim makes no such call, or only fewer. */
static void check_fault_harmless(void **state, long nr, long arg0, int nth, int err) {
    struct fixture *f = *state;
    struct fault fault = {.nr = nr, .arg0 = arg0, .err = err, .nth = nth};
    struct result r;

#ifndef NATIVE_ARCH
    skip();
#endif
    free_args(f);
    unlink(f->marker);
    set_valid(f, NULL);
    run(f, &fault, &r);
    if (r.status != 0)
        print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
    assert_string_equal(r.err, "");
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

/* Every policy gets the terminal filter, the shim's first prctl(PR_SET_SECCOMP):
 * failing every such call, or only the first, stops the command under every
 * "sockets" value, "any" included. */
static void test_fault_terminal_filter(void **state) {
    static const char *const headers[] = {H_OK, H_SOCKETS("unix"), H_SOCKETS("unix+tcp")};

    require_landlock();
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        for (int nth = 0; nth <= 1; nth++)
            check_fault_nth(state, headers[i], __NR_prctl, PR_SET_SECCOMP, nth, EPERM,
                            "lcsb-exec: cannot install the terminal filter: "
                            "Operation not permitted");
    }
}

/* The socket filter is the second prctl(PR_SET_SECCOMP); failing only that
 * one names it. Under "any" there is no second call, so the same fault lets
 * the command run: the first call did go through, and the refusal above is
 * the socket filter's own. */
/* The second filter, whatever the policy: set-id bits and xattrs. */
static void test_fault_setid_filter(void **state) {
    static const char *const headers[] = {H_OK, H_SOCKETS("unix"), H_READONLY};

    require_landlock();
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        check_fault_nth(state, headers[i], __NR_prctl, PR_SET_SECCOMP, 2, EPERM,
                        "lcsb-exec: cannot install the set-id filter: Operation not permitted");
}

static void test_fault_socket_filter(void **state) {
    require_landlock();
    check_fault_nth(state, H_SOCKETS("unix"), __NR_prctl, PR_SET_SECCOMP, 3, EPERM,
                    "lcsb-exec: cannot install the socket filter: Operation not permitted");
    check_fault_nth(state, H_SOCKETS("unix+tcp"), __NR_prctl, PR_SET_SECCOMP, 3, EPERM,
                    "lcsb-exec: cannot install the socket filter: Operation not permitted");
    check_fault_harmless(state, __NR_prctl, PR_SET_SECCOMP, 3, EPERM);
}

static void test_fault_capset(void **state) {
    require_landlock();
    check_fault(state, __NR_capset, -1, EPERM,
                "lcsb-exec: cannot drop the capabilities: Operation not permitted");
}

static void test_fault_ambient_capabilities(void **state) {
    require_landlock();
    check_fault(state, __NR_prctl, PR_CAP_AMBIENT, EPERM,
                "lcsb-exec: cannot clear the ambient capabilities: Operation not permitted");
}

/* Root's bounding set is emptied; anyone else's is left alone (dropping from
 * it takes CAP_SETPCAP), so there the same fault changes nothing. */
static void test_fault_bounding_set(void **state) {
    require_landlock();
    if (getuid() == 0 || geteuid() == 0)
        check_fault(state, __NR_prctl, PR_CAPBSET_DROP, EPERM,
                    "lcsb-exec: cannot drop capability ");
    else
        check_fault_harmless(state, __NR_prctl, PR_CAPBSET_DROP, 0, EPERM);
}

/* ---- the socket filter ---- */

/* Each probe named in argv[1] makes one call and prints "NAME ok" or
 * "NAME ERRNO". Python sets SOCK_CLOEXEC on every socket it creates, so "tcp4"
 * also checks that the filter masks the type's flags. */
static const char probe_py[] =
    "import ctypes, errno, os, socket as S, sys\n"
    "def sock(*a):\n"
    "    S.socket(*a).close()\n"
    "def pair(*a):\n"
    "    for s in S.socketpair(*a): s.close()\n"
    "def uring():\n"
    "    libc = ctypes.CDLL(None, use_errno=True)\n"
    "    params = (ctypes.c_char * 120)()\n"
    "    fd = libc.syscall(425, 8, params)\n" /* io_uring_setup, the same on both arches */
    "    if fd < 0: raise OSError(ctypes.get_errno(), 'io_uring_setup')\n"
    "    os.close(fd)\n"
    "probes = {\n"
    "    'udp4': lambda: sock(S.AF_INET, S.SOCK_DGRAM),\n"
    "    'udp6': lambda: sock(S.AF_INET6, S.SOCK_DGRAM),\n"
    "    'udp4_proto': lambda: sock(S.AF_INET, S.SOCK_DGRAM, S.IPPROTO_UDP),\n"
    "    'raw4': lambda: sock(S.AF_INET, S.SOCK_RAW, S.IPPROTO_ICMP),\n"
    "    'raw6': lambda: sock(S.AF_INET6, S.SOCK_RAW, S.IPPROTO_ICMPV6),\n"
    "    'packet': lambda: sock(S.AF_PACKET, S.SOCK_RAW),\n"
    "    'netlink': lambda: sock(S.AF_NETLINK, S.SOCK_RAW, 0),\n"
    "    'tcp4': lambda: sock(S.AF_INET, S.SOCK_STREAM),\n"
    "    'tcp4_proto': lambda: sock(S.AF_INET, S.SOCK_STREAM, S.IPPROTO_TCP),\n"
    "    'tcp4_flags': lambda: sock(S.AF_INET, S.SOCK_STREAM | S.SOCK_NONBLOCK),\n"
    "    'tcp6': lambda: sock(S.AF_INET6, S.SOCK_STREAM),\n"
    "    'sctp': lambda: sock(S.AF_INET, S.SOCK_STREAM, 132),\n"
    "    'mptcp': lambda: sock(S.AF_INET, S.SOCK_STREAM, 262),\n"
    "    'seqpacket4': lambda: sock(S.AF_INET, S.SOCK_SEQPACKET, 0),\n"
    "    'unix_stream': lambda: sock(S.AF_UNIX, S.SOCK_STREAM),\n"
    "    'unix_dgram': lambda: sock(S.AF_UNIX, S.SOCK_DGRAM | S.SOCK_NONBLOCK),\n"
    "    'unix_pair': lambda: pair(S.AF_UNIX, S.SOCK_STREAM),\n"
    "    'inet_pair': lambda: pair(S.AF_INET, S.SOCK_STREAM),\n"
    "    'io_uring': uring,\n"
    "}\n"
    "for name in sys.argv[1].split():\n"
    "    try:\n"
    "        probes[name]()\n"
    "        r = 'ok'\n"
    "    except OSError as e:\n"
    "        r = errno.errorcode.get(e.errno, str(e.errno))\n"
    "    print(name, r, flush=True)\n";

/* What each probe gets under "unix" and "unix+tcp"; NULL: whatever it gets
 * under "any", the filter lets it through. */
struct socket_case {
    const char *name;
    const char *unix_only;
    const char *unix_tcp;
};

static const struct socket_case socket_cases[] = {
    {"udp4", "EACCES", "EACCES"},
    {"udp6", "EACCES", "EACCES"},
    {"udp4_proto", "EACCES", "EACCES"},
    {"raw4", "EACCES", "EACCES"},
    {"raw6", "EACCES", "EACCES"},
    {"packet", "EACCES", "EACCES"},
    {"netlink", "EACCES", "EACCES"},
    {"tcp4", "EACCES", NULL},
    {"tcp4_proto", "EACCES", NULL},
    {"tcp4_flags", "EACCES", NULL},
    {"tcp6", "EACCES", NULL},
    /* Never made under "any": as root it would load the sctp module. */
    {"sctp", "EACCES", "EACCES"},
    {"mptcp", "EACCES", "EACCES"},
    {"seqpacket4", "EACCES", "EACCES"},
    {"unix_stream", NULL, NULL},
    {"unix_dgram", NULL, NULL},
    {"unix_pair", NULL, NULL},
    /* The kernel has no AF_INET pairs (EOPNOTSUPP); under "unix" the filter
     * refuses first, which shows that socketpair is checked too. */
    {"inet_pair", "EACCES", NULL},
    {"io_uring", "EPERM", "EPERM"},
};

#define N_SOCKET_CASES (sizeof socket_cases / sizeof socket_cases[0])

/* One result per socket case, from a run of the probes. */
struct probe_results {
    char got[N_SOCKET_CASES][32];
};

static void require_python(void) {
    if (access(PYTHON, X_OK) == 0)
        return;
    print_message("skipped: %s is missing; nothing here can make the probes\n", PYTHON);
    skip();
}

/* Runs the probes under "sockets":SOCKETS (all but sctp under "any"). */
static void run_probes(struct fixture *f, const char *sockets, struct probe_results *out) {
    char header[512], names[512] = "";
    const char *tmpls[] = {header, "{'part':1,'rules':[{SYS}]}", "--", PYTHON};
    struct result r;
    bool any = strcmp(sockets, "any") == 0;

    snprintf(header, sizeof header, HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'%s','dropped':[],'world':'open','protect':[]}",
             sockets);
    for (size_t i = 0; i < N_SOCKET_CASES; i++) {
        if (any && strcmp(socket_cases[i].name, "sctp") == 0)
            continue;
        strcat(names, socket_cases[i].name);
        strcat(names, " ");
    }
    for (size_t k = 0; f->args[k] != NULL; k++)
        free(f->args[k]);
    set_args(f, tmpls, 4);
    f->args[4] = strdup("-c");
    f->args[5] = strdup(probe_py);
    f->args[6] = strdup(names);
    f->args[7] = NULL;
    run(f, NULL, &r);
    if (r.status != 0)
        fail_msg("the probes under \"%s\" exited %d; stderr: %s", sockets, r.status, r.err);
    for (size_t i = 0; i < N_SOCKET_CASES; i++) {
        char want[64];
        const char *line;
        snprintf(want, sizeof want, "%s ", socket_cases[i].name);
        out->got[i][0] = '\0';
        for (line = r.out; line != NULL; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
            if (strncmp(line, want, strlen(want)) == 0)
                break;
        if (line == NULL) {
            if (any && strcmp(socket_cases[i].name, "sctp") == 0)
                continue;
            fail_msg("no result for %s under \"%s\": %s", socket_cases[i].name, sockets, r.out);
        }
        line += strlen(want);
        snprintf(out->got[i], sizeof out->got[i], "%.*s", (int)strcspn(line, "\n"), line);
    }
}

static const char *result_of(const struct probe_results *res, const char *name) {
    for (size_t i = 0; i < N_SOCKET_CASES; i++)
        if (strcmp(socket_cases[i].name, name) == 0)
            return res->got[i];
    fail_msg("no socket case %s", name);
    return NULL;
}

/* Under SOCKETS each probe gets what socket_cases says; under "any" a refused
 * one got something else, so the refusal was the filter's. */
static void check_sockets(void **state, const char *sockets, bool tcp) {
    struct fixture *f = *state;
    struct probe_results any, got;

    require_landlock();
    require_python();
#ifndef NATIVE_ARCH
    skip();
#endif
    run_probes(f, "any", &any);
    run_probes(f, sockets, &got);
    for (size_t i = 0; i < N_SOCKET_CASES; i++) {
        const struct socket_case *c = &socket_cases[i];
        const char *want = tcp ? c->unix_tcp : c->unix_only;
        if (want == NULL) {
            if (strcmp(got.got[i], any.got[i]) != 0)
                fail_msg("%s under \"%s\": %s, and %s without the filter", c->name, sockets,
                         got.got[i], any.got[i]);
            continue;
        }
        if (strcmp(got.got[i], want) != 0)
            fail_msg("%s under \"%s\": %s, expected %s", c->name, sockets, got.got[i], want);
        if (strcmp(c->name, "sctp") == 0 || strcmp(any.got[i], want) != 0)
            continue;
        /* A host may turn io_uring off for this user (kernel.io_uring_disabled). */
        if (strcmp(c->name, "io_uring") != 0)
            fail_msg("%s gets %s without the filter too: the case proves nothing", c->name,
                     want);
        print_message("note: io_uring gets %s without the filter too\n", want);
    }
}

static void test_sockets_unix(void **state) {
    check_sockets(state, "unix", false);
}

static void test_sockets_unix_tcp(void **state) {
    check_sockets(state, "unix+tcp", true);
}

/* The twin: with no filter, what the others refuse works, so that the probes
 * can fail at all. */
static void test_sockets_any(void **state) {
    static const char *const work[] = {"udp4", "udp4_proto", "tcp4", "tcp4_proto",
                                       "tcp4_flags", "netlink", "unix_stream", "unix_dgram",
                                       "unix_pair"};
    struct fixture *f = *state;
    struct probe_results any;

    require_landlock();
    require_python();
    run_probes(f, "any", &any);
    for (size_t i = 0; i < sizeof work / sizeof work[0]; i++)
        if (strcmp(result_of(&any, work[i]), "ok") != 0)
            fail_msg("%s without the filter: %s", work[i], result_of(&any, work[i]));
    assert_string_equal(result_of(&any, "inet_pair"), "ENOTSUP");
}

/* This binary as the sandboxed command: "--probe int80" makes an i386 system
 * call (getpid through int 0x80), "--probe x32" an x32 socket(AF_INET,
 * SOCK_DGRAM); each prints its result. */
static int probe_main(const char *what) {
    long ret = -1;

    /* A kill by the filter must not leave a core file behind. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    errno = 0;
#if defined(__x86_64__)
    if (strcmp(what, "int80") == 0) {
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "rcx", "r11", "memory");
        printf("int80 %s\n", ret > 0 ? "ok" : "failed");
        return 0;
    }
    if (strcmp(what, "x32") == 0) {
        ret = syscall(__X32_SYSCALL_BIT | __NR_socket, AF_INET, SOCK_DGRAM, 0);
        printf("x32 %s\n", ret >= 0 ? "ok" : strerrorname_np(errno));
        return 0;
    }
#endif
    (void)ret;
    fprintf(stderr, "unknown probe %s\n", what);
    return 2;
}

/* Runs this binary's probe WHAT under "sockets":SOCKETS. */
static void run_self_probe(struct fixture *f, const char *sockets, const char *what,
                           struct result *r) {
    char header[512], part[PATH_MAX + 256];
    const char *tmpls[] = {header, part, "--"};

    assert_true(self_exe[0] == '/' && strpbrk(self_exe, "\"\\'`{") == NULL);
    snprintf(header, sizeof header, HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'%s','dropped':[],'world':'open','protect':[]}",
             sockets);
    snprintf(part, sizeof part,
             "{'part':1,'rules':[{SYS},{'access':['read_file','execute'],'paths':['%s']}]}",
             self_exe);
    for (size_t k = 0; f->args[k] != NULL; k++)
        free(f->args[k]);
    set_args(f, tmpls, 3);
    f->args[3] = strdup(self_exe);
    f->args[4] = strdup("--probe");
    f->args[5] = strdup(what);
    f->args[6] = NULL;
    run(f, NULL, r);
}

/* The probes are this binary: a sanitizer's runtime needs more than the
 * sandbox grants, so the release build runs these. */
static void require_self_probe(void) {
    require_landlock();
#if defined(LCSB_SANITIZED) || !defined(__x86_64__)
    skip();
#endif
}

/* A foreign architecture's system call kills the process: on x86_64, i386's
 * int 0x80 is where socketcall() would reach every socket call. */
static void test_sockets_foreign_arch_killed(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_self_probe();
    run_self_probe(f, "any", "int80", &r);
    if (r.status != 0 || strcmp(r.out, "int80 ok\n") != 0) {
        print_message("skipped: int 0x80 fails without the filter too (status %d%s%s)\n",
                      r.status, r.out[0] ? ", " : "", r.out);
        skip();
    }
    run_self_probe(f, "unix", "int80", &r);
    assert_int_equal(r.status, 128 + SIGSYS);
    assert_string_equal(r.out, "");
    run_self_probe(f, "unix+tcp", "int80", &r);
    assert_int_equal(r.status, 128 + SIGSYS);
}

/* x32 calls fail with ENOSYS, whether or not the kernel has x32. */
static void test_sockets_x32_refused(void **state) {
    struct fixture *f = *state;
    struct result r;

    require_self_probe();
    run_self_probe(f, "unix+tcp", "x32", &r);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "x32 ENOSYS\n");
    run_self_probe(f, "any", "x32", &r);
    assert_int_equal(r.status, 0);
    if (strcmp(r.out, "x32 ok\n") != 0)
        print_message("note: this kernel has no x32 (%.*s), so this case cannot fail here\n",
                      (int)strcspn(r.out, "\n"), r.out);
}

/* ---- the terminal ---- */

/* A pseudo-terminal pair; the slave will be the command's stdin. */
static void open_pty(int *master, int *slave) {
    const char *name = NULL;

    *slave = -1;
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master >= 0 && grantpt(*master) == 0 && unlockpt(*master) == 0)
        name = ptsname(*master);
    if (name != NULL)
        *slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*slave >= 0)
        return;
    if (*master >= 0)
        close(*master);
    if (tests_required())
        fail_msg("no pseudo-terminal (%s) and LCSB_SANDBOX_TESTS_REQUIRED=1", strerror(errno));
    print_message("skipped: no pseudo-terminal: %s\n", strerror(errno));
    skip();
}

/* The twins run TIOCSTI outside the shim, on their own terminal, and since
 * Linux 6.2 that takes dev.tty.legacy_tiocsti = 1 or CAP_SYS_ADMIN. */
static void require_tiocsti(void) {
    char legacy[8] = "";

    read_file("/proc/sys/dev/tty/legacy_tiocsti", legacy, sizeof legacy);
    if (legacy[0] != '0' || geteuid() == 0) /* no file: a kernel before 6.2 */
        return;
    if (tests_required())
        fail_msg("dev.tty.legacy_tiocsti is 0 and this is not root, so no twin can show "
                 "TIOCSTI working; LCSB_SANDBOX_TESTS_REQUIRED=1");
    print_message("skipped: dev.tty.legacy_tiocsti is 0 and this is not root: TIOCSTI fails "
                  "without the shim too, so its refusal would prove nothing\n");
    skip();
}

/* Whether input waits on the terminal. */
static bool typed(int slave) {
    struct pollfd p = {.fd = slave, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

/* Sets the fixture to run python's -c SCRIPT under a policy granting the
 * system directories, with a new pty as its stdin and controlling terminal:
 * TIOCSTI works on the caller's own terminal only. */
static void set_tty_command(struct fixture *f, const char *header, const char *script,
                            int *master, int *slave) {
    const char *tmpls[] = {header, "{'part':1,'rules':[{SYS}]}", "--", PYTHON, "-c"};
    struct termios raw;

    open_pty(master, slave);
    /* Raw, so that one pushed byte is input at once, without a newline. */
    assert_int_equal(tcgetattr(*slave, &raw), 0);
    cfmakeraw(&raw);
    assert_int_equal(tcsetattr(*slave, TCSANOW, &raw), 0);
    free_args(f);
    set_args(f, tmpls, 5);
    f->args[5] = strdup(script);
    f->args[6] = NULL;
    f->stdin_fd = *slave;
    f->ctty = true;
}

/* TIOCSTI would type into the caller's terminal, to be run by its shell once
 * lcsb exits. The twins, the same command on the same terminal without the
 * shim, and under a header that drops "terminal" (a host without seccomp),
 * type "x". */
static void test_terminal_tiocsti_refused(void **state) {
    struct fixture *f = *state;
    struct result r;
    int master, slave;
    char got[8];

    require_landlock();
    require_python();
#ifndef NATIVE_ARCH
    skip();
#endif
    require_tiocsti();
    for (int dropped = 0; dropped <= 1; dropped++) {
        set_tty_command(f, dropped ? H_DROPPED("'terminal'") : H_OK, TIOCSTI_PY, &master, &slave);
        run(f, NULL, &r);
        if (!dropped) {
            if (r.status == 0 || r.status == SETUP_FAILED ||
                strstr(r.err, "Operation not permitted") == NULL)
                fail_msg("TIOCSTI under the shim: status %d, stderr: %s", r.status, r.err);
            assert_false(typed(slave));
            run_direct(f, &r);
        }
        if (r.status != 0)
            fail_msg("TIOCSTI %s: status %d, stderr: %s",
                     dropped ? "with \"terminal\" dropped" : "without the shim", r.status, r.err);
        assert_true(typed(slave));
        assert_int_equal(read(slave, got, sizeof got), 1);
        assert_int_equal(got[0], 'x');
        f->stdin_fd = 0;
        close(slave);
        close(master);
    }
}

/* Each line: an ioctl on stdin and its result, "ok" or the errno's name.
 * TIOCSTI with junk in the upper half of the request: the kernel reads only
 * the lower 32 bits, so the filter must too. TIOCLINUX's subcode 6 reads the
 * shift state. TCGETS: the terminal's other ioctls still work. */
static const char tty_probe_py[] =
    "import ctypes, errno, termios\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "def ioctl(name, request, arg):\n"
    "    rc = libc.ioctl(0, ctypes.c_ulong(request), arg)\n"
    "    print(name, 'ok' if rc == 0 else errno.errorcode.get(ctypes.get_errno(), '?'),\n"
    "          flush=True)\n"
    "ioctl('tiocsti_high', (1 << 32) | termios.TIOCSTI, ctypes.c_char_p(b'y'))\n"
    "ioctl('tioclinux', termios.TIOCLINUX, ctypes.create_string_buffer(b'\\x06', 8))\n"
    "ioctl('tcgets', termios.TCGETS, ctypes.create_string_buffer(256))\n";

/* The value after "NAME " in the probe's output. */
static void probe_result(const char *out, const char *name, char *buf, size_t cap) {
    size_t len = strlen(name);

    for (const char *line = out; line != NULL && *line != '\0';
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, name, len) == 0 && line[len] == ' ') {
            snprintf(buf, cap, "%.*s", (int)strcspn(line + len + 1, "\n"), line + len + 1);
            return;
        }
    }
    fail_msg("no result for %s in: %s", name, out);
}

static void test_terminal_other_ioctls(void **state) {
    struct fixture *f = *state;
    struct result shim, direct;
    char got[32];
    int master, slave;

    require_landlock();
    require_python();
#ifndef NATIVE_ARCH
    skip();
#endif
    require_tiocsti();
    set_tty_command(f, H_OK, tty_probe_py, &master, &slave);
    run(f, NULL, &shim);
    if (shim.status != 0)
        fail_msg("the probe under the shim exited %d; stderr: %s", shim.status, shim.err);
    assert_false(typed(slave));
    run_direct(f, &direct);
    if (direct.status != 0)
        fail_msg("the probe without the shim exited %d; stderr: %s", direct.status, direct.err);

    probe_result(shim.out, "tiocsti_high", got, sizeof got);
    assert_string_equal(got, "EPERM");
    probe_result(direct.out, "tiocsti_high", got, sizeof got);
    assert_string_equal(got, "ok");
    assert_true(typed(slave));

    probe_result(shim.out, "tioclinux", got, sizeof got);
    assert_string_equal(got, "EPERM");
    /* A pty has no TIOCLINUX: ENOTTY or EINVAL, never the filter's EPERM. */
    probe_result(direct.out, "tioclinux", got, sizeof got);
    if (strcmp(got, "EPERM") == 0 || strcmp(got, "ok") == 0)
        fail_msg("TIOCLINUX on a pty without the shim: %s; the case proves nothing", got);

    probe_result(shim.out, "tcgets", got, sizeof got);
    assert_string_equal(got, "ok");
    probe_result(direct.out, "tcgets", got, sizeof got);
    assert_string_equal(got, "ok");
    f->stdin_fd = 0;
    close(slave);
    close(master);
}

/* ---- capabilities ---- */

struct caps {
    unsigned long long eff, prm, bnd, amb, inh;
};

/* The Cap* lines of /proc/self/status, as grep printed them. */
static void parse_caps(const char *out, struct caps *c) {
    static const char *const names[] = {"CapEff:", "CapPrm:", "CapBnd:", "CapAmb:", "CapInh:"};
    unsigned long long *fields[] = {&c->eff, &c->prm, &c->bnd, &c->amb, &c->inh};

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *at = strstr(out, names[i]);
        if (at == NULL || (at != out && at[-1] != '\n') ||
            sscanf(at + strlen(names[i]), "%llx", fields[i]) != 1)
            fail_msg("no %s line in: %s", names[i], out);
    }
}

/* Runs grep for the Cap* lines of /proc/self/status, as CALLER, under the
 * shim (SHIM) and without it (DIRECT). False if the shim is not NOBODY's to run. */
static bool read_caps(struct fixture *f, enum caller_caps caller, struct caps *shim,
                      struct caps *direct) {
    const char *tmpls[] = {
        H_OK, "{'part':1,'rules':[{SYS},{'access':['read_file','read_dir'],'paths':['/proc']}]}",
        "--", "/usr/bin/grep", "-E", "^Cap(Eff|Prm|Bnd|Amb|Inh)", "/proc/self/status"};
    struct result r;

    free_args(f);
    set_args(f, tmpls, sizeof tmpls / sizeof tmpls[0]);
    f->caps = caller;
    run(f, NULL, &r);
    if (r.status == STATUS_NOT_NOBODYS)
        return false;
    if (r.status != 0)
        fail_msg("grep under the shim exited %d; stderr: %s", r.status, r.err);
    parse_caps(r.out, shim);
    run_direct(f, &r);
    if (r.status != 0)
        fail_msg("grep without the shim exited %d; stderr: %s", r.status, r.err);
    parse_caps(r.out, direct);
    return true;
}

/* The command runs without capabilities. As root it would otherwise have
 * them all (the twin), and with them ways around Landlock; root's bounding
 * set goes too, since exec as uid 0 would hand them back from it. Anyone
 * else may not drop from the bounding set (that takes CAP_SETPCAP), so it
 * stays as it was: harmless, as a non-root exec raises nothing from it, and
 * no_new_privs keeps set-uid and file capabilities from raising anything. */
static void test_capabilities_dropped(void **state) {
    struct fixture *f = *state;
    struct caps shim, direct;

    require_landlock();
    assert_true(read_caps(f, CALLER_AS_IS, &shim, &direct));
    assert_int_equal(shim.eff, 0);
    assert_int_equal(shim.prm, 0);
    assert_int_equal(shim.amb, 0);
    assert_int_equal(shim.inh, 0);
    assert_int_not_equal(direct.bnd, 0);
    if (getuid() != 0 && geteuid() != 0) {
        /* Without capabilities to begin with: see the root-only cases below. */
        assert_int_equal(shim.bnd, direct.bnd);
        return;
    }
    assert_int_equal(shim.bnd, 0);
    assert_int_not_equal(direct.eff, 0);
    assert_int_not_equal(direct.prm, 0);

    /* Root with an inheritable capability: exec as root would make it
     * permitted again, bounding set or not. */
    assert_true(read_caps(f, CALLER_INHERITABLE, &shim, &direct));
    assert_int_equal(direct.inh, 1ULL << CAP_NET_BIND_SERVICE);
    assert_int_equal(shim.eff | shim.prm | shim.bnd | shim.amb | shim.inh, 0);

    /* Not root, with an ambient capability (as systemd's AmbientCapabilities=
     * gives a service): exec hands it on. The bounding set stays. */
    if (!read_caps(f, CALLER_AMBIENT_USER, &shim, &direct)) {
        print_message("note: uid %d may not run %s; the ambient case did not run\n", NOBODY,
                      LCSB_SHIM_PATH);
        return;
    }
    assert_int_equal(direct.amb, 1ULL << CAP_NET_BIND_SERVICE);
    assert_int_equal(direct.eff, 1ULL << CAP_NET_BIND_SERVICE);
    assert_int_equal(shim.eff | shim.prm | shim.amb | shim.inh, 0);
    assert_int_equal(shim.bnd, direct.bnd);
    assert_int_not_equal(shim.bnd, 0);
}

int main(int argc, char **argv) {
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test_setup_teardown(test_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_policy_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_env_hop_carried_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_policy_spelled_differently, setup, teardown),
        cmocka_unit_test_setup_teardown(test_valid_policy_newest_abi, setup, teardown),
        cmocka_unit_test_setup_teardown(test_path_bytes_decoded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_rights_on_a_file_are_dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rule_path_through_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_not_granted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_not_executable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_exec_denied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_no_landlock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_add_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_no_new_privs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_restrict_self, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_terminal_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_setid_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_socket_filter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_capset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_ambient_capabilities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_bounding_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockets_unix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockets_unix_tcp, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockets_any, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockets_foreign_arch_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockets_x32_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_terminal_tiocsti_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_terminal_other_ioctls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_capabilities_dropped, setup, teardown),
    };
    const size_t n_fixed = sizeof fixed / sizeof fixed[0];
    struct CMUnitTest *tests;
    int failed;

    /* Run by the shim as a sandboxed command, not as the suite. */
    if (argc == 3 && strcmp(argv[1], "--probe") == 0)
        return probe_main(argv[2]);
    tests = calloc(n_fixed + N_REFUSALS, sizeof *tests);
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
