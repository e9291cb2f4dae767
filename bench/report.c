/*
 * The benchmark's report: what bench.c measured, as a table on stdout and as
 * JSON to --json FILE, with the same numbers in both, and the issues'
 * targets beside them. Nothing here measures; what was not measured is n/a in
 * the table and null in the JSON, never a number.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

/* ---- Derived numbers. ---- */

/* A over B, or NAN (printed n/a, written null) when either is missing: what
 * was not measured is never a number. */
static double ratio(double a, double b) { return a > 0 && b > 0 ? a / b : NAN; }

/* The scaling layouts, as the JSON and the table name them. */
static const char *const layout_name[LAYOUTS] = {"tools", "lone"};
static const char *const layout_text[LAYOUTS] = {"in directories of " TOOL_DIR_TEXT
                                                 " (an install's), all named",
                                                 "each alone in a directory of its own"};

/* (t(N) - t(first)) / (N - first) in µs, against the smallest policy. */
static double per_rule_step_us(const struct row *rows, size_t i) {
    if (i == 0 || rows[0].state != ROW_OK || rows[i].state != ROW_OK) return NAN;
    return (rows[i].median - rows[0].median) * 1e3 / (double)(rows[i].rules - rows[0].rules);
}

/* A minus B in ms, or NAN when either is missing. */
static double difference(double a, double b) { return a > 0 && b > 0 ? a - b : NAN; }

/* What net.domains adds to a run: the network namespace, the proxy's
 * socket handed over and its threads started and stopped. */
static double domains_ms(const struct row *m) {
    return difference(m[ROW_LCSB_DOMAINS].median, m[ROW_LCSB].median);
}

/* A download's rate as a share of the direct one's it is measured
 * against (plain HTTP's, or HTTPS's for the intercepted row), by curl's
 * clock. */
static double of_direct(const struct throughput *net, size_t i) {
    return ratio(net->t[i].median, net->t[net->t[i].of].median);
}

/* What lcsb p.lua cannot go below, as a share of bwrap: starting the CLI, then
 * the shim with a policy smaller than any exec_policy running the command. */
static double floor_ratio(const struct row *m) {
    return ratio(m[ROW_START].median + m[ROW_SHIM].median, m[ROW_BWRAP].median);
}

/* Issue 28's policies, each a warm row followed by its cold row. */
static const size_t issue28_warm[] = {ROW_MINIMAL, ROW_C, ROW_TOOLS};
#define ISSUE28_POLICIES (sizeof issue28_warm / sizeof *issue28_warm)

/* Whether any row saw a plans directory: until the plan cache exists, cold
 * is warm, and the table says so. */
static bool plans_seen(const struct row *m) {
    for (size_t i = 0; i < MAIN_ROWS; i++)
        if (m[i].plans.seen) return true;
    return false;
}

/* The rows that are lcsb running the command, or starting: each gets its
 * ratio to bwrap as agents configure it in the JSON's ratios too (lcsb p.lua
 * has it already, as "lcsb/bwrap"). */
static bool is_lcsb(size_t i) {
    return i != ROW_BARE && i != ROW_LCSB && i != ROW_BWRAP && i != ROW_FIREJAIL && i != ROW_PODMAN;
}

/* ---- The targets. ---- */

#define TARGETS_MAX 24

/* What the issues ask for, shown next to what was measured; never asserted. */
struct target {
    const char *what;
    double value, limit;
    bool at_least; /* met at LIMIT or above, not at or below */
};

static const char *met(const struct target *t) {
    if (isnan(t->value)) return NULL;
    return (t->at_least ? t->value >= t->limit : t->value <= t->limit) ? "met" : "not met";
}

static struct target at_most(const char *what, double value, double limit) {
    return (struct target){what, value, limit, false};
}

static struct target at_least(const char *what, double value, double limit) {
    return (struct target){what, value, limit, true};
}

