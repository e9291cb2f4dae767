/* What the recorder (shim/record.c) reports, read against the policy. Each
 * record is a line "OP\tERRNO\tPID\tPROGRAM\tTARGET\n" with PROGRAM and
 * TARGET %XX-escaped (docs/wire-format.md). The recorder notes every call
 * that failed the way a refusal fails; most such failures are the
 * command's own business (a file's permissions, a search along PATH or an
 * include path in a world where the path does not exist). A refusal is
 * kept only when the policy explains it: a path outside the tier the
 * operation needs, that exists on the host. The command writes to the same
 * pipe and can say anything: what is kept here words hints, and nothing
 * else.
 *
 * The shim's init writes "exec_seen" records on the same pipe: every path a
 * process of the command asked to execute, static programs' too, seen
 * before the kernel decided (shim/execseen.c). One the exec tier does not
 * hold is what Landlock refuses, so it is kept as a refused exec; but it
 * was only asked for, so it counts only when the run failed, or when the
 * recorder reports the same refusal. */
#include "refusals.h"

#include "path.h"
#include "sys.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Longer lines are no record (the recorder writes at most PIPE_BUF). */
#define LINE_MAX_BYTES 4096
/* Distinct records looked at on the host, at most: a command that floods
 * the pipe costs lcsb this many lookups and no more. The table of those
 * looked at is made at the first record (most runs have none, and it was
 * most of what a run's refusals cost to set up), twice as large as it can
 * get, so a probe stays short. */
#define LOOKUPS_MAX 1024
#define SEEN_SLOTS (2 * LOOKUPS_MAX)
/* And this much time in all: a path the command made slow to resolve (a
 * long chain of symlinks) costs lcsb no more than that. */
#define LOOKUPS_MS_MAX 500

struct lcsb__refusals {
    const lcsb_policy *policy;
    const char *home;        /* the private HOME, or NULL */
    struct timespec started; /* before the world's grants were made (the file clock's) */
    char line[LINE_MAX_BYTES + 1];
    size_t line_len;
    bool overlong;  /* the line being read is past LINE_MAX_BYTES: skip it */
    uint64_t *seen; /* SEEN_SLOTS hashes of records looked at, 0 empty; NULL until one */
    size_t lookups;
    int64_t lookup_ms; /* spent on lookups so far */
    lcsb_refusal kept[LCSB_REFUSALS_MAX];
    size_t kept_n, total;
    /* Execs only seen asked for (exec_seen), apart: they count only in a
     * run that failed, and the attestation's list must stay whole without
     * them. */
    lcsb_refusal asked[LCSB_REFUSALS_MAX];
    size_t asked_n, asked_total;
};

lcsb__refusals *lcsb__refusals_new(const lcsb_policy *policy) {
    lcsb__refusals *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->policy = policy;
    /* The clock files' times come from: a coarse one, a tick behind. */
    clock_gettime(CLOCK_REALTIME_COARSE, &r->started);
    for (size_t i = 0; i < policy->env_n; i++)
        if (strcmp(policy->env[i].name, "HOME") == 0 && policy->env[i].value &&
            policy->env[i].value[0] == '/')
            r->home = policy->env[i].value;
    return r;
}

void lcsb__refusals_free(lcsb__refusals *r) {
    if (r) free(r->seen);
    free(r);
}

/* ---- one record ---- */

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* FIELD (LEN bytes) %XX-decoded into OUT (SIZE bytes): false for a bad
 * escape, a NUL, or text too long. */
static bool unescape(const char *field, size_t len, char *out, size_t size) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)field[i];
        if (c == '%') {
            int hi = i + 2 < len ? hex(field[i + 1]) : -1;
            int lo = hi >= 0 ? hex(field[i + 2]) : -1;
            if (hi < 0 || lo < 0) return false;
            c = hi * 16 + lo;
            i += 2;
        }
        if (c == 0 || n + 1 >= size) return false;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return n > 0;
}

static bool digits(const char *field, size_t len, size_t most, long *out) {
    if (len == 0 || len > most) return false;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (field[i] < '0' || field[i] > '9') return false;
        v = v * 10 + (field[i] - '0');
    }
    *out = v;
    return true;
}

static const char *const ops[] = {"exec", "read", "write", "connect", "bind", "socket"};

typedef struct record {
    const char *op;
    bool seen; /* an exec_seen record: asked for, not known refused */
    int error;
    char program[64];
    char target[PATH_MAX];
} record;

