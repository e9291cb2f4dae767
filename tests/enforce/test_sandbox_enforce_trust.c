/* A policy cannot be widened by what it confines. The policy script runs
 * unsandboxed, as the user, and lives in the project the command may write:
 * so lcsb runs a script only as the user trusted it (lcsb trust), refusing
 * an untrusted or edited one, or one that reads an edited file, before any
 * of it runs; and every file the script read from the write tier is
 * read-only for the run. The denials have their twins: under --backend
 * none the same command rewrites the policy, and the next run is refused.
 * Each case keeps its trust store in OUTSIDE (XDG_STATE_HOME), which no
 * policy here grants. lcsb trust itself, over an earlier record and with
 * --accept, is test_sandbox_enforce_trust_accept.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trust_fixture.h"

/* A policy whose own code leaves MARKER in OUTSIDE when it runs: proof that
 * the script ran, or that it did not. */
static void marking_policy(fx *f, const char *marker, const char *extra) {
    char text[4096], mark[PATH_MAX];
    FMT(text,
        "local lcsb = require \"lcsb\"\n"
        "%s\n"
        "local f = io.open(\"%s\", \"w\"); f:write(\"ran\"); f:close()\n"
        "return lcsb.exec_policy { exec = { " TOOLS " } }\n",
        extra, path_in(mark, f->outside, marker));
    raw_policy(f, text);
}

static void test_untrusted_policy_runs_nothing(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char marker[PATH_MAX], ran[PATH_MAX];
    path_in(marker, f->outside, "script-ran");
    path_in(ran, f->project, "command-ran");
    marking_policy(f, "script-ran", "");
    static const char *const backends[] = {"landlock", "none"};
    for (size_t i = 0; i < 2; i++) {
        run_checked(f, backends[i], f->policy, CMD("touch", "command-ran"), false);
        if (P.status != LCSB_EXIT_USAGE) describe("untrusted", CMD("touch"), &P);
        assert_int_equal(P.status, LCSB_EXIT_USAGE);
        assert_true(has_line(P.err, "lcsb: ", CMD("p.lua is not trusted", "lcsb trust")));
        assert_exists(marker, false);
        assert_exists(ran, false);
    }
    /* The twin: trusted, the same run runs both. */
    trust(f, f->policy);
    assert_exists(marker, true); /* lcsb trust ran it, as the user approved */
    unlink(marker);
    run_checked(f, "landlock", f->policy, CMD("touch", "command-ran"), false);
    assert_int_equal(P.status, 0);
    assert_exists(marker, true);
    assert_exists(ran, true);
}

static void test_edited_policy_is_refused(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char marker[PATH_MAX];
    path_in(marker, f->outside, "edit-ran");
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "return lcsb.exec_policy { exec = { \"sh\" } }\n");
    trust(f, f->policy);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, 0);
    /* The user edits it by hand: the next run asks for trust again. */
    char edited[8192];
    FMT(edited,
        "local lcsb = require \"lcsb\"\n"
        "io.open(\"%s\", \"w\"):close()\n"
        "return lcsb.exec_policy { exec = { \"sh\" } }\n",
        marker);
    write_file(f->policy, edited);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("p.lua changed since you trusted it", "1 line added, 0 removed",
                             "line 2: io.open(", "lcsb ran none of it", "then run: lcsb trust /",
                             "p.lua -- true")));
    assert_exists(marker, false);
    trust(f, f->policy);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, 0);
    assert_exists(marker, true);
}

/* A file the script reads for one command only: trusted without that
 * command, the run of it is refused, and the refusal names the command to
 * trust it with. Run as it says, word for word, the next run passes, and
 * the other command's still does (a new user was sent to "lcsb trust
 * POLICY", which records nothing more, and refused again). */
