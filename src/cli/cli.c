/* The lcsb subcommands, on top of the public API only; what lcsb check
 * prints is check.c. */
#include "cli.h"

#include <lcsb.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

/* TEXT as one line "lcsb: TEXT" on stderr. What it quotes (a program's
 * name, a path, a policy script's error, a line of the command's stderr) may
 * hold control bytes: they reach the terminal escaped, never raw. */
static void say_text(const char *text) {
    char line[4 * 4096 + 1];
    lcsb_escape(line, sizeof line, text, strlen(text));
    fprintf(stderr, "lcsb: %s\n", line);
}

void cli_say(const char *fmt, ...) {
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    say_text(text);
}

static bool self_dir(char *out, size_t size) {
    char exe[PATH_MAX];
#ifdef __APPLE__
    uint32_t len = sizeof exe;
    if (_NSGetExecutablePath(exe, &len) != 0) return false;
    char real[PATH_MAX];
    if (!realpath(exe, real)) return false;
    snprintf(exe, sizeof exe, "%s", real);
#else
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = '\0';
#endif
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = '\0';
    return snprintf(out, size, "%s", exe) < (int)size;
}

/* CANDIDATE's real path into OUT (PATH_MAX bytes), or CANDIDATE as it is.
 * One directly in DIR (self_dir's: the kernel names the program with no
 * symlink on the way) that is no symlink itself is real as written: one
 * lstat, where realpath(3) asks readlink of every component. */
static void real_or_as_is(const char *dir, const char *candidate, char *out) {
    struct stat st;
    size_t n = strlen(dir);
    if (strncmp(candidate, dir, n) == 0 && candidate[n] == '/' && !strchr(candidate + n + 1, '/') &&
        strcmp(candidate + n + 1, "..") != 0 && lstat(candidate, &st) == 0 &&
        !S_ISLNK(st.st_mode)) {
        snprintf(out, PATH_MAX, "%s", candidate);
        return;
    }
    if (!realpath(candidate, out)) snprintf(out, PATH_MAX, "%s", candidate);
}

/* The build tree keeps lcsb, lcsb-exec and lua/ side by side; an install puts
 * them under PREFIX/bin, PREFIX/libexec/lcsb and PREFIX/share/lua/5.4. */
void cli_find_paths(cli_paths *paths) {
    char dir[PATH_MAX - 64], candidate[PATH_MAX];
    paths->shim[0] = paths->lua_dir[0] = '\0';
    if (!self_dir(dir, sizeof dir)) return;
    snprintf(candidate, sizeof candidate, "%s/lcsb-exec", dir);
    if (access(candidate, X_OK) != 0)
        snprintf(candidate, sizeof candidate, "%s/../libexec/lcsb/lcsb-exec", dir);
    real_or_as_is(dir, candidate, paths->shim);
    snprintf(candidate, sizeof candidate, "%s/lua/lcsb/init.lua", dir);
    if (access(candidate, R_OK) == 0)
        snprintf(candidate, sizeof candidate, "%s/lua", dir);
    else
        snprintf(candidate, sizeof candidate, "%s/../share/lua/5.4", dir);
    real_or_as_is(dir, candidate, paths->lua_dir);
}