static size_t targets(const struct results *r, struct target *out) {
    const struct row *m = r->main;
    size_t n = 0;
    out[n++] = at_most("lcsb / bwrap", ratio(m[ROW_LCSB].median, m[ROW_BWRAP].median), 0.5);
    out[n++] = at_most("shim / bare", ratio(m[ROW_SHIM].median, m[ROW_BARE].median), 1.8);
    /* Issue 16's, with a world of its own: no slower than bwrap as agents
     * configure it, the shim within twice a bare exec. */
    out[n++] = at_most("lcsb / bwrap, world", ratio(m[ROW_LCSB].median, m[ROW_BWRAP].median), 1.0);
    out[n++] = at_most("lcsb tmpfs / bwrap, world",
                       ratio(m[ROW_LCSB_TMPFS].median, m[ROW_BWRAP].median), 1.0);
    out[n++] = at_most("shim / bare, world", ratio(m[ROW_SHIM].median, m[ROW_BARE].median), 2.0);
    /* Issue 28's: a path outside every tree the policy reads, as an
     * install's files lie. */
    out[n++] = at_most("us per path rule", r->fit_us[LAYOUT_TOOLS], 6);
    /* Issue 28's too: a host that prepares a policy once and runs many
     * commands pays the shim alone for each. */
    out[n++] = at_most("prepared / bwrap", ratio(m[ROW_PREPARED].median, m[ROW_BWRAP].median), 0.5);
    /* Issue 28's "Done when": real policies warm (the plan cache kept) and
     * cold, a host that compiles once, and lcsb's own system calls. */
    out[n++] =
        at_most("minimal, warm / bwrap", ratio(m[ROW_MINIMAL].median, m[ROW_BWRAP].median), 0.8);
    out[n++] = at_most("c, warm / bwrap", ratio(m[ROW_C].median, m[ROW_BWRAP].median), 1.0);
    out[n++] =
        at_most("sh+git+py, warm / bwrap", ratio(m[ROW_TOOLS].median, m[ROW_BWRAP].median), 1.0);
    out[n++] = at_most("sh+git+py, cold / bwrap",
                       ratio(m[ROW_TOOLS_COLD].median, m[ROW_BWRAP].median), 2.0);
    out[n++] = at_most("embedded, per run / bwrap",
                       ratio(m[ROW_EMBEDDED].median, m[ROW_BWRAP].median), 0.5);
    out[n++] = at_most("embedded, runner / bwrap",
                       ratio(m[ROW_EMBEDDED_AHEAD].median, m[ROW_BWRAP].median), 0.5);
    out[n++] =
        at_most("sh+git+py, warm syscalls",
                m[ROW_TOOLS].sys.state == ROW_OK ? (double)m[ROW_TOOLS].sys.total : NAN, 500);
    out[n++] = at_most("wrap, 100 rules (us)", r->wrap.median_us, 20);
    out[n++] = at_most("lcsb peak RSS (MiB)",
                       m[ROW_LCSB].peak_rss_kib > 0 ? m[ROW_LCSB].peak_rss_kib / 1024.0 : NAN, 8);
    /* The network by name's: a run with domains at most 1 ms over one
     * without, a 100 MB download through the proxy at 80% of a direct one
     * (an https download takes the CONNECT path). */
    out[n++] = at_most("domains - lcsb (ms)", domains_ms(m), 1.0);
    out[n++] = at_least("proxy / direct", of_direct(r->net, TRANSFER_PROXY), 0.8);
    out[n++] = at_least("CONNECT / direct", of_direct(r->net, TRANSFER_TUNNEL), 0.8);
    return n;
}

/* ---- The table. ---- */

static const char *state_name(enum row_state s) {
    return s == ROW_OK ? "ok" : s == ROW_SKIPPED ? "skipped" : "failed";
}

/* A number WIDTH wide (0: as wide as it is), or n/a for what was not measured. */
static void print_value(double v, int width) {
    if (isnan(v))
        printf(" %*s", width, "n/a");
    else
        printf(" %*.2f", width, v);
}

/* One row: its times and peak RSS, then LAST (x bare, or µs per rule), then
 * ALSO when there is a second ratio to show (x bwrap): NULL when not. */
static void print_row(const struct row *row, double last, const double *also) {
    printf("  %-20s", row->label);
    if (row->state != ROW_OK) {
        printf(" %s: %s\n", state_name(row->state), row->note);
        return;
    }
    printf(" %9.3f %9.3f %9.3f", row->median, row->min, row->max);
    if (row->peak_rss_kib > 0)
        printf(" %9ld", row->peak_rss_kib);
    else
        printf(" %9s", "n/a");
    print_value(last, 9);
    if (also) print_value(*also, 9);
    printf("\n");
}

static void print_header(const char *first, const char *last, const char *also) {
    printf("  %-20s %9s %9s %9s %9s %9s", first, "median ms", "min ms", "max ms", "RSS KiB", last);
    if (also) printf(" %9s", also);
    printf("\n");
}