static void test_file_read_for_one_command(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char data[PATH_MAX];
    write_file(path_in(data, f->project, "extra.txt"), "x\n");
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "return function(run)\n"
                  "  if run.argv[1] == \"cat\" then io.open(\"extra.txt\"):close() end\n"
                  "  return lcsb.exec_policy { exec = { \"cat\", \"true\" } }\n"
                  "end\n");
    trust(f, f->policy);
    run_checked(f, "landlock", f->policy, CMD("cat", "extra.txt"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    char again[PATH_MAX + 32];
    FMT(again, "then run: lcsb trust %s -- cat", f->policy);
    assert_true(has_line(P.err, "lcsb: ", CMD("reads extra.txt, which it did not read", again)));
    run_child(f->project, CMD(LCSB_CLI_PATH, "trust", f->policy, "--", "cat"), trust_env(f), &P);
    assert_int_equal(P.status, 0);
    run_checked(f, "landlock", f->policy, CMD("cat", "extra.txt"), false);
    assert_int_equal(P.status, 0);
    assert_string_equal(P.out, "x\n");
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, 0);
}

/* A module the policy requires, and a data file it reads, are held to the
 * trust too: an edit is refused before the script gets a byte of it. */
static void test_edited_module_is_refused(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char lib[PATH_MAX], mod[PATH_MAX], data[PATH_MAX], marker[PATH_MAX];
    assert_int_equal(mkdir(path_in(lib, f->project, "lib"), 0755), 0);
    write_file(path_in(mod, lib, "tools.lua"), "return { \"sh\" }\n");
    write_file(path_in(data, f->project, "extra.txt"), "cat\n");
    path_in(marker, f->outside, "module-ran");
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "package.path = \"lib/?.lua;\" .. package.path\n"
                  "local exec = require \"tools\"\n"
                  "for line in io.lines(\"extra.txt\") do exec[#exec + 1] = line end\n"
                  "return lcsb.exec_policy { exec = exec }\n");
    trust(f, f->policy);
    assert_true(has_line(P.err, "lcsb: ", CMD("lib/tools.lua")));
    assert_true(has_line(P.err, "lcsb: ", CMD("extra.txt")));
    run_checked(f, "landlock", f->policy, CMD("cat", "extra.txt"), false);
    assert_int_equal(P.status, 0);

    char evil[PATH_MAX + 128];
    FMT(evil, "io.open(\"%s\", \"w\"):close()\nreturn { \"sh\" }\n", marker);
    write_file(mod, evil);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("p.lua reads lib/tools.lua, which changed since you trusted it",
                             "then run: lcsb trust /")));
    assert_exists(marker, false);
    write_file(mod, "return { \"sh\" }\n");
    write_file(data, "rm\n");
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(
        has_line(P.err, "lcsb: ", CMD("reads extra.txt, which changed", "first at line 1: rm")));
    /* Gone is changed too: without it the script would take another way. */
    unlink(data);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ",
                         CMD("read extra.txt when you trusted it, and it cannot be "
                             "read now")));
}

/* The command cannot rewrite the policy, nor a module it requires, nor put
 * another in their place by renaming a directory; unsandboxed it can, and
 * the next run is refused for it. */
static void test_policy_cannot_rewrite_itself(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char conf[PATH_MAX], mod[PATH_MAX];
    assert_int_equal(mkdir(path_in(conf, f->project, "conf"), 0755), 0);
    write_file(path_in(mod, conf, "tools.lua"), "return { " TOOLS " }\n");
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "local exec = dofile(\"conf/tools.lua\")\n"
                  "return lcsb.exec_policy { exec = exec }\n");
    trust(f, f->policy);
    char *before = slurp(f->policy), *mod_before = slurp(mod);
    static const char *const attacks[] = {
        "echo 'return lcsb.exec_policy { exec = \"any\" }' >> p.lua",
        "echo '-- widened' >> conf/tools.lua",
        "mv p.lua p.old",
        "rm -f p.lua",
        "mv conf conf.old && mkdir conf && echo 'return {}' > conf/tools.lua",
        "ln -f p.lua p.link && echo x >> p.link",
    };
    for (size_t i = 0; i < sizeof attacks / sizeof *attacks; i++) {
        run_checked(f, "landlock", f->policy, CMD("sh", "-c", attacks[i]), false);
        if (P.status == 0) describe(attacks[i], CMD("sh", "-c", attacks[i]), &P);
        assert_int_not_equal(P.status, 0);
        assert_content(f->policy, before);
        assert_content(mod, mod_before);
    }
    /* Listed in the attestation, protected. */
    run_checked(f, "landlock", f->policy, CMD("true"), true);
    assert_int_equal(P.status, 0);
    assert_contains(P.err, "\"trust\":\"recorded\"", "the attestation");
    assert_contains(P.err, "/p.lua\",\"sha256\":\"", "the attestation");
    assert_contains(P.err, "/conf/tools.lua\",\"sha256\":\"", "the attestation");
    assert_lacks(P.err, "\"protected\":false", "the attestation");

    /* The twin: nothing is enforced, the rewrite lands, and lcsb refuses it next. */
    run_checked(f, "none", f->policy, CMD("sh", "-c", attacks[1]), false);
    assert_int_equal(P.status, 0);
    char *mod_after = slurp(mod);
    assert_string_not_equal(mod_after, mod_before);
    free(mod_after);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("conf/tools.lua, which changed", "-- widened")));
    free(before);
    free(mod_before);
}

