/*
 * bench-embedded: lcsb in a host program that compiles a policy once and runs
 * many commands under it (issue 28), through the public <lcsb.h> only (it
 * links the shared liblcsb, which exports nothing else).
 *
 *     bench-embedded [--runs N] [--prepare-calls K] [--after-each] [--plain] [--ahead] POLICY.lua
 *     bench-embedded --serve [--prepare-calls K] [--after-each] [--plain] [--ahead] POLICY.lua
 *
 * Once: the policy script run (lcsb_script_open, trust checked as the CLI
 * checks it), the host detected and a backend selected, the policy validated.
 * Then per command: lcsb_run of /bin/true with the options the CLI uses
 * (stderr captured, refusals recorded; --plain: neither, as a host that
 * wants no hints runs it), timed from the call to its return; with --ahead,
 * through one lcsb_runner instead, which makes each command's world while
 * the one before runs (or while the host does something else);
 * a command that does not exit 0 is an error, not a time. At the end, timed
 * apart: lcsb_prepare, which lcsb_run calls again for every command
 * (validate, compose, attest), in µs per call; lcsb_script_after_run once,
 * for all the commands (it is one per script: it lets go of what the policy
 * held, so --after-each, which calls it after every command as the CLI does
 * after its one, shows what that does to the commands after the first).
 *
 * Alone, it runs N commands (100 by default) and prints what it measured.
 * With --serve, bench drives it so that its commands take turns with the
 * other rows, over a socket on descriptor 3: it says "ready OPEN_MS
 * SELECT_MS VALIDATE_MS" (or "error WHY"), then reads one line per command
 * ("run") and answers "ok MS" or "error WHY"; when bench shuts its side, it
 * ends with "done PREPARE_US AFTER_RUN_MS". Its own stdout and stderr stay
 * the command's, as a host's would.
 */
#include <lcsb.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

#define COMMAND "/bin/true"
#define BATCHES 5

static const char *const command[] = {COMMAND, NULL};

struct host {
    lcsb_script *script;
    lcsb_backend *backend;
    const lcsb_policy *policy;
    bool after_each;
    bool plain; /* no stderr capture, no refusal records: a host that wants no hints */
    bool ahead_asked;
    lcsb_runner *runner; /* --ahead: each world made while the command before ran */
    double open_ms, select_ms, validate_ms;
};

/* The policy compiled, the backend chosen and the policy checked against it:
 * everything a host does once. 0, or -1 with ERR filled in. */
static int host_open(struct host *h, const char *path, lcsb_error *err) {
    lcsb_script_options opts;
    lcsb_script_options_init(&opts);
    opts.lua_dir = LCSB_BENCH_LUA_DIR;
    opts.shim = LCSB_BENCH_SHIM;
    lcsb_capability cap;
    double start = now_ms();
    if (lcsb_script_open(path, command, &opts, &h->script, err)) return -1;
    h->policy = lcsb_script_policy(h->script);
    h->open_ms = now_ms() - start;
    start = now_ms();
    if (lcsb_detect(&cap, LCSB_BENCH_SHIM, err) ||
        lcsb_backend_select(&cap, "auto", &h->backend, err))
        return -1;
    h->select_ms = now_ms() - start;
    start = now_ms();
    if (lcsb_backend_validate(h->backend, h->policy, err)) return -1;
    h->validate_ms = now_ms() - start;
    return 0;
}

/* One command: its wall time in *MS, or -1 with WHY. */
static int run_one(struct host *h, double *ms, char *why, size_t size) {
    lcsb_run_options opts;
    lcsb_run_result result;
    lcsb_error err = {0};
    lcsb_run_options_init(&opts);
    opts.capture_stderr = !h->plain;
    opts.record_refusals = !h->plain;
    if (h->ahead_asked && !h->runner &&
        lcsb_runner_new(h->backend, h->policy, &opts, &h->runner, &err)) {
        snprintf(why, size, "lcsb_runner_new: %s", err.message);
        return -1;
    }
    double start = now_ms();
    int rc = h->runner ? lcsb_runner_run(h->runner, command, &result, &err)
                       : lcsb_run(h->backend, h->policy, command, &opts, &result, &err);
    *ms = now_ms() - start;
    if (rc) {
        snprintf(why, size, "lcsb_run: %s", err.message);
        return -1;
    }
    if (result.status != 0) {
        snprintf(why, size, "%s exited %d%s%s", COMMAND, result.status,
                 result.setup_failed ? " (sandbox setup failed)" : "",
                 result.note[0] ? result.note : "");
        return -1;
    }
    if (h->after_each) lcsb_argv_free(lcsb_script_after_run(h->script));
    return 0;
}

/* µs per lcsb_prepare of the command: the median of BATCHES batches. */
static double prepare_us(const struct host *h, long calls) {
    double batch[BATCHES];
    long per = calls / BATCHES > 0 ? calls / BATCHES : 1;
    for (int b = 0; b < BATCHES; b++) {
        double start = now_ms();
        for (long i = 0; i < per; i++) {
            char **final = NULL;
            lcsb_attestation att;
            int rc = lcsb_prepare(h->backend, h->policy, NULL, command, &final, &att, NULL);
            lcsb_argv_free(final);
            if (rc) return NAN;
        }
        batch[b] = (now_ms() - start) * 1e3 / (double)per;
    }
    return median_of(batch, BATCHES);
}