static void print_transfer(const struct transfer *t, double of_direct) {
    printf("  %-22s", t->label);
    if (t->state != ROW_OK) {
        printf(" %s: %s\n", state_name(t->state), t->note);
        return;
    }
    printf(" %9.1f %9.1f %9.1f %9.1f", t->median, t->min, t->max, t->wall_median);
    print_value(of_direct, 9);
    printf("\n");
}

static void print_throughput(const struct results *r) {
    const struct throughput *net = r->net;
    printf("\n\nthroughput: curl downloading %lld MiB from the bench's HTTP server, ",
           TRANSFER_BYTES >> 20);
    if (!net->host[0]) {
        printf("not measured: %s", net->note);
        return;
    }
    printf(
        "http://%s:%d/ (and its HTTPS twin, port %d),\n%d rounds after 1 warm-up, in turns; MB/s "
        "(10^6 bytes) by curl's clock\n(its time_total), wall: spawn to exit, lcsb's start and the "
        "network's set-up too;\nthe intercepted row against the direct HTTPS one\n",
        net->host, net->port, net->tls_port, r->cfg->transfer_runs);
    printf("  %-22s %9s %9s %9s %9s %9s\n", "download", "median", "min", "max", "wall", "x direct");
    for (size_t i = 0; i < TRANSFERS; i++) print_transfer(&net->t[i], of_direct(net, i));
}

/* The warm and cold rows side by side, the embedded host's per run, and
 * what its runs leave out: the once-only work, and the work lcsb_run redoes. */
static void print_issue28(const struct results *r) {
    const struct row *m = r->main;
    const struct served *h = r->embedded;
    double bwrap = m[ROW_BWRAP].median;
    printf("\n\ncompile once, run many (issue 28): lcsb POLICY -- %s, warm (the plan cache\n"
           "kept) and cold (emptied before each run, untimed); x bwrap as agents configure it.\n"
           "plans directory: ",
           COMMAND);
    printf("%s\n",
           plans_seen(m) ? "seen" : "not seen (no plan cache here yet: cold runs what warm runs)");
    for (size_t i = 0; plans_seen(m) && i < ISSUE28_POLICIES; i++) {
        const struct row *warm = &m[issue28_warm[i]], *cold = warm + 1;
        printf("    %-12s warm holds %ld entries, cold removed %ld before %ld runs\n",
               warm->label + strlen("lcsb "), warm->plans.entries, cold->plans.removed,
               cold->plans.emptied);
    }
    printf("  %-20s %9s %9s %9s %9s %9s\n", "policy", "warm ms", "cold ms", "cold-warm",
           "warm x bw", "cold x bw");
    for (size_t i = 0; i < ISSUE28_POLICIES; i++) {
        const struct row *warm = &m[issue28_warm[i]], *cold = warm + 1;
        printf("  %-20s", warm->label + strlen("lcsb "));
        print_value(warm->state == ROW_OK ? warm->median : NAN, 9);
        print_value(cold->state == ROW_OK ? cold->median : NAN, 9);
        print_value(difference(cold->median, warm->median), 9);
        print_value(ratio(warm->median, bwrap), 9);
        print_value(ratio(cold->median, bwrap), 9);
        printf("\n");
    }
    const struct row *e = &m[ROW_EMBEDDED];
    printf("  embedded host, per lcsb_run:");
    if (e->state != ROW_OK) {
        printf(" %s: %s\n", state_name(e->state), e->note);
        return;
    }
    printf(" %.3f ms, x bwrap", e->median);
    print_value(ratio(e->median, bwrap), 0);
    printf("; once: script %.3f ms, detect+select %.3f, validate %.3f\n", h->open_ms, h->select_ms,
           h->validate_ms);
    printf("  lcsb_prepare, which every lcsb_run does again (us):");
    print_value(h->done ? h->prepare_us : NAN, 0);
    printf("   lcsb_script_after_run, once (ms):");
    print_value(h->done ? h->after_run_ms : NAN, 0);
    const struct row *a = &m[ROW_EMBEDDED_AHEAD];
    printf("\n  embedded host, per lcsb_runner_run (each world made while the one before ran):");
    if (a->state != ROW_OK)
        printf(" %s: %s", state_name(a->state), a->note);
    else
        printf(" %.3f ms, x bwrap", a->median);
    if (a->state == ROW_OK) print_value(ratio(a->median, bwrap), 0);
    printf("\n");
}

