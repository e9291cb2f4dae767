/* What the shim refuses: every malformed input, and the kernel saying no at
 * each step after parsing, is a 97 and the command never runs. Each malformed
 * case is the valid argv with one edit (or, where the fault is in argv's
 * shape, an argv written out), so the same case without its fault would
 * create MARKER; the fixture and its templates are in shim_fixture.h. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "detect.h"
#include "shim_fixture.h"

#define H_NET                                                                                      \
    "{'lcsb-exec':5,'abi':4,'parts':1," FS ",'net':['connect_tcp'],'ports':["                      \
    "{'access':['connect_tcp'],'ports':[443]}],'scope':[],'sockets':'unix+tcp','dropped':[],"      \
    "'world':'open','protect':[],'hide':[],'limits':{},'proxy':0}"

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

#define EDIT(name, expect, arg, from, to)                                                          \
    { name, expect, arg, {{from, to}, {NULL, NULL}}, {NULL}, false }
#define EDIT2(name, expect, arg, f1, t1, f2, t2)                                                   \
    { name, expect, arg, {{f1, t1}, {f2, t2}}, {NULL}, false }
#define ARGV(name, expect, ...)                                                                    \
    { name, expect, 0, {{NULL, NULL}, {NULL, NULL}}, {__VA_ARGS__, NULL}, false }
#define LATE(name, expect, arg, from, to)                                                          \
    { name, expect, arg, {{from, to}, {NULL, NULL}}, {NULL}, true }

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
    EDIT("trailing garbage", "trailing bytes", 0, "'proxy':0}", "'proxy':0} x"),
    EDIT("second object", "trailing bytes", 0, "'proxy':0}", "'proxy':0}{}"),
    EDIT("part trailing garbage", "trailing bytes", 1, "]}]}", "]}]},"),
    EDIT("part truncated", "expected ',' or '}'", 1, "]}]}", "]}]"),
    /* keys */
    EDIT("unknown key", "unknown key \"extra\"", 0, "'scope':[]", "'scope':[],'extra':1"),
    EDIT("duplicate key", "key \"abi\" given twice", 0, "'abi':1,", "'abi':1,'abi':1,"),
    EDIT("duplicate version", "\"lcsb-exec\" given twice", 0, "'abi':1", "'abi':1,'lcsb-exec':5"),
    EDIT("missing key", "missing key \"scope\"", 0, ",'scope':[]", ""),
    EDIT("version not first", "expected key \"lcsb-exec\"", 0, "'lcsb-exec':5,'abi':1",
         "'abi':1,'lcsb-exec':5"),
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
    EDIT("version 4", "version 4 is not 5", 0, "'lcsb-exec':5", "'lcsb-exec':4"),
    EDIT("version 6", "version 6 is not 5", 0, "'lcsb-exec':5", "'lcsb-exec':6"),
    EDIT("version as a string", "non-negative integer", 0, "'lcsb-exec':5", "'lcsb-exec':'1'"),
    EDIT("version with a leading zero", "leading zero", 0, "'lcsb-exec':5", "'lcsb-exec':01"),
    EDIT("abi 0", "abi 0 is not", 0, "'abi':1", "'abi':0"),
    EDIT("abi 10", "abi 10 is not", 0, "'abi':1", "'abi':10"),
    EDIT("resolve_unix before abi 9", "fs right \"resolve_unix\" is newer than abi 1", 0,
         "'make_reg']", "'make_reg','resolve_unix']"),
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
    EDIT2("ioctl_dev at abi 4", "\"ioctl_dev\" is newer than abi 4", 0, "'abi':1", "'abi':4",
          "'make_reg']", "'make_reg','ioctl_dev']"),
    EDIT("net right newer than abi", "\"connect_tcp\" is newer than abi 1", 0, "'net':[]",
         "'net':['connect_tcp']"),
    EDIT2("scope newer than abi", "scope \"signal\" is newer than abi 5", 0, "'abi':1", "'abi':5",
          "'scope':[]", "'scope':['signal']"),
    EDIT2("unknown scope", "unknown scope name", 0, "'abi':1", "'abi':6", "'scope':[]",
          "'scope':['everything']"),
    EDIT("unknown net right", "unknown net right name", 0, "'net':[]", "'net':['udp']"),
    ARGV("nothing handled", "handles no right",
         "{'lcsb-exec':5,'abi':1,'parts':0,'fs':[],"
         "'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],'world':'open','protect':[],'"
         "hide':[],'limits':{},'proxy':0}",
         "--", "{CMD}"),
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
    EDIT("sockets an integer", "expected sockets as a string", 0, "'sockets':'any'", "'sockets':1"),
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
    EDIT("protect an open world", "need \"world\": \"policy\"", 0, "'protect':[]",
         "'protect':['/tmp']"),
    EDIT("world dropped and held", "\"world\" is dropped, yet", 0, "'dropped':[],'world':'open'",
         "'dropped':['world'],'world':'policy'"),
    EDIT("hide in an open world", "need \"world\": \"policy\"", 0, "'hide':[]", "'hide':['/tmp']"),
    EDIT("limits in an open world", "need \"world\": \"policy\"", 0, "'limits':{}",
         "'limits':{'time':1}"),
    EDIT("world readonly is gone", "unknown world value \"readonly\"", 0, "'world':'open'",
         "'world':'readonly'"),
    EDIT("limit zero", "limit \"pids\" is 0", 0, "'limits':{}", "'limits':{'pids':0}"),
    EDIT("limit unknown", "unknown limit \"cpu\"", 0, "'limits':{}", "'limits':{'cpu':1}"),
    EDIT("limit twice", "limit \"time\" given twice", 0, "'limits':{}",
         "'limits':{'time':1,'time':2}"),
    EDIT("pids too many", "pids is out of range", 0, "'limits':{}", "'limits':{'pids':4194305}"),
    EDIT("tmp without tmpdir", "come together", 0, "'limits':{}", "'limits':{'tmp':1}"),
    EDIT("tmpdir relative", "not absolute", 0, "'limits':{}", "'limits':{'tmp':1,'tmpdir':'t'}"),
    EDIT("limits an array", "expected '{'", 0, "'limits':{}", "'limits':[]"),
    /* A memory limit is held by a cgroup, or said to be held without one. */
    EDIT2("cgroup without memory", "limit \"cgroup\" without \"memory\"", 0, "'world':'open'",
          "'world':'policy'", "'limits':{}", "'limits':{'cgroup':'v1'}"),
    EDIT2("memory neither held nor dropped", "needs \"memory\" in \"dropped\"", 0, "'world':'open'",
          "'world':'policy'", "'limits':{}", "'limits':{'memory':67108864}"),
    EDIT2("memory dropped and held", "\"memory\" is dropped, yet \"limits\" names a cgroup", 0,
          "'dropped':[],'world':'open'", "'dropped':['memory'],'world':'policy'", "'limits':{}",
          "'limits':{'memory':67108864,'cgroup':'v2'}"),
    EDIT("cgroup unknown", "unknown cgroup value \"v3\"", 0, "'limits':{}",
         "'limits':{'memory':1,'cgroup':'v3'}"),
    EDIT("cgroup twice", "limit \"cgroup\" given twice", 0, "'limits':{}",
         "'limits':{'memory':1,'cgroup':'v1','cgroup':'v2'}"),
    EDIT("cgroup not a string", "expected cgroup as a string", 0, "'limits':{}",
         "'limits':{'memory':1,'cgroup':1}"),
    EDIT("proxy in an open world", "\"proxy\" needs \"world\": \"policy\"", 0, "'proxy':0",
         "'proxy':3128"),
    EDIT("proxy out of range", "proxy is out of range", 0, "'proxy':0", "'proxy':65536"),
    EDIT("proxy missing", "missing key \"proxy\"", 0, ",'proxy':0", ""),
    EDIT2("proxy with nothing to hand it to", "no LCSB_EXEC_PROXY_FD", 0, "'proxy':0",
          "'proxy':3128", "'world':'open'", "'world':'policy'"),
    /* private: optional, strict, in a world of its own only */
    EDIT("private in an open world", "need \"world\": \"policy\"", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[]}]"),
    EDIT("private relative", "private path \"tmp/p\" is not absolute and normal", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'tmp/p','links':[]}]"),
    EDIT("private through ..", "private path \"/tmp/../etc\" is not absolute and normal", 0,
         "'proxy':0", "'proxy':0,'private':[{'path':'/tmp/../etc','links':[]}]"),
    EDIT("private root", "private path \"/\" is not absolute and normal", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/','links':[]}]"),
    EDIT("private link out of it", "link \"a/../../etc\" does not stay inside", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[['a/../../etc','/t']]}]"),
    EDIT("private link absolute", "link \"/etc/x\" does not stay inside", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[['/etc/x','/t']]}]"),
    EDIT("private link empty", "link \"\" does not stay inside", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[['','/t']]}]"),
    EDIT("private link target relative", "link target \"t\" is not absolute", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[['a','t']]}]"),
    EDIT("private link a triple", "expected ']'", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[['a','/t','/u']]}]"),
    EDIT("private unknown key", "no key may follow \"links\"", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p','links':[],'size':1}]"),
    EDIT("private keys out of order", "expected key \"path\"", 0, "'proxy':0",
         "'proxy':0,'private':[{'links':[],'path':'/tmp/p'}]"),
    EDIT("private without links", "missing key \"links\"", 0, "'proxy':0",
         "'proxy':0,'private':[{'path':'/tmp/p'}]"),
    EDIT("private given twice", "key \"private\" given twice", 0, "'proxy':0",
         "'proxy':0,'private':[],'private':[]"),
    EDIT("hide relative", "hidden path \"t\" is not absolute", 0, "'hide':[]", "'hide':['t']"),
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
    EDIT("parts count too high", "announces 2 parts and argv holds 1", 0, "'parts':1", "'parts':2"),
    EDIT("parts count too low", "announces 0 parts and argv holds 1", 0, "'parts':1", "'parts':0"),
    ARGV("extra part", "announces 1 parts and argv holds 2", H_OK, P_OK, P_OK, "--", "{CMD}"),
    ARGV("parts out of order", "says it is part 2", "{'lcsb-exec':5,'abi':1,'parts':2," FS TAIL,
         "{'part':2,'rules':[]}", P_OK, "--", "{CMD}"),
    ARGV("missing --", "no \"--\"", H_OK, P_OK, "{CMD}"),
    ARGV("empty command", "nothing follows \"--\"", H_OK, P_OK, "--"),
    ARGV("--version with arguments", "expected '{'", "--version", "--", "{CMD}"),
    ARGV("no arguments", "no arguments", NULL),
};