static bool parse(const char *line, size_t len, record *rec) {
    const char *field[5];
    size_t flen[5], k = 0;
    const char *start = line, *end = line + len;
    for (const char *p = line; k < 5; p++) {
        if (p == end || *p == '\t') {
            field[k] = start;
            flen[k++] = (size_t)(p - start);
            start = p + 1;
            if (p == end) break;
        }
    }
    if (k != 5 || field[4] + flen[4] != end) return false;
    rec->op = NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i]) == flen[0] && memcmp(ops[i], field[0], flen[0]) == 0) rec->op = ops[i];
    rec->seen = flen[0] == strlen("exec_seen") && memcmp(field[0], "exec_seen", flen[0]) == 0;
    if (rec->seen) rec->op = "exec";
    long error, pid;
    if (!rec->op || !digits(field[1], flen[1], 4, &error) || !digits(field[2], flen[2], 10, &pid))
        return false;
    /* Seen before the kernel answered: no errno yet, and what Landlock
     * answers an exec outside the tier is EACCES. A path, always. */
    if (rec->seen && (flen[1] != 1 || error != 0 || flen[4] == 0 || field[4][0] != '/'))
        return false;
    rec->error = rec->seen ? EACCES : (int)error;
    return unescape(field[3], flen[3], rec->program, sizeof rec->program) &&
           unescape(field[4], flen[4], rec->target, sizeof rec->target);
}

/* ---- against the policy and the host ---- */

/* LEN bytes of TEXT into OUT (SIZE bytes), cut to fit, NUL-terminated. */
static void copy_text(char *out, size_t size, const char *text, size_t len) {
    if (len >= size) len = size - 1;
    memcpy(out, text, len);
    out[len] = '\0';
}

/* PATH made absolute-normal in place: "//", "/./" dropped, ".." taken
 * back a step as the process's kernel would have, links aside. */
static void normalize(char *path) {
    char out[PATH_MAX];
    size_t len = 0;
    for (const char *p = path; *p;) {
        while (*p == '/') p++;
        const char *start = p;
        while (*p && *p != '/') p++;
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == '.')) continue;
        if (n == 2 && start[0] == '.' && start[1] == '.') {
            while (len > 0 && out[len - 1] != '/') len--;
            if (len > 0) len--;
            continue;
        }
        out[len++] = '/';
        memcpy(out + len, start, n);
        len += n;
    }
    if (len == 0) out[len++] = '/';
    out[len] = '\0';
    memcpy(path, out, len + 1);
}

static bool in_tier(const lcsb__strv *tier, const char *path) {
    for (size_t i = 0; i < tier->n; i++)
        if (lcsb__path_within(path, tier->v[i])) return true;
    return false;
}

/* The kernel judges the path it reached, links followed: REAL when the
 * host has it, else PATH as named. */
static bool in_tier_either(const lcsb__strv *tier, const char *path, const char *real) {
    return in_tier(tier, real[0] ? real : path);
}

/* PATH with its directory's links followed on the host, into OUT
 * (PATH_MAX bytes); false when the directory is not there. */
static bool real_dir(const char *path, char *out) {
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], resolved[PATH_MAX];
    if (!slash || slash == path) return false;
    copy_text(dir, sizeof dir, path, (size_t)(slash - path));
    if (!realpath(dir, resolved)) return false;
    return (size_t)snprintf(out, PATH_MAX, "%s%s", strcmp(resolved, "/") ? resolved : "", slash) <
           PATH_MAX;
}

/* PATH on the host with its links followed, into REAL (PATH_MAX bytes; ""
 * when neither it nor its directory is there). */
static void host_path(const char *path, char *real) {
    if (realpath(path, real)) return;
    if (!real_dir(path, real)) real[0] = '\0';
}