static void print_syscalls(const struct results *r) {
    const struct row *m = r->main;
    printf("\n\nsystem calls per run in lcsb's own process (strace -c, no -f: not the shim's\n"
           "nor the command's), warm unless cold; %d run%s each, the median run's calls%s%s:\n",
           r->cfg->syscall_runs, r->cfg->syscall_runs == 1 ? "" : "s", r->strace[0] ? "; " : "",
           r->strace);
    printf("  %-20s %7s %7s %13s  %s\n", "row", "calls", "errors", "min-max", "most frequent");
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        const struct syscalls *sys = &m[i].sys;
        if (!m[i].count_syscalls) continue;
        printf("  %-20s", m[i].label);
        if (sys->state != ROW_OK) {
            printf(" %s: %s\n", state_name(sys->state), sys->note);
            continue;
        }
        char range[32];
        snprintf(range, sizeof range, "%ld-%ld", sys->min_total, sys->max_total);
        printf(" %7ld %7ld %13s ", sys->total, sys->errors, range);
        for (size_t k = 0; k < sys->ntop; k++)
            printf(" %s %ld%s", sys->top[k].name, sys->top[k].calls, k + 1 < sys->ntop ? "," : "");
        printf("\n");
    }
}

static void print_table(const struct results *r, const char *kernel, const char *cpu) {
    const struct config *cfg = r->cfg;
    const struct row *m = r->main;
    printf("lcsb bench: %s, %ld CPUs (%s), Landlock ABI %d\n", kernel,
           sysconf(_SC_NPROCESSORS_ONLN), cpu, r->abi);
    printf("%s interleaved, %d rounds after %d warm-up%s; firejail and podman take their turns\n"
           "after the others, their x bare against bare's median from the first pass\n\n",
           COMMAND, cfg->iterations, cfg->warmup, cfg->quick ? " (quick mode)" : "");
    print_header("row", "x bare", "x bwrap");
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        double of_bwrap = ratio(m[i].median, m[ROW_BWRAP].median);
        print_row(&m[i], ratio(m[i].median, m[ROW_BARE].median), &of_bwrap);
    }
    printf("  lcsb / bwrap");
    print_value(ratio(m[ROW_LCSB].median, m[ROW_BWRAP].median), 0);
    printf("    prepared / bwrap");
    print_value(ratio(m[ROW_PREPARED].median, m[ROW_BWRAP].median), 0);
    printf("    shim / bare");
    print_value(ratio(m[ROW_SHIM].median, m[ROW_BARE].median), 0);
    printf("\n  floor, (lcsb --version + shim) / bwrap");
    print_value(floor_ratio(m), 0);
    printf("\n  domains - lcsb (ms)");
    print_value(domains_ms(m), 0);
    print_issue28(r);

    for (size_t l = 0; l < LAYOUTS; l++) {
        const struct row *s = r->scaling[l];
        printf("\n\nshim alone by policy size, %d rounds (us/rule against the smallest),\n"
               "its files outside /usr and /etc, %s:\n",
               cfg->scaling_iterations, layout_text[l]);
        print_header("rules", "us/rule", NULL);
        for (size_t i = 0; i < cfg->scaling_n; i++) print_row(&s[i], per_rule_step_us(s, i), NULL);
        printf("  per rule, least-squares fit (us):");
        print_value(r->fit_us[l], 0);
    }

    printf("\n\nmicro-benchmarks, us per call (median of %d batches, %ld calls):\n", MICRO_BATCHES,
           cfg->micro_calls);
    printf("  lcsb_backend_wrap, %d rules: ", MICRO_RULES);
    print_value(r->wrap.median_us, 0);
    printf("\n  build a %d-rule policy:      ", MICRO_RULES);
    print_value(r->build.median_us, 0);

    print_syscalls(r);
    print_throughput(r);

    struct target t[TARGETS_MAX];
    size_t nt = targets(r, t);
    printf("\n\ntargets (reported, not asserted):\n");
    for (size_t i = 0; i < nt; i++) {
        printf("  %-26s", t[i].what);
        print_value(t[i].value, 9);
        printf("  %s %-5g %s\n", t[i].at_least ? ">=" : "<=", t[i].limit,
               met(&t[i]) ? met(&t[i]) : "n/a");
    }
}

/* ---- JSON. ---- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A measured number, or null for what was not measured. */
static void json_num(FILE *f, double v) {
    if (isnan(v))
        fputs("null", f);
    else
        fprintf(f, "%.4f", v);
}