/* A policy in lcsb's own config directory is trusted by where it is; the
 * attestation says so. */
static void test_config_policy_trusted_by_location(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char config[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
    assert_int_equal(mkdir(path_in(config, f->outside, "config"), 0755), 0);
    assert_int_equal(mkdir(path_in(dir, config, "lcsb"), 0755), 0);
    write_file(path_in(path, dir, "p.lua"), "local lcsb = require \"lcsb\"\n"
                                            "return lcsb.exec_policy { exec = { \"sh\" } }\n");
    run_checked(f, "landlock", path, CMD("true"), true);
    if (P.status != 0) describe("by location", CMD("true"), &P);
    assert_int_equal(P.status, 0);
    assert_contains(P.err, "\"trust\":\"location\"", "the attestation");
    /* What it reads from the project is held to a record all the same. */
    char data[PATH_MAX], reading[PATH_MAX * 2];
    write_file(path_in(data, f->project, "tools.txt"), "sh\n");
    FMT(reading,
        "local lcsb = require \"lcsb\"\n"
        "local exec = {}\n"
        "for line in io.lines(\"%s\") do exec[#exec + 1] = line end\n"
        "return lcsb.exec_policy { exec = exec }\n",
        data);
    write_file(path, reading);
    run_checked(f, "landlock", path, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(
        has_line(P.err, "lcsb: ", CMD("tools.txt, which it did not read when you trusted it")));
    trust(f, path);
    run_checked(f, "landlock", path, CMD("true"), true);
    assert_int_equal(P.status, 0);
    assert_contains(P.err, "\"trust\":\"location\"", "the attestation");
    write_file(data, "sh\nrm\n");
    run_checked(f, "landlock", path, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    /* The same file elsewhere is not. */
    char copy[PATH_MAX];
    write_file(path_in(copy, f->project, "q.lua"),
               "local lcsb = require \"lcsb\"\n"
               "return lcsb.exec_policy { exec = { \"sh\" } }\n");
    run_checked(f, "landlock", copy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
}

/* A C module comes from the system's Lua directories only: one the command
 * could have written in the project is not loaded, whatever package.cpath
 * says, and package.loadlib is gone. */
static void test_no_c_module_from_the_project(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char so[PATH_MAX];
    write_file(path_in(so, f->project, "evil.so"), "not a library\n");
    raw_policy(f,
               "local lcsb = require \"lcsb\"\n"
               "package.cpath = \"./?.so;\" .. package.cpath\n"
               "assert(package.loadlib == nil, \"loadlib is there\")\n"
               "local ok, err = pcall(require, \"evil\")\n"
               "assert(not ok and not tostring(err):find(\"./evil.so\", 1, true), tostring(err))\n"
               "assert(require \"cjson\")\n"
               "return lcsb.exec_policy { exec = { \"sh\" } }\n");
    trust(f, f->policy);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    if (P.status != 0) describe("C modules", CMD("true"), &P);
    assert_int_equal(P.status, 0);
}

/* A symlink LOCAL from the project into lcsb's config directory, or into
 * /dev/shm: the run is refused all the same. */
static void detour_by_links(fx *f, const char *local) {
    /* A symlink from the project into lcsb's config directory is the
     * project's: held to the record. */
    char config[PATH_MAX], config_lcsb[PATH_MAX], wide[PATH_MAX];
    path_in(config, f->outside, "config");
    assert_int_equal(mkdir(config, 0755), 0);
    assert_int_equal(mkdir(path_in(config_lcsb, config, "lcsb"), 0755), 0);
    write_file(path_in(wide, config_lcsb, "wide.lua"),
               "return require(\"lcsb\").exec_policy { exec = \"any\" }\n");
    unlink(local);
    assert_int_equal(symlink(wide, local), 0);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("reads policy.local.lua, which changed", "it was ")));
    unlink(local);
    /* Nor is one into /dev/shm, a tmpfs anyone writes, for being under /dev. */
    char shm[PATH_MAX];
    FMT(shm, "/dev/shm/lcsb-trust-test.%ld.lua", (long)getpid());
    write_file(shm, "return require(\"lcsb\").exec_policy { exec = \"any\" }\n");
    assert_int_equal(symlink(shm, local), 0);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    unlink(shm);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("reads policy.local.lua, which changed", "it was ")));
    unlink(local);
    write_file(local, "return nil\n");
}