static bool host_regular(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A unix socket, links followed: what a read or write entry for it would
 * let the command connect to. */
static bool host_socket(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Was PATH's file made or changed at or after WHEN (its change time)? */
static bool host_changed_since(const char *path, struct timespec when) {
    struct stat st;
    return stat(path, &st) == 0 &&
           (st.st_ctim.tv_sec > when.tv_sec ||
            (st.st_ctim.tv_sec == when.tv_sec && st.st_ctim.tv_nsec >= when.tv_nsec));
}

static bool host_has(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The directory PATH (absolute) is in, into DIR (PATH_MAX bytes). */
static void dir_of(const char *path, char *dir) {
    const char *slash = strrchr(path, '/');
    snprintf(dir, PATH_MAX, "%.*s", slash && slash != path ? (int)(slash - path) : 1, path);
}

static bool host_has_dir_of(const char *path) {
    char dir[PATH_MAX];
    dir_of(path, dir);
    return host_has(dir);
}

/* Was REC's refusal of T (a file, or when MISSING the directory it was to
 * be made in) one of its owner's permissions, which root passes only with
 * the capabilities lcsb drops (CAP_DAC_OVERRIDE): a root command and a
 * file of another user's, the project a CI runner checked out as itself.
 * Inside the policy's trees, nothing else refuses with EACCES. */
static bool others_file(const record *rec, const char *t, bool missing) {
    char dir[PATH_MAX];
    struct stat st;
    if (rec->error != EACCES || geteuid() != 0) return false;
    if (missing) {
        dir_of(t, dir);
        t = dir;
    }
    return lstat(t, &st) == 0 && st.st_uid != 0;
}

/* The port of "ADDR:PORT", or -1. */
static int port_of(const char *target) {
    const char *colon = strrchr(target, ':');
    long port;
    if (!colon || !digits(colon + 1, strlen(colon + 1), 5, &port) || port > 65535) return -1;
    return (int)port;
}

static bool port_listed(const lcsb__ports *ports, int port) {
    for (size_t i = 0; i < ports->n; i++)
        if (ports->v[i] == port) return true;
    return false;
}

/* The policy key that accounts for REC, or NULL when the policy does not
 * (the refusal is the command's own: not the sandbox's). */
static const char *key_of(const lcsb__refusals *r, const record *rec, const char *real) {
    const lcsb_policy *p = r->policy;
    const char *t = rec->target;
    bool path = t[0] == '/';
    if (strcmp(rec->op, "socket") == 0) return p->net == LCSB_NET_OPEN ? NULL : "net";
    if (!path) {
        int port = port_of(t);
        if (p->net == LCSB_NET_OPEN || port < 0) return NULL;
        bool binds = strcmp(rec->op, "bind") == 0;
        if (p->net == LCSB_NET_PORTS && port_listed(binds ? &p->bind : &p->connect, port))
            return NULL;
        return "net";
    }
    /* /proc names other processes' files by their links: resolving them
     * would tell what the command could not see. */
    if (lcsb__path_within(t, "/proc")) return NULL;
    /* In a private directory the command's world made (a tmpfs of its own)
     * is what the host never has: there for the command, unseen here. */
    bool unseen = !host_has(t) && lcsb__policy_private_at(p, t);
    bool missing = !unseen && !host_has(t);
    /* A socket is the sockets key's whatever the call: a read or write
     * entry for it would put it in the command's world, where connect()
     * reaches its server, which Landlock does not judge. */
    bool socket = !missing && host_socket(real[0] ? real : t);
    if (strcmp(rec->op, "write") == 0) {
        if (missing && !host_has_dir_of(t)) return NULL;
        if (in_tier_either(&p->protect, t, real)) return "protect";
        if (in_tier_either(&p->write, t, real)) return others_file(rec, t, missing) ? "owner" : NULL;
        return socket ? "sockets" : "write";
    }
    /* What is read, run or connected to must be there to be refused. */
    if (missing) return NULL;
    if (in_tier_either(&p->hide, t, real)) return "hide";
    if (socket || strcmp(rec->op, "connect") == 0 || strcmp(rec->op, "bind") == 0)
        return in_tier_either(&p->read, t, real) || in_tier_either(&p->write, t, real) ? NULL
                                                                                       : "sockets";
    /* Only a file runs: a directory in exec would let all it holds run. */
    if (strcmp(rec->op, "exec") == 0) {
        if (p->exec_open || (!unseen && !host_regular(real[0] ? real : t))) return NULL;
        if (!in_tier_either(&p->exec, t, real)) return "exec";
        /* Named in exec and refused anyway: a file made there after the
         * grant was (a build's link, npm ci) is not the one it holds, and
         * the hints say so. One older is the command's own business. */
        return host_changed_since(real[0] ? real : t, r->started) ? "exec" : NULL;
    }
    if (in_tier_either(&p->read, t, real) || in_tier_either(&p->write, t, real))
        return others_file(rec, t, false) ? "owner" : NULL;
    return "read";
}

/* FNV-1a of the op and target: a record looked at once is not again. */
static uint64_t record_hash(const record *rec) {
    uint64_t h = 1469598103934665603ULL;
    for (const char *s = rec->op; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (const char *s = rec->target; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ? h : 1;
}

/* Is H new? Noted when it is. A full table (or none, out of memory) takes
 * nothing more. */
static bool first_seen(lcsb__refusals *r, uint64_t h) {
    if (!r->seen && !(r->seen = calloc(SEEN_SLOTS, sizeof *r->seen))) return false;
    for (size_t i = 0, at = h % SEEN_SLOTS; i < SEEN_SLOTS; i++, at = (at + 1) % SEEN_SLOTS) {
        if (r->seen[at] == h) return false;
        if (r->seen[at] == 0) {
            r->seen[at] = h;
            return true;
        }
    }
    return false;
}

static lcsb_refusal *find(lcsb_refusal *list, size_t n, const record *rec) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].op, rec->op) == 0 && strcmp(list[i].target, rec->target) == 0)
            return &list[i];
    return NULL;
}

/* Is REC a refusal known already? Counted again when it is. The init and
 * the recorder both see a dynamically linked program's refused exec: that
 * is one refusal, and the recorder's word that the kernel refused it makes
 * one only seen asked for a refusal whatever the run's status. */
static bool known(lcsb__refusals *r, const record *rec) {
    lcsb_refusal *k = find(r->kept, r->kept_n, rec),
                 *s = k ? NULL : find(r->asked, r->asked_n, rec);
    if (k && !rec->seen) k->count++;
    if (!s || rec->seen) return k || s;
    s->error = rec->error;
    r->asked_total--;
    r->total++;
    if (r->kept_n < LCSB_REFUSALS_MAX) r->kept[r->kept_n++] = *s;
    size_t at = (size_t)(s - r->asked);
    memmove(s, s + 1, (r->asked_n - at - 1) * sizeof *s);
    r->asked_n--;
    return true;
}

/* REC against the host and the policy, kept when the policy accounts for it. */
static void take_looked_up(lcsb__refusals *r, record *rec) {
    char real[PATH_MAX] = "";
    if (rec->target[0] == '/') host_path(rec->target, real);
    /* /bin/id and /usr/bin/id, tried in turn along PATH, are one program:
     * named in its real directory, by the name it was run by (cc, not
     * the x86_64-linux-gnu-gcc-12 the link reaches). */
    char named[PATH_MAX];
    if (strcmp(rec->op, "exec") == 0 && real_dir(rec->target, named) &&
        strcmp(named, rec->target) != 0) {
        copy_text(rec->target, sizeof rec->target, named, strlen(named));
        if (known(r, rec)) return;
    }
    const char *key = key_of(r, rec, real);
    if (!key) return;
    size_t *n = rec->seen ? &r->asked_n : &r->kept_n;
    ++*(rec->seen ? &r->asked_total : &r->total);
    if (*n == LCSB_REFUSALS_MAX) return;
    lcsb_refusal *k = rec->seen ? &r->asked[(*n)++] : &r->kept[(*n)++];
    memset(k, 0, sizeof *k);
    copy_text(k->op, sizeof k->op, rec->op, strlen(rec->op));
    copy_text(k->key, sizeof k->key, key, strlen(key));
    copy_text(k->target, sizeof k->target, rec->target, strlen(rec->target));
    copy_text(k->program, sizeof k->program, rec->program, strlen(rec->program));
    k->error = rec->error;
    k->count = 1;
    k->home = r->home && rec->target[0] == '/' && lcsb__path_within(rec->target, r->home);
}

static void take(lcsb__refusals *r, record *rec) {
    /* What the attestation could not hold whole is no record. */
    if (strlen(rec->target) >= sizeof r->kept[0].target) return;
    if (rec->target[0] == '/') normalize(rec->target);
    /* A refusal seen before counts again; only a new one is looked up. */
    if (known(r, rec)) return;
    /* The budget first: past it, a flood of new records must not each
     * probe a full table (that cost 180 ms a megabyte, and stderr waited). */
    if (r->lookups >= LOOKUPS_MAX || r->lookup_ms >= LOOKUPS_MS_MAX ||
        !first_seen(r, record_hash(rec)))
        return;
    r->lookups++;
    int64_t started = lcsb__now_ms();
    take_looked_up(r, rec);
    r->lookup_ms += lcsb__now_ms() - started;
}

void lcsb__refusals_feed(lcsb__refusals *r, const char *bytes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (bytes[i] != '\n') {
            if (r->line_len < LINE_MAX_BYTES)
                r->line[r->line_len++] = bytes[i];
            else
                r->overlong = true;
            continue;
        }
        record rec;
        if (!r->overlong && parse(r->line, r->line_len, &rec)) take(r, &rec);
        r->line_len = 0;
        r->overlong = false;
    }
}

void lcsb__refusals_finish_learning(const lcsb__refusals *r, lcsb_attestation *att) {
    size_t n = r->asked_n;
    memcpy(att->refused, r->asked, n * sizeof *r->asked);
    for (size_t i = 0; i < r->kept_n && n < LCSB_REFUSALS_MAX; i++) att->refused[n++] = r->kept[i];
    att->refused_count = r->total + r->asked_total;
}

void lcsb__refusals_finish(const lcsb__refusals *r, bool failed, lcsb_attestation *att) {
    size_t n = r->kept_n;
    memcpy(att->refused, r->kept, n * sizeof *r->kept);
    for (size_t i = 0; failed && i < r->asked_n && n < LCSB_REFUSALS_MAX; i++)
        att->refused[n++] = r->asked[i];
    att->refused_count = r->total + (failed ? r->asked_total : 0);
}