/* What a row saw of its plan cache, when it has a state directory of its own. */
static void json_plans(FILE *f, const struct row *row) {
    fprintf(f, ",\"cold\":%s,\"plans\":{\"seen\":%s,\"entries\":%ld", row->cold ? "true" : "false",
            row->plans.seen ? "true" : "false", row->plans.entries);
    if (row->cold)
        fprintf(f, ",\"removed\":%ld,\"emptied_runs\":%ld", row->plans.removed, row->plans.emptied);
    fputs("}", f);
}

static void json_syscalls(FILE *f, const struct syscalls *sys) {
    fprintf(f, ",\"syscalls\":{\"status\":\"%s\"", state_name(sys->state));
    if (sys->state != ROW_OK) {
        fputs(",\"note\":", f);
        json_str(f, sys->note);
    } else {
        fprintf(f, ",\"runs\":%d,\"total\":%ld,\"errors\":%ld,\"min_total\":%ld,\"max_total\":%ld",
                sys->runs, sys->total, sys->errors, sys->min_total, sys->max_total);
        fputs(",\"top\":[", f);
        for (size_t k = 0; k < sys->ntop; k++) {
            fputs(k ? ",{\"name\":" : "{\"name\":", f);
            json_str(f, sys->top[k].name);
            fprintf(f, ",\"calls\":%ld}", sys->top[k].calls);
        }
        fputs("]", f);
    }
    fputs("}", f);
}

/* A row, LAST under LAST_KEY, and ALSO under ALSO_KEY when that is not NULL. */
static void json_row(FILE *f, const struct row *row, const char *last_key, double last,
                     const char *also_key, double also) {
    fputs("{\"name\":", f);
    json_str(f, row->name);
    if (row->rules) fprintf(f, ",\"rules\":%ld", row->rules);
    fprintf(f, ",\"status\":\"%s\"", state_name(row->state));
    if (row->state != ROW_OK) {
        fputs(",\"note\":", f);
        json_str(f, row->note);
    } else {
        fprintf(f,
                ",\"runs\":%zu,\"median_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f,"
                "\"peak_rss_kib\":",
                row->runs, row->median, row->min, row->max);
        if (row->peak_rss_kib > 0)
            fprintf(f, "%ld", row->peak_rss_kib);
        else
            fputs("null", f);
        fprintf(f, ",\"%s\":", last_key);
        json_num(f, last);
        if (also_key) {
            fprintf(f, ",\"%s\":", also_key);
            json_num(f, also);
        }
    }
    if (row->state_var) json_plans(f, row);
    if (row->count_syscalls) json_syscalls(f, &row->sys);
    fputs("}", f);
}

/* Issue 28's summary: each policy warm and cold against bwrap, the
 * embedded host, whether any plan cache was seen, how syscalls were counted. */