/* The file CONF/deploy.json gone with CONF, or the optional module OPT
 * gone: refused. */
static void detour_by_files_gone(fx *f, const char *conf, const char *opt) {
    char moved[PATH_MAX];
    assert_int_equal(rename(conf, path_in(moved, f->project, "conf.old")), 0);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("read conf/deploy.json when you trusted it")));
    assert_int_equal(rename(moved, conf), 0);
    unlink(opt);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("read ./opt.lua when you trusted it")));
    write_file(opt, "return { \"cat\" }\n");
}

/* STATE_FILE changed, and then a store others may write. */
static void detour_by_state_and_store(fx *f, const char *state_file) {
    /* A state file read through io.open: held to the record too. */
    write_file(state_file, "python3\n");
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("reads state.txt, which changed")));
    write_file(state_file, "sh\n");
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, 0);

    /* A store others may write vouches for nothing. */
    char store[PATH_MAX + 16];
    FMT(store, "%s/state/lcsb/trust", f->outside);
    assert_int_equal(chmod(store, 0777), 0);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("trust is writable by others")));
    assert_int_equal(chmod(store, 0700), 0);
}

/* Ways around the record a reviewer found, each refused: a refusal caught
 * with pcall, a file that went with its directory, an optional module gone,
 * a symlink from the project into lcsb's config directory, the script a
 * symlink pointed elsewhere, a changed state file, and a store others may
 * write. Each run is 125 and the marker the wider way
 * would leave is absent; the kernel's own files (/proc) are read freely. */
static void test_record_holds_against_detours(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char local[PATH_MAX], conf[PATH_MAX], deploy[PATH_MAX], opt[PATH_MAX], state_file[PATH_MAX];
    path_in(local, f->project, "policy.local.lua");
    assert_int_equal(mkdir(path_in(conf, f->project, "conf"), 0755), 0);
    write_file(path_in(deploy, conf, "deploy.json"), "{}\n");
    write_file(path_in(opt, f->project, "opt.lua"), "return { \"cat\" }\n");
    write_file(path_in(state_file, f->project, "state.txt"), "sh\n");
    write_file(local, "return nil\n");
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "io.open(\"/proc/self/status\"):close()\n"
                  "local ok, wide = pcall(dofile, \"policy.local.lua\")\n"
                  "if ok and wide then return wide end\n"
                  "local exec = {}\n"
                  "if not io.open(\"conf/deploy.json\") then exec = \"any\" end\n"
                  "package.path = \"./?.lua;\" .. package.path\n"
                  "local has_opt, more = pcall(require, \"opt\")\n"
                  "if not has_opt then exec = \"any\" end\n"
                  "local f = io.open(\"state.txt\")\n"
                  "if type(exec) == \"table\" then exec[#exec + 1] = f:read(\"l\") end\n"
                  "f:close()\n"
                  "return lcsb.exec_policy { exec = exec }\n");
    trust(f, f->policy);
    run_checked(f, "landlock", f->policy, CMD("sh", "-c", "true"), false);
    if (P.status != 0) describe("trusted", CMD("true"), &P);
    assert_int_equal(P.status, 0);

    /* A refusal caught with pcall refuses the run all the same. */
    write_file(local, "return require(\"lcsb\").exec_policy { exec = \"any\" }\n");
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("reads policy.local.lua, which changed")));
    write_file(local, "return nil\n");

    detour_by_links(f, local);
    detour_by_files_gone(f, conf, opt);
    detour_by_state_and_store(f, state_file);
}