#define N_REFUSALS (sizeof refusals / sizeof refusals[0])

/* Applies EDIT to TMPL: the edit must apply, or the case tests nothing. */
static char *apply(const char *tmpl, const struct edit *e) {
    return replaced(tmpl, e->from, e->to);
}

static void test_refusal(void **state) {
    struct fixture *f = *state;
    const struct refusal *c = f->refusal;
    struct result r;

    if (c->argv[0] != NULL || c->edits[0].from == NULL) {
        size_t n = 0;
        while (n < 8 && c->argv[n] != NULL) n++;
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

/* The kernel saying no, for real, at each step after parsing, with HEADER:
 * the NTH call (0: every call) to NR, with ARG0 when it is not -1, fails with
 * ERR. The same policy without the fault runs (test_valid_policy_runs). */
static void check_fault_nth(void **state, const char *header, long nr, long arg0, int nth, int err,
                            const char *expect) {
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
    if (r.status != 0) print_error("stderr: %s", r.err);
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

/* Every policy gets the seccomp filter, one program installed by the shim's
 * one prctl(PR_SET_SECCOMP): failing every such call, or only the first,
 * stops the command under every header, "sockets": "any" and a world of its
 * own included. There is no second call: failing that one is harmless. */
static void test_fault_seccomp_filter(void **state) {
    static const char *const headers[] = {H_OK, H_SOCKETS("unix"), H_SOCKETS("unix+tcp"),
                                          H_READONLY};

    require_landlock();
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        for (int nth = 0; nth <= 1; nth++)
            check_fault_nth(state, headers[i], __NR_prctl, PR_SET_SECCOMP, nth, EPERM,
                            "lcsb-exec: cannot install the seccomp filter: "
                            "Operation not permitted");
    }
    check_fault_harmless(state, __NR_prctl, PR_SET_SECCOMP, 2, EPERM);
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

/* ---- the memory cgroup ---- */

/* A world of its own with a memory limit held by a cgroup of KIND ("v1",
 * "v2"): 256 MiB, which touch does not come near. */
static char *memory_header(const char *kind) {
    char *h = xmalloc(1024);
    snprintf(h, 1024,
             HEAD FS ",'net':[],'ports':[],'scope':[],'sockets':'any','dropped':[],"
                     "'world':'policy','protect':[],'hide':[],"
                     "'limits':{'memory':268435456,'cgroup':'%s'},'proxy':0}",
             kind);
    return h;
}

/* The memory cgroup this host lets the caller make (lcsb_capability's):
 * 2, 1, or 0. */
static int host_memory_cgroup(void) {
    lcsb_capability cap;
    lcsb_error err;
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    return cap.memory_cgroup;
}

/* Where the shim makes its cgroups holds none of a shim that is gone (the
 * one run here is reaped; another suite's run, or the memory suite's own
 * cgroup, is named after a process still there). */
static void assert_no_cgroup_left(int version) {
    char dir[PATH_MAX];
    assert_true(lcsb__own_cgroup_dir(version, dir, sizeof dir));
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "lcsb-", 5) != 0) continue;
        long pid = atol(e->d_name + 5);
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            fail_msg("the shim left its memory cgroup %s/%s", dir, e->d_name);
    }
    closedir(d);
}