static int cmd_detect(const cli_args *args, const cli_paths *paths) {
    lcsb_capability cap;
    lcsb_error err;
    if (lcsb_detect(&cap, paths->shim, &err)) {
        cli_say("%s", err.message);
        return LCSB_EXIT_USAGE;
    }
    lcsb_backend *b = NULL;
    bool have = lcsb_backend_select(&cap, "auto", &b, &err) == 0;
    const char *chosen = have ? lcsb_backend_name(b) : "none available";
    if (args->json) {
        /* The capability's own JSON, and what auto picks from it. */
        char *json = lcsb_capability_json(&cap);
        if (!json) {
            cli_say("out of memory");
            lcsb_backend_free(b);
            return LCSB_EXIT_USAGE;
        }
        json[strlen(json) - 1] = '\0'; /* the closing brace, written again below */
        printf("%s,\"auto\":\"%s\"}\n", json, have ? chosen : "");
        free(json);
    } else {
        printf("landlock:        %s\n", cap.landlock_abi ? "yes" : "no");
        printf("landlock ABI:    %d", cap.landlock_abi);
        if (cap.landlock_abi != cap.landlock_abi_kernel)
            printf(" (lowered by LCSB_LANDLOCK_ABI_MAX; the kernel's is %d)",
                   cap.landlock_abi_kernel);
        printf("\n");
        printf("seccomp:         %s\n", cap.seccomp ? "yes" : "no");
        printf("seccomp notify:  %s\n", cap.seccomp_notify ? "yes" : "no");
        printf("user namespaces: %s\n", cap.user_namespaces ? "yes" : "no");
        printf("mount namespace: %s\n", cap.mount_namespaces ? "yes" : "no");
        printf("sandbox-exec:    %s\n", cap.sandbox_exec ? "yes" : "no");
        printf("shim:            %s%s\n", cap.shim, cap.shim_found ? "" : " (missing)");
        printf("oci engine:      %s\n", cap.oci_engine[0] ? cap.oci_engine : "none");
        printf("auto picks:      %s\n", chosen);
    }
    lcsb_backend_free(b);
    return 0;
}

/* --attest FILE is opened before anything runs: a path that cannot be
 * written is a usage error (125), never found out after the command ran. */
static FILE *open_attestation(const char *where) {
    if (strcmp(where, "-") == 0) return stderr;
    FILE *f = fopen(where, "we");
    if (!f) cli_say("cannot write the attestation to %s: %s", where, strerror(errno));
    return f;
}

/* JSON (freed here; NULL: memory ran out) written to F, WHERE's: the
 * attestation with what the script adds (the files it read and how it was
 * trusted, the caps files it was checked against, the files that run
 * later), and after a run its status, for lcsb explain. */
static int write_attestation(FILE *f, const char *where, char *json) {
    int rc = 0;
    int printed = json ? fprintf(f, "%s\n", json) : -1;
    if (printed < 0 || (f != stderr && fclose(f) != 0)) {
        cli_say("cannot write the attestation to %s: %s", where,
                json ? strerror(errno) : "out of memory");
        rc = -1;
    }
    free(json);
    return rc;
}

static int cmd_wrap(const lcsb_backend *b, const lcsb_policy *p, const cli_args *args) {
    char **final = NULL;
    lcsb_error err;
    if (lcsb_compose(b, p, (const char *const *)args->prefix, args->argv, &final, &err)) {
        cli_say("%s", err.message);
        return LCSB_EXIT_USAGE;
    }
    char *json = lcsb_argv_json((const char *const *) final);
    lcsb_argv_free(final);
    if (!json) {
        cli_say("out of memory");
        return LCSB_EXIT_USAGE;
    }
    puts(json);
    free(json);
    return 0;
}

/* Each of LINES (which it frees) on stderr as "lcsb: LEAD LINE". */
static void say_lines(const char *lead, char **lines) {
    for (size_t i = 0; lines && lines[i]; i++) cli_say("%s%s", lead, lines[i]);
    lcsb_argv_free(lines);
}

/* lcsb learn's end of a run: what it says to add to the script, the report
 * on stderr and the diff on stdout; the script rewritten under --write. */
