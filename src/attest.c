/* The Attestation: what the final argv enforces, read back from the flags in
 * it by the mechanism that wrote them, never from what the backend was asked
 * to do. Pure. */
#include "attest.h"
#include "json.h"
#include "landlock.h"
#include "oci.h"
#include "seatbelt.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Every mechanism that can be read back from an argv. */
static const lcsb__backend_ops *const mechanisms[] = {&lcsb__oci_ops, &lcsb__landlock_ops,
                                                      &lcsb__seatbelt_ops};
#define MECHANISMS (sizeof mechanisms / sizeof mechanisms[0])

enum which { ANY, CONTAINERS, HOSTS };

/* The first mechanism of the kind WHICH to claim ARGV; LCSB__NOT_MINE when
 * none does. */
static int attest_with(enum which which, const char *const *argv, const char *const *prefix,
                       lcsb_attestation *out, lcsb_error *err) {
    for (size_t i = 0; i < MECHANISMS; i++) {
        if (which != ANY && mechanisms[i]->contains_prefix != (which == CONTAINERS)) continue;
        int rc = mechanisms[i]->attest(argv, prefix, out, err);
        if (rc != LCSB__NOT_MINE) return rc;
    }
    return LCSB__NOT_MINE;
}

int lcsb_attest(const char *const *argv, const char *const *prefix, lcsb_attestation *out,
                lcsb_error *err) {
    /* Until a mechanism claims the argv: nothing is held. */
    *out = (lcsb_attestation){.backend = LCSB_MECHANISM_NONE, .net = LCSB_NET_OPEN};
    bool has_prefix = prefix && prefix[0];
    size_t skip = 0;
    for (; has_prefix && prefix[skip]; skip++)
        if (!argv || !argv[skip] || strcmp(argv[skip], prefix[skip]) != 0) break;
    int rc;
    if (!has_prefix) {
        rc = attest_with(ANY, argv, NULL, out, err);
    } else if (prefix[skip]) {
        /* A container carries the launcher inside, after its world. */
        rc = attest_with(CONTAINERS, argv, prefix, out, err);
        if (rc == LCSB__NOT_MINE)
            return lcsb__fail(err, LCSB_EINVAL, "attest: the argv does not start with the prefix");
    } else {
        /* A host mechanism is the first thing after the launcher. */
        rc = attest_with(HOSTS, argv + skip, NULL, out, err);
    }
    return rc == LCSB__NOT_MINE ? 0 : rc;
}

/* ---- the attestation described once: JSON, Lua and lookups by name ---- */

static const char *const mechanism_names[] = {"none", "landlock", "seatbelt", "oci", NULL};
static const char *const fs_names[] = {"open", "enforced", NULL};
static const char *const exec_names[] = {"open", "allowlist", NULL};
static const char *const net_names[] = {"denied", "ports", "open", "domains", NULL};
static const char *const covers_names[] = {"", "tcp", "all", NULL};
static const char *const by_names[] = {"",         "landlock",  "seccomp", "landlock+seccomp",
                                       "seatbelt", "namespace", NULL};
static const char *const held_names[] = {"open", "readonly", "none", "own", NULL};
static const char *const memory_by_names[] = {"", "rlimit", "cgroup1", "cgroup2", NULL};

static bool covers_nothing(const void *att) {
    return ((const lcsb_attestation *)att)->net_covers == LCSB_NET_COVERS_NOTHING;
}
/* Under none, nothing past the network is worth saying. */
static bool under_none(const void *att) {
    return ((const lcsb_attestation *)att)->backend == LCSB_MECHANISM_NONE;
}
static bool no_limits(const void *att) {
    return ((const lcsb_attestation *)att)->limits[0] == '\0';
}
static bool no_memory_limit(const void *att) {
    return ((const lcsb_attestation *)att)->memory_by == LCSB_MEMORY_BY_NOTHING;
}
static bool no_abi(const void *att) {
    return under_none(att) || ((const lcsb_attestation *)att)->abi == 0;
}

