/* The Attestation: what the final argv enforces, read back from the flags in
 * it by the mechanism that wrote them, never from what the backend was asked
 * to do. Pure. */
#include "json.h"
#include "landlock.h"
#include "oci.h"
#include "seatbelt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set(char *field, size_t size, const char *value) { snprintf(field, size, "%s", value); }
#define SET(field, value) set(field, sizeof field, value)

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
    memset(out, 0, sizeof *out);
    SET(out->backend, "none");
    SET(out->fs, "open");
    SET(out->exec, "open");
    SET(out->net, "open");
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

char *lcsb_attestation_json(const lcsb_attestation *att) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "{\"backend\":");
    lcsb__buf_add_json_string(&b, att->backend);
    lcsb__buf_addf(&b, ",\"fs\":\"%s\",\"exec\":\"%s\",\"net\":\"%s\"", att->fs, att->exec,
                   att->net);
    if (att->net_covers[0])
        lcsb__buf_addf(&b, ",\"net_covers\":\"%s\",\"net_by\":\"%s\"", att->net_covers,
                       att->net_by);
    if (strcmp(att->backend, "none") != 0) {
        lcsb__buf_addf(&b, ",\"metadata\":\"%s\",\"protected\":\"%s\"", att->metadata,
                       att->protected_paths);
        if (att->abi) lcsb__buf_addf(&b, ",\"abi\":%d", att->abi);
        lcsb__buf_addf(&b, ",\"scoped\":%s,\"dropped\":[", att->scoped ? "true" : "false");
        lcsb__add_part_names(&b, att->dropped, "\"", ",");
        lcsb__buf_adds(&b, "]");
    }
    lcsb__buf_adds(&b, "}");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

void lcsb_attestation_summary(const lcsb_attestation *att, char *buf, size_t size) {
    char net[64];
    /* Only a gap is worth a word: "all" is what "denied" already says. */
    snprintf(net, sizeof net, "%s%s", att->net,
             strcmp(att->net_covers, "tcp") == 0 ? " but for TCP" : "");
    lcsb__buf dropped = {0};
    lcsb__add_part_names(&dropped, att->dropped, "", " ");
    char abi[16] = "";
    if (att->abi) snprintf(abi, sizeof abi, ", abi %d", att->abi);
    if (strcmp(att->backend, "none") != 0)
        snprintf(buf, size, "fs: %s, exec: %s, net: %s%s%s%s", att->fs, att->exec, net, abi,
                 dropped.len ? ", not enforced here: " : "", dropped.len ? dropped.p : "");
    else
        snprintf(buf, size, "fs: %s, exec: %s, net: %s%s", att->fs, att->exec, net,
                 strcmp(att->backend, "none") == 0 ? "; nothing was enforced" : "");
    lcsb__buf_free(&dropped);
}