/* What the host does once its commands are done. */
static double after_run_ms(struct host *h) {
    double start = now_ms();
    lcsb_argv_free(lcsb_script_after_run(h->script));
    return now_ms() - start;
}

static void host_close(struct host *h) {
    lcsb_error err = {0};
    lcsb_runner_free(h->runner);
    lcsb_backend_free(h->backend);
    if (lcsb_script_close(h->script, &err)) fprintf(stderr, "bench-embedded: %s\n", err.message);
}

/* A line to bench on the socket FD, its text on one line; false when bench
 * is gone. */
static bool answer(int fd, char *line) {
    size_t len = strlen(line);
    for (size_t i = 0; i + 1 < len; i++)
        if (line[i] == '\n') line[i] = ' ';
    while (len > 0) {
        ssize_t n = send(fd, line, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        line += n;
        len -= (size_t)n;
    }
    return true;
}

/* Commands while bench asks for them, one line each on descriptor 3. */
static int serve(struct host *h, long prepare_calls) {
    FILE *in = fdopen(fcntl(3, F_DUPFD_CLOEXEC, 0), "r");
    char line[64], out[1200], why[1100];
    if (!in) return 2;
    while (fgets(line, sizeof line, in)) {
        double ms;
        if (run_one(h, &ms, why, sizeof why) == 0)
            snprintf(out, sizeof out, "ok %.4f\n", ms);
        else
            snprintf(out, sizeof out, "error %s\n", why);
        if (!answer(3, out)) break;
    }
    fclose(in);
    double prep = prepare_us(h, prepare_calls);
    snprintf(out, sizeof out, "done %.4f %.4f\n", prep, after_run_ms(h));
    return answer(3, out) ? 0 : 2;
}

/* N commands, and what they took. */
static int run_alone(struct host *h, long runs, long prepare_calls) {
    double *ms = calloc((size_t)runs, sizeof *ms);
    char why[1100];
    if (!ms) return 2;
    for (long i = 0; i < runs; i++) {
        if (run_one(h, &ms[i], why, sizeof why)) {
            fprintf(stderr, "bench-embedded: command %ld: %s\n", i + 1, why);
            free(ms);
            return 1;
        }
    }
    double median = median_of(ms, (size_t)runs);
    printf("once: script %.3f ms, detect and select %.3f ms, validate %.3f ms\n", h->open_ms,
           h->select_ms, h->validate_ms);
    printf("%ld x %s(%s): median %.3f ms, min %.3f, max %.3f\n", runs,
           h->runner ? "lcsb_runner_run" : "lcsb_run", COMMAND, median, ms[0], ms[runs - 1]);
    printf("lcsb_prepare, again in every lcsb_run: %.1f us\n", prepare_us(h, prepare_calls));
    printf("lcsb_script_after_run, once: %.3f ms\n", after_run_ms(h));
    free(ms);
    return 0;
}

static long number(const char *s) {
    char *end;
    long n = strtol(s, &end, 10);
    return *end || n < 1 || n > 1000000 ? -1 : n;
}

int main(int argc, char **argv) {
    struct host h = {0};
    bool served = false;
    long runs = 100, prepare_calls = 1000;
    const char *policy = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--serve") == 0)
            served = true;
        else if (strcmp(argv[i], "--after-each") == 0)
            h.after_each = true;
        else if (strcmp(argv[i], "--plain") == 0)
            h.plain = true;
        else if (strcmp(argv[i], "--ahead") == 0)
            h.ahead_asked = true;
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = number(argv[++i]);
        else if (strcmp(argv[i], "--prepare-calls") == 0 && i + 1 < argc)
            prepare_calls = number(argv[++i]);
        else if (!policy && argv[i][0] != '-')
            policy = argv[i];
        else
            runs = -1;
    }
    if (!policy || runs < 0 || prepare_calls < 0) {
        fputs("usage: bench-embedded [--serve] [--runs N] [--prepare-calls K] [--after-each] "
              "[--plain] [--ahead] POLICY.lua\n",
              stderr);
        return 2;
    }
    /* The protocol's descriptor is the host's, never the command's. */
    if (served && fcntl(3, F_SETFD, FD_CLOEXEC)) {
        perror("bench-embedded: descriptor 3");
        return 2;
    }
    lcsb_error err = {0};
    int status;
    if (host_open(&h, policy, &err)) {
        char out[1200];
        snprintf(out, sizeof out, "error %s\n", err.message);
        if (served)
            answer(3, out);
        else
            fprintf(stderr, "bench-embedded: %s", out + 6);
        status = 1;
    } else if (served) {
        char out[128];
        snprintf(out, sizeof out, "ready %.4f %.4f %.4f\n", h.open_ms, h.select_ms, h.validate_ms);
        status = answer(3, out) ? serve(&h, prepare_calls) : 2;
    } else {
        status = run_alone(&h, runs, prepare_calls);
    }
    host_close(&h);
    return status;
}