#define FIELD(key, kind, member, names, omit)                                                      \
    { key, LCSB__FIELD_##kind, offsetof(lcsb_attestation, member), names, omit }
const lcsb__field lcsb__attestation_fields[] = {
    FIELD("backend", WORD, backend, mechanism_names, NULL),
    FIELD("fs", WORD, fs, fs_names, NULL),
    FIELD("exec", WORD, exec, exec_names, NULL),
    FIELD("net", WORD, net, net_names, NULL),
    FIELD("net_covers", WORD, net_covers, covers_names, covers_nothing),
    FIELD("net_by", WORD, net_by, by_names, covers_nothing),
    FIELD("metadata", WORD, metadata, held_names, under_none),
    FIELD("protected", WORD, protected_paths, held_names, under_none),
    FIELD("abi", INT, abi, NULL, no_abi),
    FIELD("scoped", BOOL, scoped, NULL, under_none),
    FIELD("dropped", BITS, dropped, lcsb__part_names, under_none),
    FIELD("world", WORD, world, held_names, under_none),
    FIELD("limits", TEXT, limits, NULL, no_limits),
    FIELD("memory_by", WORD, memory_by, memory_by_names, no_memory_limit),
    {0},
};
#undef FIELD

/* What the sandbox refused, as the recorder saw it: "recorded" says it
 * ran, so that an empty list means nothing was refused. */
static void add_refused(lcsb__buf *b, const lcsb_attestation *att) {
    size_t kept = att->refused_count < LCSB_REFUSALS_MAX ? att->refused_count : LCSB_REFUSALS_MAX;
    lcsb__buf_addf(b, ",\"recorded\":true,\"execs_seen\":%s,\"refused_count\":%zu,\"refused\":[",
                   att->execs_seen ? "true" : "false", att->refused_count);
    for (size_t i = 0; i < kept; i++) {
        const lcsb_refusal *r = &att->refused[i];
        lcsb__buf_addf(b, "%s{\"op\":\"%s\",\"key\":\"%s\",\"target\":", i ? "," : "", r->op,
                       r->key);
        lcsb__buf_add_json_text(b, r->target);
        lcsb__buf_adds(b, ",\"program\":");
        lcsb__buf_add_json_text(b, r->program);
        lcsb__buf_addf(b, ",\"errno\":%d,\"error\":\"%s\",\"count\":%u%s}", r->error,
                       strerrorname_np(r->error) ? strerrorname_np(r->error) : "?", r->count,
                       r->home ? ",\"home\":true" : "");
    }
    lcsb__buf_adds(b, "]");
}

/* LINES (one per line) as the list KEY, when there are any. */
static void add_lines(lcsb__buf *b, const char *key, const char *lines) {
    if (!lines[0]) return;
    lcsb__buf_addf(b, ",\"%s\":[", key);
    for (const char *line = lines; *line;) {
        size_t len = strcspn(line, "\n");
        char entry[sizeof ((lcsb_attestation *)0)->domains];
        snprintf(entry, sizeof entry, "%.*s", (int)len, line);
        lcsb__buf_adds(b, line == lines ? "" : ",");
        lcsb__buf_add_json_string(b, entry);
        line += len + (line[len] == '\n');
    }
    lcsb__buf_adds(b, "]");
}

/* What the proxy held to and refused: lists, which the field table does not
 * describe, added after its fields. */
void lcsb__attestation_add_keys(lcsb__buf *b, const lcsb_attestation *att) {
    lcsb__fields_add_keys(b, lcsb__attestation_fields, att);
    add_lines(b, "domains", att->domains);
    add_lines(b, "secrets", att->secrets);
    size_t kept = att->net_refused_count < LCSB_NET_REFUSALS_MAX ? att->net_refused_count
                                                                 : LCSB_NET_REFUSALS_MAX;
    if (att->net_refused_count) {
        lcsb__buf_addf(b, ",\"net_refused_count\":%zu,\"net_refused\":[", att->net_refused_count);
        for (size_t i = 0; i < kept; i++) {
            const lcsb_net_refusal *r = &att->net_refused[i];
            lcsb__buf_adds(b, i ? ",{\"host\":" : "{\"host\":");
            lcsb__buf_add_json_string(b, r->host);
            lcsb__buf_addf(b, ",\"port\":%u,\"attempts\":%u,\"why\":", r->port, r->attempts);
            lcsb__buf_add_json_string(b, r->why);
            lcsb__buf_adds(b, "}");
        }
        lcsb__buf_adds(b, "]");
    }
    if (att->recorded) add_refused(b, att);
}

char *lcsb_attestation_json(const lcsb_attestation *att) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "{");
    lcsb__attestation_add_keys(&b, att);
    lcsb__buf_adds(&b, "}");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

const char *lcsb_attestation_value(const lcsb_attestation *att, const char *key) {
    const lcsb__field *f = lcsb__field_find(lcsb__attestation_fields, key);
    return f && f->kind == LCSB__FIELD_WORD ? lcsb__field_word(f, att) : NULL;
}

void lcsb_attestation_summary(const lcsb_attestation *att, char *buf, size_t size) {
    const char *fs = lcsb_attestation_value(att, "fs"), *exec = lcsb_attestation_value(att, "exec");
    char net[64];
    /* Only a gap is worth a word: "all" is what "denied" already says. */
    snprintf(net, sizeof net, "%s%s", lcsb_attestation_value(att, "net"),
             att->net_covers == LCSB_NET_COVERS_TCP ? " but for TCP" : "");
    if (att->backend == LCSB_MECHANISM_NONE) {
        snprintf(buf, size, "fs: %s, exec: %s, net: %s; nothing was enforced", fs, exec, net);
        return;
    }
    lcsb__buf dropped = {0};
    lcsb__add_part_names(&dropped, att->dropped, "", " ");
    char abi[16] = "", memory[32] = "";
    if (att->abi) snprintf(abi, sizeof abi, ", abi %d", att->abi);
    if (att->memory_by != LCSB_MEMORY_BY_NOTHING)
        snprintf(memory, sizeof memory, " (memory by %s)",
                 lcsb_attestation_value(att, "memory_by"));
    snprintf(buf, size, "fs: %s, exec: %s, net: %s%s%s%s%s%s%s", fs, exec, net, abi,
             att->limits[0] ? ", limits: " : "", att->limits, memory,
             dropped.len ? ", not enforced here: " : "", dropped.len ? dropped.p : "");
    lcsb__buf_free(&dropped);
}