/* The script a symlink in the project: pointed at another trusted script,
 * it is refused, for the record names where the link led. */
static void test_script_symlink_swapped(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char strict[PATH_MAX], loose[PATH_MAX], link[PATH_MAX];
    write_file(path_in(strict, f->outside, "strict.lua"),
               "return require(\"lcsb\").exec_policy { exec = { \"sh\" } }\n");
    write_file(path_in(loose, f->outside, "loose.lua"),
               "return require(\"lcsb\").exec_policy { exec = \"any\" }\n");
    assert_int_equal(symlink(strict, path_in(link, f->project, "policy.lua")), 0);
    trust(f, link);
    trust(f, loose);
    run_checked(f, "landlock", link, CMD("true"), false);
    assert_int_equal(P.status, 0);
    unlink(link);
    assert_int_equal(symlink(loose, link), 0);
    run_checked(f, "landlock", link, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(
        P.err, "lcsb: ",
        CMD("policy.lua changed since you trusted it", "strict.lua, and is ", "loose.lua now")));
}

/* A process running sleep whose command line (argv[0]) is CODE: what
 * /proc/PID/cmdline then says, a file the kernel makes up from what the
 * process chose. */
static pid_t process_saying(const char *code) {
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sleep", code, "60", (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    char cmdline[64], seen[16] = "";
    FMT(cmdline, "/proc/%d/cmdline", (int)pid);
    /* Until the exec shows. */
    for (int i = 0; i < 500 && strncmp(seen, "io.open", 7) != 0; i++) {
        FILE *f = fopen(cmdline, "r");
        if (f) {
            size_t n = fread(seen, 1, sizeof seen - 1, f);
            seen[n] = '\0';
            fclose(f);
        }
        usleep(2000);
    }
    assert_memory_equal(seen, "io.open", 7);
    return pid;
}

static void end_process(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* A trusted script's optional file, absent when it was trusted, pointed by
 * the command at the kernel's file of a process of its own, whose command
 * line is Lua the command wrote: the bytes are held to the trust as any
 * file of the project (they are new), so none of it runs. The twin: without
 * the trust check the same link runs the command's code as the user,
 * outside any sandbox. Then the race a red team won: a process swapping the
 * optional file between a Lua file and that link (RENAME_EXCHANGE) while
 * lcsb runs the policy, again and again: the code never runs. */
static void test_kernel_file_is_no_way_around(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char local[PATH_MAX], link[PATH_MAX], marker[PATH_MAX], code[PATH_MAX + 64];
    char cmdline[64];
    path_in(local, f->project, "policy.local.lua");
    path_in(link, f->project, "swap");
    path_in(marker, f->outside, "escaped");
    raw_policy(f, "local ok, wide = pcall(dofile, \"policy.local.lua\")\n"
                  "if ok and wide then return wide end\n"
                  "return require(\"lcsb\").exec_policy { exec = { \"sh\" } }\n");
    trust(f, f->policy);
    FMT(code, "io.open(\"%s\", \"w\"):close() --", marker);
    pid_t pid = process_saying(code);
    FMT(cmdline, "/proc/%d/cmdline", (int)pid);
    assert_int_equal(symlink(cmdline, local), 0);

    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, LCSB_EXIT_USAGE);
    assert_true(has_line(P.err, "lcsb: ", CMD("reads policy.local.lua, which it did not read")));
    assert_int_equal(access(marker, F_OK), -1);

    /* The twin: nothing checks the trust, and the command's code runs. */
    run_child(
        f->project,
        CMD(LCSB_CLI_PATH, "--no-trust-check", "--backend", "landlock", f->policy, "--", "true"),
        trust_env(f), &P);
    assert_int_equal(access(marker, F_OK), 0);
    assert_int_equal(unlink(marker), 0);

    /* The race: the swap's two sides are a Lua file of the command's and
     * the link; lcsb judges what it read by the descriptor it read it
     * through, so neither side gets past. */
    assert_int_equal(rename(local, link), 0);
    write_file(local, code);
    pid_t swapper = fork();
    if (swapper == 0) {
        for (;;) syscall(SYS_renameat2, AT_FDCWD, local, AT_FDCWD, link, 2 /* EXCHANGE */);
    }
    assert_true(swapper > 0);
    int refused = 0;
    for (int i = 0; i < 25; i++) {
        run_checked(f, "landlock", f->policy, CMD("true"), false);
        refused += P.status == LCSB_EXIT_USAGE;
        if (access(marker, F_OK) == 0) break;
    }
    end_process(swapper);
    end_process(pid);
    assert_int_equal(access(marker, F_OK), -1);
    assert_int_equal(refused, 25);
}