static void json_issue28(FILE *f, const struct results *r) {
    const struct row *m = r->main;
    const struct served *h = r->embedded;
    const struct row *e = &m[ROW_EMBEDDED];
    double bwrap = m[ROW_BWRAP].median;
    fprintf(f, "{\"plans_dir_seen\":%s,\n  \"policies\":[", plans_seen(m) ? "true" : "false");
    for (size_t i = 0; i < ISSUE28_POLICIES; i++) {
        const struct row *warm = &m[issue28_warm[i]], *cold = warm + 1;
        fputs(i ? ",\n    {\"name\":" : "\n    {\"name\":", f);
        json_str(f, warm->name);
        fputs(",\"warm_ms\":", f);
        json_num(f, warm->state == ROW_OK ? warm->median : NAN);
        fputs(",\"cold_ms\":", f);
        json_num(f, cold->state == ROW_OK ? cold->median : NAN);
        fputs(",\"cold-warm_ms\":", f);
        json_num(f, difference(cold->median, warm->median));
        fputs(",\"warm/bwrap\":", f);
        json_num(f, ratio(warm->median, bwrap));
        fputs(",\"cold/bwrap\":", f);
        json_num(f, ratio(cold->median, bwrap));
        fputs(",\"warm/bare\":", f);
        json_num(f, ratio(warm->median, m[ROW_BARE].median));
        fputs("}", f);
    }
    fputs("],\n  \"embedded\":{\"policy\":\"minimal\",\"median_ms\":", f);
    bool ok = e->state == ROW_OK;
    json_num(f, ok ? e->median : NAN);
    fputs(",\"embedded/bwrap\":", f);
    json_num(f, ratio(e->median, bwrap));
    fputs(",\"embedded/bare\":", f);
    json_num(f, ratio(e->median, m[ROW_BARE].median));
    fputs(",\"once\":{\"script_open_ms\":", f);
    json_num(f, ok ? h->open_ms : NAN);
    fputs(",\"detect_select_ms\":", f);
    json_num(f, ok ? h->select_ms : NAN);
    fputs(",\"validate_ms\":", f);
    json_num(f, ok ? h->validate_ms : NAN);
    fputs("},\"prepare_us_per_run\":", f);
    json_num(f, ok && h->done ? h->prepare_us : NAN);
    fputs(",\"after_run_ms_once\":", f);
    json_num(f, ok && h->done ? h->after_run_ms : NAN);
    const struct row *a = &m[ROW_EMBEDDED_AHEAD];
    fputs("},\n  \"embedded_runner\":{\"policy\":\"minimal\",\"median_ms\":", f);
    json_num(f, a->state == ROW_OK ? a->median : NAN);
    fputs(",\"embedded_runner/bwrap\":", f);
    json_num(f, ratio(a->median, bwrap));
    fputs("},\n  \"syscalls\":{\"how\":\"strace -c -S calls, without -f: lcsb's own process\","
          "\"strace\":",
          f);
    if (r->strace[0])
        json_str(f, r->strace);
    else
        fputs("null", f);
    fprintf(f, ",\"runs\":%d}}", r->cfg->syscall_runs);
}

static void json_micro(FILE *f, const char *name, struct micro m) {
    fprintf(f, "\"%s\":{\"median_us\":", name);
    json_num(f, m.median_us);
    fputs(",\"min_us\":", f);
    json_num(f, m.min_us);
    fputs("}", f);
}

static void json_transfer(FILE *f, const struct transfer *t, double of_direct) {
    fputs("{\"name\":", f);
    json_str(f, t->name);
    fprintf(f, ",\"status\":\"%s\"", state_name(t->state));
    if (t->state != ROW_OK) {
        fputs(",\"note\":", f);
        json_str(f, t->note);
    } else {
        fprintf(f,
                ",\"runs\":%zu,\"median_mbs\":%.2f,\"min_mbs\":%.2f,\"max_mbs\":%.2f,"
                "\"wall_median_mbs\":%.2f,\"ratio_to_direct\":",
                t->runs, t->median, t->min, t->max, t->wall_median);
        json_num(f, of_direct);
    }
    fputs("}", f);
}

/* The downloads, or why there were none. */
static void json_throughput(FILE *f, const struct results *r) {
    const struct throughput *net = r->net;
    fprintf(f, "{\"bytes\":%lld,\"clock\":\"curl time_total\",\"runs\":%d,\"url\":", TRANSFER_BYTES,
            r->cfg->transfer_runs);
    if (net->host[0]) {
        char url[300];
        snprintf(url, sizeof url, "http://%s:%d/", net->host, net->port);
        json_str(f, url);
    } else {
        fputs("null,\"note\":", f);
        json_str(f, net->note);
    }
    fputs(",\n  \"transfers\":[", f);
    for (size_t i = 0; i < TRANSFERS; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_transfer(f, &net->t[i], of_direct(net, i));
    }
    fputs("],\n  \"proxy/direct\":", f);
    json_num(f, of_direct(net, TRANSFER_PROXY));
    fputs(",\"tunnel/direct\":", f);
    json_num(f, of_direct(net, TRANSFER_TUNNEL));
    fputs(",\"judged/direct\":", f);
    json_num(f, of_direct(net, TRANSFER_JUDGED));
    fputs(",\"intercepted/direct_tls\":", f);
    json_num(f, of_direct(net, TRANSFER_INTERCEPTED));
    fputs("}", f);
}