static int learn_after(const cli_args *args, lcsb_script *script, const lcsb_run_result *result) {
    char **report, *diff;
    lcsb_error err;
    if (lcsb_script_learn(script, args->argv, result, args->write, &report, &diff, &err)) {
        cli_say("%s", err.message);
        return LCSB_EXIT_USAGE;
    }
    say_lines("learn: ", report);
    if (diff) {
        fputs(diff, stdout);
        fflush(stdout);
        /* The command named, as trust records what the script reads for
         * it; where the shell would need it quoted, left to the refusal. */
        const char *command = args->argv[0];
        bool plain = strspn(command, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789_-./+,:@%=") == strlen(command);
        if (args->write)
            cli_say("learn: wrote %s; read it, then run: lcsb trust %s%s%s", args->policy,
                    args->policy, plain ? " -- " : "", plain ? command : "");
        else
            cli_say("learn: lcsb learn --write writes it to %s; then run: lcsb trust %s%s%s",
                    args->policy, args->policy, plain ? " -- " : "", plain ? command : "");
    }
    free(diff);
    return result->status;
}

/* How ARGS runs its command. */
static void run_options(const cli_args *args, lcsb_run_options *opts) {
    lcsb_run_options_init(opts);
    opts->prefix = (const char *const *)args->prefix;
    opts->keep_fds = args->keep_fds;
    opts->keep_fds_count = args->keep_fds_count;
    opts->capture_stderr = !args->no_capture;
    opts->record_refusals = !args->no_record;
}

/* A runner for the command of ARGS, started before its policy script runs:
 * the world the last such run had is made while the script composes, and
 * taken only if the policy gives the very same (lcsb_runner_start). The
 * run is named by the script, the directory, the command's name and how it
 * runs. NULL where there is nothing to start it from. */
static lcsb_runner *start_runner(const cli_args *args) {
    char policy[PATH_MAX], cwd[PATH_MAX];
    if (args->command != CLI_RUN || !args->argv || !args->argv[0] ||
        !realpath(args->policy, policy) || !getcwd(cwd, sizeof cwd))
        return NULL;
    size_t len = 0;
    char key[3 * PATH_MAX + 512];
    const char *const parts[] = {"lcsb run",    policy,
                                 cwd,           args->argv[0],
                                 args->backend, args->no_trust_check ? "unchecked" : "trusted"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        size_t n = strlen(parts[i]) + 1;
        if (len + n > sizeof key) return NULL;
        memcpy(key + len, parts[i], n);
        len += n;
    }
    lcsb_run_options opts;
    run_options(args, &opts);
    lcsb_runner *runner = NULL;
    lcsb_error err;
    return lcsb_runner_start(key, len, &opts, &runner, &err) == 0 ? runner : NULL;
}

/* lcsb learn's stdout is the change alone, a diff to save or pipe: while
 * it learns, the command's stdout is lcsb's stderr. The real stdout, kept
 * (close-on-exec), or -1 when it stays as it is. */
static int stdout_to_stderr(void) {
    int kept = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (kept >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        close(kept);
        kept = -1;
    }
    return kept;
}

static void stdout_back(int kept) {
    if (kept < 0) return;
    fflush(stdout);
    dup2(kept, STDOUT_FILENO);
    close(kept);
}

/* A run of the command under P, through RUNNER when there is one; lcsb
 * learn's (LEARNING, the wider policy) under that one, its refusals judged
 * against P. */
static int cmd_run(const cli_args *args, const lcsb_backend *b, const lcsb_policy *p,
                   const lcsb_policy *learning, lcsb_script *script, lcsb_runner *runner) {
    lcsb_run_options opts;
    lcsb_run_result result;
    lcsb_error err;
    run_options(args, &opts);
    if (learning) opts.judge = p;
    FILE *attest = args->attest ? open_attestation(args->attest) : NULL;
    if (args->attest && !attest) return LCSB_EXIT_USAGE;
    if (strcmp(lcsb_backend_name(b), "none") == 0)
        cli_say("warning: --backend none: running %s unsandboxed; nothing is enforced",
                args->argv[0]);
    say_lines("warning: ", lcsb_script_warnings(script));
    /* lcsb_run validates before it spawns; what it refuses, the script built. */
    int ran = runner && !learning ? lcsb_runner_bind(runner, b, p, &err) : 0;
    int kept_stdout = learning ? stdout_to_stderr() : -1;
    if (!ran)
        ran = runner && !learning
                  ? lcsb_runner_run(runner, args->argv, &result, &err)
                  : lcsb_run(b, learning ? learning : p, args->argv, &opts, &result, &err);
    stdout_back(kept_stdout);
    /* Before the private HOME goes: nothing may still be using it. */
    if (cli_end_leftovers() < 0)
        cli_say("warning: could not end what the command left running: %s", strerror(errno));
    if (ran) {
        cli_say("%s: %s", args->policy, err.message);
        if (attest && attest != stderr) fclose(attest);
        return LCSB_EXIT_USAGE;
    }
    /* Before the attestation, which lists the files that run later it finds. */
    say_lines("warning: ", lcsb_script_after_run(script));
    /* The command ran: its status stands even if the attestation is lost. */
    if (attest) write_attestation(attest, args->attest, lcsb_script_run_json(script, &result));
    if (learning) return learn_after(args, script, &result);
    /* A run that succeeds keeps stderr the command's: tools parse it. */
    if (result.status != 0 || args->report)
        say_lines("hint: ", lcsb_script_explain(script, args->argv, &result));
    return result.status;
}

/* The most of an attestation file lcsb explain reads. */
#define ATTESTATION_MAX (16 << 20)

/* lcsb explain FILE: the hints of a run saved with --attest FILE, on
 * stdout, for a host that ran it in the background. */
static int cmd_explain(const cli_args *args, const cli_paths *paths) {
    FILE *f = strcmp(args->policy, "-") == 0 ? stdin : fopen(args->policy, "r");
    if (!f) {
        cli_say("cannot read %s: %s", args->policy, strerror(errno));
        return LCSB_EXIT_USAGE;
    }
    char *text = malloc(ATTESTATION_MAX + 1);
    size_t len = text ? fread(text, 1, ATTESTATION_MAX + 1, f) : 0;
    bool failed = !text || ferror(f) || len > ATTESTATION_MAX;
    if (f != stdin) fclose(f);
    char **hints = NULL;
    lcsb_error err;
    if (failed) {
        cli_say("cannot read %s: %s", args->policy,
                !text                   ? "out of memory"
                : len > ATTESTATION_MAX ? "larger than 16 MiB"
                                        : strerror(errno));
    } else if (lcsb_explain_attestation(text, len, paths->lua_dir[0] ? paths->lua_dir : NULL,
                                        &hints, &err)) {
        cli_say("%s: %s", args->policy, err.message);
        failed = true;
    }
    free(text);
    if (failed) return LCSB_EXIT_USAGE;
    for (size_t i = 0; hints && hints[i]; i++) printf("hint: %s\n", hints[i]);
    if (!hints) printf("no hints: the attestation records no refusal\n");
    lcsb_argv_free(hints);
    return fflush(stdout) == 0 ? 0 : LCSB_EXIT_USAGE;
}

/* A signal must not kill lcsb before it removes the private HOME. While the
 * policy script runs, lcsb_script_open stops the script on it, removes the
 * script's directories and raises it again; this notes it then, or when it
 * comes between the script and the command, and lcsb exits 128+N. While the
 * command runs, lcsb_run relays these signals to it instead. */
static volatile sig_atomic_t pending_signal;
static void note_signal(int sig) { pending_signal = sig; }

static void hold_signals(void) {
    size_t n;
    const int *relayed = lcsb_relayed_signals(&n);
    /* Each handler set and the old one read in one call, with the signals
     * blocked: one that comes before an ignored one is put back waits, and
     * putting SIG_IGN back discards it, as if it had never been replaced. */
    sigset_t block, was;
    sigemptyset(&block);
    for (size_t i = 0; i < n; i++) sigaddset(&block, relayed[i]);
    sigprocmask(SIG_BLOCK, &block, &was);
    for (size_t i = 0; i < n; i++) {
        struct sigaction sa = {.sa_handler = note_signal}, old;
        sigemptyset(&sa.sa_mask);
        /* One lcsb was started ignoring (nohup's SIGHUP) stays ignored. */
        if (sigaction(relayed[i], &sa, &old) == 0 && old.sa_handler == SIG_IGN)
            sigaction(relayed[i], &old, NULL);
    }
    sigprocmask(SIG_SETMASK, &was, NULL);
}

/* lcsb trust: run the policy as the user approves it, and record it. */
static int cmd_trust(const cli_args *args, const lcsb_script_options *opts) {
    static const char *const no_command[] = {NULL};
    char **trusted;
    lcsb_error err;
    if (lcsb_trust(args->policy, args->argv ? args->argv : no_command, opts, &trusted, &err)) {
        cli_say("%s", err.message);
        return err.code == LCSB_EINTR && pending_signal ? 128 + pending_signal : LCSB_EXIT_USAGE;
    }
    cli_say("trusted %s as it is now; lcsb runs it until it, or a file it reads, changes:",
            args->policy);
    for (size_t i = 0; trusted[i]; i++) cli_say("  %s", trusted[i]);
    lcsb_argv_free(trusted);
    return 0;
}

/* --backend oci runs the container world the policy script names. */
static int select_backend(const cli_args *args, const lcsb_script *script,
                          const lcsb_capability *cap, lcsb_backend **b, lcsb_error *err) {
    lcsb_oci_world world;
    if (!args->backend || strcmp(args->backend, "oci") != 0 ||
        !lcsb_script_oci_world(script, &world))
        return lcsb_backend_select(cap, args->backend, b, err);
    return lcsb_backend_oci(cap, &world, b, err);
}

/* lcsb check for ARGV, the command after "--" (empty: none), then its
 * attestation under --attest FILE: the exit status. */
static int run_check(const cli_args *args, const lcsb_capability *cap, const lcsb_backend *b,
                     const lcsb_policy *p, const char *const *argv, lcsb_script *script) {
    lcsb_attestation att;
    lcsb_error err;
    /* What lcsb_run would do before it spawns, for this very command. */
    if (lcsb_prepare(b, p, (const char *const *)args->prefix, argv[0] ? argv : NULL, NULL, &att,
                     &err)) {
        /* The policy script built this policy: name it. */
        cli_say("%s: %s", args->policy, err.message);
        return LCSB_EXIT_USAGE;
    }
    int status = cli_check(args, cap, b, p, &att, script);
    FILE *attest = args->attest ? open_attestation(args->attest) : NULL;
    if (args->attest &&
        (!attest ||
         write_attestation(attest, args->attest, lcsb_script_attestation_json(script, &att)) != 0))
        status = LCSB_EXIT_USAGE;
    return status;
}

/* How ARGS's policy script runs: 0, or -1 said. */
static int script_options(const cli_args *args, const cli_paths *paths, lcsb_script_options *opts) {
    lcsb_script_options_init(opts);
    opts->lua_dir = paths->lua_dir;
    opts->shim = paths->shim;
    opts->trust = args->no_trust_check ? LCSB_TRUST_SKIP : LCSB_TRUST_CHECK;
    opts->accept = args->accept_count ? args->accept : NULL;
    opts->list_quiet = args->report;
    char msg[256];
    if (cli_parse_timeout(getenv("LCSB_POLICY_TIMEOUT"), &opts->time_budget, msg, sizeof msg)) {
        cli_say("%s", msg);
        return -1;
    }
    return 0;
}

static int with_policy(const cli_args *args, const cli_paths *paths) {
    lcsb_script *script = NULL;
    lcsb_backend *b = NULL;
    lcsb_capability cap;
    lcsb_error err;
    int status = LCSB_EXIT_USAGE;
    static const char *const no_command[] = {NULL};
    const char *const *argv = args->argv ? args->argv : no_command;

    lcsb_script_options opts;
    if (script_options(args, paths, &opts) != 0) return LCSB_EXIT_USAGE;
    if (args->command == CLI_TRUST) return cmd_trust(args, &opts);
    /* From before the policy script, whose commands may leave something
     * running too. */
    if (cli_adopt_leftovers() != 0) {
        cli_say("cannot become the reaper of what the command leaves running: %s", strerror(errno));
        return LCSB_EXIT_USAGE;
    }
    lcsb_runner *runner = start_runner(args);
    opts.private_names = lcsb_runner_private_names(runner);
    if (lcsb_script_open(args->policy, argv, &opts, &script, &err)) {
        if (err.code == LCSB_ETIMEDOUT)
            cli_say("%s; LCSB_POLICY_TIMEOUT=SECONDS sets the budget (0: none)", err.message);
        else
            cli_say("%s", err.message);
        /* The signal, raised again once the script's directories were gone. */
        if (err.code == LCSB_EINTR && pending_signal) status = 128 + pending_signal;
        goto out;
    }
    if (lcsb_detect_for(&cap, paths->shim, lcsb_script_policy(script), args->backend, &err) ||
        select_backend(args, script, &cap, &b, &err)) {
        cli_say("%s", err.message);
        goto out;
    }
    const lcsb_policy *p = lcsb_script_policy(script);
    if (args->command == CLI_WRAP) {
        status = cmd_wrap(b, p, args);
        goto out;
    }
    if (args->command == CLI_CHECK) {
        status = run_check(args, &cap, b, p, argv, script);
        goto out;
    }
    /* Held from here until lcsb_run has the command's pid and relays them. */
    size_t n;
    const int *relayed = lcsb_relayed_signals(&n);
    sigset_t held;
    sigemptyset(&held);
    for (size_t i = 0; i < n; i++) sigaddset(&held, relayed[i]);
    sigprocmask(SIG_BLOCK, &held, NULL);
    if (pending_signal) {
        status = 128 + pending_signal;
        cli_say("interrupted by signal %d before the command started", (int)pending_signal);
        goto out;
    }
    lcsb_policy *learning = NULL;
    if (args->command == CLI_LEARN && lcsb_script_learning_policy(script, &learning, &err)) {
        cli_say("learn: lcsb learn lets every program run while it learns, and the caps refuse "
                "that: %s",
                err.message);
        goto out;
    }
    status = cmd_run(args, b, p, learning, script, runner);
    lcsb_policy_free(learning);
out:
    lcsb_backend_free(b);
    /* What the script's commands left running goes before its directories. */
    if (cli_end_leftovers() < 0)
        cli_say("warning: could not end what the policy script left running: %s", strerror(errno));
    if (lcsb_script_close(script, &err)) cli_say("warning: %s", err.message);
    /* After the script's directories: the guess it keeps names them on. */
    lcsb_runner_free(runner);
    return status;
}

/* The caller's stderr may be a pipe whose reader is gone: lcsb's own lines
 * there must not kill it before it runs the command or says its status. A
 * handler, not SIG_IGN, so that the command starts with SIGPIPE at its
 * default (an exec resets a handler); one the caller ignores stays so. */
static void on_broken_pipe(int sig) { (void)sig; }

static void survive_broken_pipes(void) {
    struct sigaction now, sa = {.sa_handler = on_broken_pipe};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPIPE, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
        sigaction(SIGPIPE, &sa, NULL);
}

int cli_main(int argc, char **argv) {
    cli_args args;
    char msg[512];
    int status;
    survive_broken_pipes();
    if (cli_parse(argc, argv, &args, msg, sizeof msg) != 0) {
        cli_say("%s", msg);
        fprintf(stderr, "%s", cli_usage);
        cli_args_free(&args);
        return LCSB_EXIT_USAGE;
    }
    /* Checked before lcsb opens anything itself: a descriptor that was not
     * open in the caller could otherwise turn out to be one of lcsb's own. */
    for (size_t i = 0; i < args.keep_fds_count; i++) {
        if (fcntl(args.keep_fds[i], F_GETFD) < 0) {
            cli_say("--keep-fd %d: that descriptor is not open", args.keep_fds[i]);
            cli_args_free(&args);
            return LCSB_EXIT_USAGE;
        }
    }
    cli_paths paths;
    cli_find_paths(&paths);
    switch (args.command) {
    case CLI_HELP:
        fputs(cli_usage, stdout);
        status = 0;
        break;
    case CLI_VERSION:
        printf("lcsb %s\n", LCSB_VERSION);
        status = 0;
        break;
    case CLI_DETECT: status = cmd_detect(&args, &paths); break;
    case CLI_CACHE: status = cli_cache(&args); break;
    case CLI_EXPLAIN: status = cmd_explain(&args, &paths); break;
    default:
        hold_signals();
        status = with_policy(&args, &paths);
        break;
    }
    cli_args_free(&args);
    return status;
}