/* The kernel's own files are read freely only by a plain way into /proc
 * or /sys. A path through a magic link (/proc/self/cwd, /proc/self/root,
 * /proc/thread-self/cwd) leads into the project, where the command points
 * a symlink at the kernel's file of a process of its own, whose command
 * line it wrote: there the bytes are held to the trust as any file of the
 * project (they are new), and the script gets none of them. The twin: the
 * same script reads /proc/self/status freely, and runs once the link is
 * gone. */
static void test_kernel_file_only_by_a_plain_way(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char marker[PATH_MAX], settings[PATH_MAX], cmdline[64], root_way[PATH_MAX + 32];
    char text[2 * PATH_MAX + 512];
    path_in(marker, f->outside, "read-unchecked");
    path_in(settings, f->project, "settings.txt");
    FMT(root_way, "/proc/self/root%s", settings);
    const char *const ways[] = {"/proc/self/cwd/settings.txt", "/proc/thread-self/cwd/settings.txt",
                                root_way};
    pid_t pid = process_saying("io.open attacker text");
    FMT(cmdline, "/proc/%d/cmdline", (int)pid);
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++) {
        FMT(text,
            "local f = io.open(\"%s\")\n"
            "if f and f:read(\"a\"):find(\"attacker\") then io.open(\"%s\", \"w\"):close() end\n"
            "assert(io.open(\"/proc/self/status\"):read(\"a\"):find(\"Pid:\"))\n"
            "return require(\"lcsb\").exec_policy { exec = { \"sh\" } }\n",
            ways[i], marker);
        raw_policy(f, text);
        trust(f, f->policy);
        assert_int_equal(symlink(cmdline, settings), 0);
        run_checked(f, "landlock", f->policy, CMD("true"), false);
        if (P.status != LCSB_EXIT_USAGE) describe(ways[i], CMD("true"), &P);
        assert_int_equal(P.status, LCSB_EXIT_USAGE);
        assert_true(
            has_line(P.err, "lcsb: ", CMD(ways[i], "which it did not read when you trusted")));
        assert_exists(marker, false);
        assert_int_equal(unlink(settings), 0);
        run_checked(f, "landlock", f->policy, CMD("true"), false);
        assert_int_equal(P.status, 0);
    }
    end_process(pid);
}

/* A file opened to read and write at once ("r+", "a+", "w+") would hand
 * the script what is on disk when it reads, not what lcsb checked: such an
 * open is refused, naming the mode and the file, whatever the trust mode.
 * First the race a red team won: a command of a concurrent run exchanging
 * the state file with a planted one while the policy opened it "r+", which
 * lcsb checked through one descriptor and Lua opened again by name. Over a
 * bounded number of runs the planted code never runs. */
