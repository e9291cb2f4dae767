/* The Attestation: what the final argv enforces, read back from the flags in
 * it, never from what the backend was asked to do. Pure. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set(char *field, size_t size, const char *value) { snprintf(field, size, "%s", value); }
#define SET(field, value) set(field, sizeof field, value)

static bool is_shim(const char *arg) {
    const char *base = strrchr(arg, '/');
    return strcmp(base ? base + 1 : arg, LCSB__SHIM_NAME) == 0;
}

/* The string value at P when it is one of CHOICES (none needs an escape);
 * NULL for anything else, another type included. */
static const char *json_choice(const char *p, const char *const *choices) {
    if (!p || *p != '"') return NULL;
    for (size_t i = 0; choices[i]; i++) {
        size_t n = strlen(choices[i]);
        if (strncmp(p + 1, choices[i], n) == 0 && p[1 + n] == '"') return choices[i];
    }
    return NULL;
}

/* The "dropped" array at P as lcsb_part bits; -1 when it is missing, malformed
 * or names a part lcsb does not know. */
static long read_dropped(const char *p) {
    int count = lcsb__json_array(p, NULL, NULL), known = 0;
    long parts = 0;
    for (unsigned part = 1; count > 0 && part <= LCSB_PARTS_ALL; part <<= 1) {
        bool found = false;
        lcsb__json_array(p, lcsb_part_name(part), &found);
        if (found) parts |= part, known++;
    }
    return count >= 0 && known == count ? parts : -1;
}

static int attest_landlock(const char *header, lcsb_attestation *out, lcsb_error *err) {
    static const char *const socket_rules[] = {"any", "unix", "unix+tcp", NULL};
    long abi = lcsb__json_int(lcsb__json_find(header, "abi"));
    bool execute = false, connect = false, bind = false, signal = false, abstract = false;
    int fs = lcsb__json_array(lcsb__json_find(header, "fs"), "execute", &execute);
    const char *net_p = lcsb__json_find(header, "net");
    int net = lcsb__json_array(net_p, "connect_tcp", &connect);
    lcsb__json_array(net_p, "bind_tcp", &bind);
    int ports = lcsb__json_array(lcsb__json_find(header, "ports"), NULL, NULL);
    const char *scope_p = lcsb__json_find(header, "scope");
    int scope = lcsb__json_array(scope_p, "signal", &signal);
    lcsb__json_array(scope_p, "abstract_unix_socket", &abstract);
    const char *sockets = json_choice(lcsb__json_find(header, "sockets"), socket_rules);
    long dropped = read_dropped(lcsb__json_find(header, "dropped"));
    static const char *const worlds[] = {"readonly", "open", NULL};
    const char *world = json_choice(lcsb__json_find(header, "world"), worlds);
    int protect = lcsb__json_array(lcsb__json_find(header, "protect"), NULL, NULL);
    if (abi < 1 || fs < 0 || net < 0 || ports < 0 || scope < 0 || !sockets || dropped < 0 ||
        !world || protect < 0)
        return lcsb__fail(err, LCSB_EINVAL, "attest: the shim's header is malformed");
    SET(out->backend, "landlock");
    SET(out->fs, fs > 0 ? "enforced" : "open");
    SET(out->exec, execute ? "allowlist" : "open");
    /* Landlock's network rules cover TCP only; the shim's socket filter, when
     * the header asks for one, covers every other socket, and "unix" refuses
     * TCP sockets as well. "denied" and "ports" are said only when every
     * socket is held: TCP rules alone (no filter) leave UDP and the rest
     * open, which is "open", with net_covers "tcp" for what is held. */
    bool tcp_rules = connect && bind;
    bool unix_only = strcmp(sockets, "unix") == 0, filter = strcmp(sockets, "any") != 0;
    if (unix_only || (filter && tcp_rules)) {
        SET(out->net, tcp_rules && ports > 0 ? "ports" : "denied");
        SET(out->net_covers, "all");
        SET(out->net_by, tcp_rules ? "landlock+seccomp" : "seccomp");
    } else {
        SET(out->net, "open");
        SET(out->net_covers, tcp_rules ? "tcp" : "");
        SET(out->net_by, tcp_rules ? "landlock" : "");
    }
    out->abi = (int)abi;
    out->scoped = signal && abstract;
    out->dropped = (unsigned)dropped;
    bool readonly = strcmp(world, "readonly") == 0;
    SET(out->metadata, readonly ? "readonly" : "open");
    SET(out->protected_paths, !readonly ? "open" : protect > 0 ? "readonly" : "none");
    return 0;
}

int lcsb_attest(const char *const *argv, const char *const *prefix, lcsb_attestation *out,
                lcsb_error *err) {
    memset(out, 0, sizeof *out);
    SET(out->backend, "none");
    SET(out->fs, "open");
    SET(out->exec, "open");
    SET(out->net, "open");
    size_t skip = 0;
    bool has_prefix = prefix && prefix[0];
    for (; has_prefix && prefix[skip]; skip++)
        if (!argv || !argv[skip] || strcmp(argv[skip], prefix[skip]) != 0) {
            /* A container carries the launcher inside, after its world. */
            if (lcsb__oci_is_run(argv)) return lcsb__oci_attest(argv, prefix, out, err);
            return lcsb__fail(err, LCSB_EINVAL, "attest: the argv does not start with the prefix");
        }
    if (!has_prefix && lcsb__oci_is_run(argv)) return lcsb__oci_attest(argv, NULL, out, err);
    /* The mechanism, if any, is the first thing after the launcher. */
    const char *const *rest = argv ? argv + skip : NULL;
    if (rest && rest[0] && rest[1] && is_shim(rest[0]) &&
        strncmp(rest[1], LCSB__WIRE_KEY, strlen(LCSB__WIRE_KEY)) == 0)
        return attest_landlock(rest[1], out, err);
    if (rest && rest[0] && rest[1] && rest[2] && strcmp(rest[0], LCSB__SANDBOX_EXEC) == 0 &&
        strcmp(rest[1], "-p") == 0 &&
        strncmp(rest[2], LCSB__SEATBELT_HEAD, strlen(LCSB__SEATBELT_HEAD)) == 0)
        return lcsb__seatbelt_attest(rest, out, err);
    return 0;
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