static void require_user_namespaces(void) {
    lcsb_capability cap;
    lcsb_error err;
    assert_int_equal(lcsb_detect(&cap, LCSB_SHIM_PATH, &err), 0);
    if (!cap.user_namespaces) {
        if (tests_required()) fail_msg("no user namespaces and LCSB_SANDBOX_TESTS_REQUIRED=1");
        skip();
    }
}

/* A cgroup the shim cannot make, of the kind this host does not give the
 * caller: 97, and the command never runs without it. */
static void test_cgroup_unmakeable(void **state) {
    struct fixture *f = *state;
    struct result r;
    int have = host_memory_cgroup();

    require_landlock();
    require_user_namespaces();
    if (have == 2) {
        char dir[PATH_MAX];
        /* Both here: nothing this host refuses to ask for. */
        if (lcsb__own_cgroup_dir(1, dir, sizeof dir) && access(dir, W_OK) == 0) skip();
    }
    char *header = memory_header(have == 1 ? "v2" : "v1");
    free_args(f);
    set_valid_header(f, header, NULL);
    free(header);
    run(f, NULL, &r);
    assert_refused(f, &r, "memory cgroup");
}

/* The cgroup made, then the namespaces refused: 97, and the cgroup is gone.
 * The same policy without the fault runs, and leaves none either. */