static void test_read_write_open_is_refused(void **state) {
    fx *f = *state;
    NEED_LANDLOCK();
    char state_lua[PATH_MAX], planted[PATH_MAX], marker[PATH_MAX], code[PATH_MAX + 64];
    char text[1024];
    path_in(state_lua, f->project, "state.lua");
    path_in(planted, f->project, "planted.lua");
    path_in(marker, f->outside, "race-won");
    FMT(code, "io.open(\"%s\", \"w\"):close() return 1\n", marker);
    static const char *const modes[] = {"r+", "a+", "w+", "r+b"};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        write_file(state_lua, "return 1\n");
        write_file(planted, code);
        FMT(text,
            "local lcsb = require \"lcsb\"\n"
            "local f = io.open(\"state.lua\", \"%s\")\n"
            "if f then\n"
            "  f:seek(\"set\"); local code = f:read(\"a\"); f:close()\n"
            "  if code ~= \"\" then load(code, \"state\", \"t\")() end\n"
            "end\n"
            "return lcsb.exec_policy { exec = { \"sh\" } }\n",
            modes[i]);
        raw_policy(f, text);
        run_child(f->project, CMD(LCSB_CLI_PATH, "trust", f->policy), trust_env(f), &P);
        if (i == 0) {
            /* The race, against whatever lcsb trust left. */
            pid_t swapper = fork();
            if (swapper == 0) {
                for (;;)
                    syscall(SYS_renameat2, AT_FDCWD, state_lua, AT_FDCWD, planted,
                            2 /* EXCHANGE */);
            }
            assert_true(swapper > 0);
            int ran = 0;
            for (int run = 0; run < 40 && access(marker, F_OK) != 0; run++) {
                run_checked(f, "landlock", f->policy, CMD("true"), false);
                ran += P.status == 0;
            }
            end_process(swapper);
            assert_exists(marker, false);
            assert_int_equal(ran, 0);
            write_file(state_lua, "return 1\n");
            write_file(planted, code);
        }
        /* Refused when trusted, and when not checked at all. */
        char named[64];
        FMT(named, "\"%s\" for state.lua", modes[i]);
        run_child(f->project, CMD(LCSB_CLI_PATH, "trust", f->policy), trust_env(f), &P);
        if (P.status != LCSB_EXIT_USAGE) describe(modes[i], CMD("trust"), &P);
        assert_int_equal(P.status, LCSB_EXIT_USAGE);
        assert_true(has_line(P.err, "lcsb: ",
                             CMD("p.lua:2: ", named, "does not open a file to read and write",
                                 "read it with \"r\", write it with \"w\" or \"a\"")));
        run_child(f->project,
                  CMD(LCSB_CLI_PATH, "--no-trust-check", "--backend", "landlock", f->policy, "--",
                      "true"),
                  trust_env(f), &P);
        assert_int_equal(P.status, LCSB_EXIT_USAGE);
        assert_true(has_line(P.err, "lcsb: ", CMD(named, "does not open a file to read")));
        assert_exists(marker, false);
    }
    /* The twin: read with "r", the same state is read, checked, and runs. */
    write_file(state_lua, "return 1\n");
    raw_policy(f, "local lcsb = require \"lcsb\"\n"
                  "local f = io.open(\"state.lua\", \"r\")\n"
                  "assert(load(f:read(\"a\"), \"state\", \"t\")() == 1)\n"
                  "return lcsb.exec_policy { exec = { \"sh\" } }\n");
    trust(f, f->policy);
    run_checked(f, "landlock", f->policy, CMD("true"), false);
    assert_int_equal(P.status, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_kernel_file_is_no_way_around),      T(test_untrusted_policy_runs_nothing),
        T(test_edited_policy_is_refused),          T(test_edited_module_is_refused),
        T(test_file_read_for_one_command),         T(test_policy_cannot_rewrite_itself),
        T(test_config_policy_trusted_by_location), T(test_no_c_module_from_the_project),
        T(test_record_holds_against_detours),      T(test_script_symlink_swapped),
        T(test_kernel_file_only_by_a_plain_way),   T(test_read_write_open_is_refused),

    };
    return cmocka_run_group_tests_name("sandbox_enforce_trust", tests, enforce_group_setup, NULL);
}
