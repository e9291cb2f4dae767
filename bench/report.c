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

/* A download's rate as a share of the direct one's, by curl's clock. */
static double of_direct(const struct throughput *net, size_t i) {
    return ratio(net->t[i].median, net->t[TRANSFER_DIRECT].median);
}

/* What lcsb p.lua cannot go below, as a share of bwrap: starting the CLI, then
 * the shim with a policy smaller than any exec_policy running the command. */
static double floor_ratio(const struct row *m) {
    return ratio(m[ROW_START].median + m[ROW_SHIM].median, m[ROW_BWRAP].median);
}

/* ---- The targets. ---- */

#define TARGETS_MAX 16

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

/* One row: its times and peak RSS, then LAST (x bare, or µs per rule). */
static void print_row(const struct row *row, double last) {
    printf("  %-16s", row->label);
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
    printf("\n");
}

static void print_header(const char *first, const char *last) {
    printf("  %-16s %9s %9s %9s %9s %9s\n", first, "median ms", "min ms", "max ms", "RSS KiB",
           last);
}

static void print_transfer(const struct transfer *t, double of_direct) {
    printf("  %-16s", t->label);
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
        "http://%s:%d/,\n%d rounds after 1 warm-up, in turns; MB/s (10^6 bytes) by curl's clock\n"
        "(its time_total), wall: spawn to exit, lcsb's start and the network's set-up too\n",
        net->host, net->port, r->cfg->transfer_runs);
    printf("  %-16s %9s %9s %9s %9s %9s\n", "download", "median", "min", "max", "wall", "x direct");
    for (size_t i = 0; i < TRANSFERS; i++) print_transfer(&net->t[i], of_direct(net, i));
}

static void print_table(const struct results *r, const char *kernel, const char *cpu) {
    const struct config *cfg = r->cfg;
    const struct row *m = r->main;
    printf("lcsb bench: %s, %ld CPUs (%s), Landlock ABI %d\n", kernel,
           sysconf(_SC_NPROCESSORS_ONLN), cpu, r->abi);
    printf("%s interleaved, %d rounds after %d warm-up%s; firejail and podman take their turns\n"
           "after the others, their x bare against bare's median from the first pass\n\n",
           COMMAND, cfg->iterations, cfg->warmup, cfg->quick ? " (quick mode)" : "");
    print_header("row", "x bare");
    for (size_t i = 0; i < MAIN_ROWS; i++) print_row(&m[i], ratio(m[i].median, m[ROW_BARE].median));
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

    for (size_t l = 0; l < LAYOUTS; l++) {
        const struct row *s = r->scaling[l];
        printf("\n\nshim alone by policy size, %d rounds (us/rule against the smallest),\n"
               "its files outside /usr and /etc, %s:\n",
               cfg->scaling_iterations, layout_text[l]);
        print_header("rules", "us/rule");
        for (size_t i = 0; i < cfg->scaling_n; i++) print_row(&s[i], per_rule_step_us(s, i));
        printf("  per rule, least-squares fit (us):");
        print_value(r->fit_us[l], 0);
    }

    printf("\n\nmicro-benchmarks, us per call (median of %d batches, %ld calls):\n", MICRO_BATCHES,
           cfg->micro_calls);
    printf("  lcsb_backend_wrap, %d rules: ", MICRO_RULES);
    print_value(r->wrap.median_us, 0);
    printf("\n  build a %d-rule policy:      ", MICRO_RULES);
    print_value(r->build.median_us, 0);

    print_throughput(r);

    struct target t[TARGETS_MAX];
    size_t nt = targets(r, t);
    printf("\n\ntargets (reported, not asserted):\n");
    for (size_t i = 0; i < nt; i++) {
        printf("  %-22s", t[i].what);
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

static void json_row(FILE *f, const struct row *row, const char *last_key, double last) {
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
    }
    fputs("}", f);
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
            "\"scaling_iterations\":%d,\"micro_calls\":%ld,\"shim_rules\":%d},\n",
            COMMAND, cfg->quick ? "true" : "false", cfg->iterations, cfg->warmup,
            cfg->scaling_iterations, cfg->micro_calls, MAIN_RULES);
    fputs("\"rows\":[", f);
    for (size_t i = 0; i < MAIN_ROWS; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        json_row(f, &m[i], "ratio_to_bare", ratio(m[i].median, m[ROW_BARE].median));
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
    fputs("},\n\"differences_ms\":{\"lcsb_domains-lcsb\":", f);
    json_num(f, domains_ms(m));
    fputs("},\n\"throughput\":", f);
    json_throughput(f, r);
    /* "scaling" is the layout the target weighs; each other has a key of its own. */
    for (size_t l = 0; l < LAYOUTS; l++) {
        const struct row *s = r->scaling[l];
        fprintf(f, ",\n\"scaling%s%s\":{\"layout\":\"%s\",\"points\":[", l ? "_" : "",
                l ? layout_name[l] : "", layout_name[l]);
        for (size_t i = 0; i < cfg->scaling_n; i++) {
            fputs(i ? ",\n  " : "\n  ", f);
            json_row(f, &s[i], "per_rule_us", per_rule_step_us(s, i));
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