static bool write_json(const char *path, const struct results *r, const char *kernel,
                       const char *cpu) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    const struct config *cfg = r->cfg;
    const struct row *m = r->main;
    fputs("{\"machine\":{\"kernel\":", f);
    json_str(f, kernel);
    fputs(",\"cpu\":", f);
    json_str(f, cpu);
    fprintf(f, ",\"cpus\":%ld,\"landlock_abi\":%d},\n", sysconf(_SC_NPROCESSORS_ONLN), r->abi);
    fprintf(f,
            "\"config\":{\"command\":\"%s\",\"quick\":%s,\"iterations\":%d,\"warmup\":%d,"
            "\"scaling_iterations\":%d,\"micro_calls\":%ld,\"shim_rules\":%d,"
            "\"syscall_runs\":%d,\"prepare_calls\":%ld},\n",
            COMMAND, cfg->quick ? "true" : "false", cfg->iterations, cfg->warmup,
            cfg->scaling_iterations, cfg->micro_calls, MAIN_RULES, cfg->syscall_runs,
            cfg->prepare_calls);
    fputs("\"rows\":[", f);
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        json_row(f, &m[i], "ratio_to_bare", ratio(m[i].median, m[ROW_BARE].median),
                 "ratio_to_bwrap", ratio(m[i].median, m[ROW_BWRAP].median));
    }
    fputs("],\n\"ratios\":{\"lcsb/bwrap\":", f);
    json_num(f, ratio(m[ROW_LCSB].median, m[ROW_BWRAP].median));
    fputs(",\"shim_prepared/bwrap\":", f);
    json_num(f, ratio(m[ROW_PREPARED].median, m[ROW_BWRAP].median));
    fputs(",\"floor/bwrap\":", f);
    json_num(f, floor_ratio(m));
    for (size_t i = 1; i < MAIN_ROWS; i++) {
        fprintf(f, ",\"%s/bare\":", m[i].name);
        json_num(f, ratio(m[i].median, m[ROW_BARE].median));
    }
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        if (!is_lcsb(i)) continue;
        fprintf(f, ",\"%s/bwrap\":", m[i].name);
        json_num(f, ratio(m[i].median, m[ROW_BWRAP].median));
    }
    fputs("},\n\"differences_ms\":{\"lcsb_domains-lcsb\":", f);
    json_num(f, domains_ms(m));
    fputs("},\n\"issue28\":", f);
    json_issue28(f, r);
    fputs(",\n\"throughput\":", f);
    json_throughput(f, r);
    /* "scaling" is the layout the target weighs; each other has a key of its own. */
    for (size_t l = 0; l < LAYOUTS; l++) {
        const struct row *s = r->scaling[l];
        fprintf(f, ",\n\"scaling%s%s\":{\"layout\":\"%s\",\"points\":[", l ? "_" : "",
                l ? layout_name[l] : "", layout_name[l]);
        for (size_t i = 0; i < cfg->scaling_n; i++) {
            fputs(i ? ",\n  " : "\n  ", f);
            json_row(f, &s[i], "per_rule_us", per_rule_step_us(s, i), NULL, NAN);
        }
        fputs("],\n  \"per_rule_us_fit\":", f);
        json_num(f, r->fit_us[l]);
        fputs("}", f);
    }
    fputs(",\n\"micro\":{", f);
    json_micro(f, "wrap_100_rules", r->wrap);
    fputs(",", f);
    json_micro(f, "build_100_rule_policy", r->build);
    fputs("},\n\"targets\":[", f);
    struct target t[TARGETS_MAX];
    size_t nt = targets(r, t);
    for (size_t i = 0; i < nt; i++) {
        fputs(i ? ",\n  {\"what\":" : "\n  {\"what\":", f);
        json_str(f, t[i].what);
        fputs(",\"value\":", f);
        json_num(f, t[i].value);
        fprintf(f, ",\"limit\":%g,\"at_least\":%s,\"met\":%s}", t[i].limit,
                t[i].at_least ? "true" : "false",
                !met(&t[i])                      ? "null"
                : strcmp(met(&t[i]), "met") == 0 ? "true"
                                                 : "false");
    }
    fputs("]}\n", f);
    return fclose(f) == 0;
}

/* ---- The machine, and the report of it all. ---- */

static void cpu_model(char *out, size_t size) {
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, size, "%s", colon + 2);
            break;
        }
    }
    if (f) fclose(f);
}

/* The machine is read once, so that the table and the JSON name the same. */
void report(const struct results *r) {
    char cpu[128];
    struct utsname un;
    cpu_model(cpu, sizeof cpu);
    const char *kernel = uname(&un) == 0 ? un.release : "unknown";
    print_table(r, kernel, cpu);
    if (r->cfg->json_path && !write_json(r->cfg->json_path, r, kernel, cpu))
        fprintf(stderr, "bench: cannot write %s: %s\n", r->cfg->json_path, strerror(errno));
}