static void test_fault_cgroup_removed(void **state) {
    struct fixture *f = *state;
    struct fault fault = {.nr = __NR_unshare, .arg0 = -1, .err = EPERM};
    struct result r;
    int have = host_memory_cgroup();

    require_landlock();
    require_user_namespaces();
    if (!have) {
        if (tests_required() && geteuid() == 0)
            fail_msg("no memory cgroup for root and LCSB_SANDBOX_TESTS_REQUIRED=1");
        skip();
    }
    char *header = memory_header(have == 2 ? "v2" : "v1");
    free_args(f);
    set_valid_header(f, header, NULL);
    run(f, NULL, &r);
    if (r.status != 0) print_error("stderr: %s", r.err);
    assert_int_equal(r.status, 0);
    assert_true(exists(f->marker));
    assert_no_cgroup_left(have);
    unlink(f->marker);
#ifdef NATIVE_ARCH
    run(f, &fault, &r);
    assert_refused(f, &r, "cannot enter namespaces of its own");
    assert_no_cgroup_left(have);
#endif
    free(header);
}

int main(void) {
    static const struct CMUnitTest fixed[] = {
        /* Landlock and no_new_privs */
        T(test_fault_no_landlock),
        T(test_fault_add_rule),
        T(test_fault_no_new_privs),
        T(test_fault_restrict_self),
        /* the seccomp filters */
        T(test_fault_seccomp_filter),
        /* the capabilities */
        T(test_fault_capset),
        T(test_fault_ambient_capabilities),
        T(test_fault_bounding_set),
        /* the memory cgroup */
        T(test_cgroup_unmakeable),
        T(test_fault_cgroup_removed),
    };
    const size_t n_fixed = sizeof fixed / sizeof fixed[0];
    struct CMUnitTest *tests;
    int failed;

    tests = calloc(n_fixed + N_REFUSALS, sizeof *tests);
    if (tests == NULL) return 1;
    memcpy(tests, fixed, sizeof fixed);
    /* One test per malformed input, so a failure names its case. */
    for (size_t i = 0; i < N_REFUSALS; i++) {
        struct CMUnitTest t = {refusals[i].name, test_refusal, shim_setup, shim_teardown,
                               (void *)&refusals[i]};
        tests[n_fixed + i] = t;
    }
    failed = _cmocka_run_group_tests("sandbox_shim_refusals", tests, n_fixed + N_REFUSALS,
                                     shim_group_setup, NULL);
    free(tests);
    return failed;
}
