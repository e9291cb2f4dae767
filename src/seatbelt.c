/* The Seatbelt backend (macOS): a pure rewrite of the command into
 * `/usr/bin/sandbox-exec -p PROFILE -D KEY=PATH ... -- COMMAND`.
 *
 * SBPL is last-match-wins (rule 4), so the profile is layered: (deny default),
 * the compiled-in base (profiles/base.sb), the read tier, the exec allowlist,
 * the guard that takes writes back from the system trees, the write tier
 * restated after the guard, the protected paths, the network. Every policy
 * path travels as a -D parameter in its canonical form (/tmp, /var and /etc
 * are symlinks into /private, and the kernel matches the resolved path): the
 * profile text names (param "KEY") and never holds a policy path, so no path
 * can be misquoted into a rule. */
#include "seatbelt.h"

#include "path.h"
#include "sysprefix.h"
#include "validate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The system trees the base reads (and /Applications): writes there reach
 * beyond the run. The guard denies file-write* on each; the write tier,
 * restated after it, may reopen only the holes below. */
static const char *const guarded_trees[] = {
    "/System",       "/usr",         "/bin",         "/sbin", "/Library",
    "/Applications", "/private/etc", "/private/var", NULL,
};
/* Per-user temporary and cache directories ($TMPDIR is /var/folders/XX/YYY/T):
 * where a run's private HOME and TMPDIR are made. */
static const char *const guard_holes[] = {"/private/var/folders/", NULL};

/* Shared writable trees in their canonical forms, which the system prefix
 * list (rule 3) knows by their other names (/tmp, /var/tmp): no exec
 * directory may be or hold one. */
static const char *const private_prefixes[] = {"/private/tmp", "/private/var/tmp",
                                               "/private/var/folders", NULL};

/* The unix socket name resolution goes through when TCP ports are allowed. */
#define DNS_SOCKET "/private/var/run/mDNSResponder"

static const struct alias {
    const char *from, *to;
} aliases[] = {{"/tmp", "/private/tmp"}, {"/var", "/private/var"}, {"/etc", "/private/etc"}};

int lcsb__seatbelt_canonical(const char *path, char *out) {
    const char *rest = path, *to = "";
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        size_t n = strlen(aliases[i].from);
        if (strncmp(path, aliases[i].from, n) == 0 && (path[n] == '/' || path[n] == '\0')) {
            to = aliases[i].to;
            rest = path + n;
            break;
        }
    }
    int len = snprintf(out, LCSB__SEATBELT_PATH_MAX, "%s%s", to, rest);
    return len < 0 || len >= LCSB__SEATBELT_PATH_MAX ? -1 : 0;
}

/* The guarded tree that PATH (canonical) is or holds, or lies in outside a hole. */
static const char *guarded_by(const char *path, bool *holds) {
    for (size_t i = 0; guarded_trees[i]; i++) {
        *holds = lcsb__path_within(guarded_trees[i], path);
        if (*holds) return guarded_trees[i];
        if (!lcsb__path_within(path, guarded_trees[i])) continue;
        bool in_hole = false;
        for (size_t h = 0; guard_holes[h]; h++)
            in_hole |= strncmp(path, guard_holes[h], strlen(guard_holes[h])) == 0;
        if (!in_hole) return guarded_trees[i];
    }
    return NULL;
}

/* The write tier is restated after the guard, so a write path that is, holds
 * or lies in a guarded tree would undo the guard: refused. An exec directory
 * that is or holds a system prefix would outrank the allowlist (rule 3). */
static int check_policy(const lcsb_policy *policy, lcsb_error *err) {
    char canon[LCSB__SEATBELT_PATH_MAX];
    const char *limit = lcsb__policy_first_limit(policy);
    if (limit)
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "seatbelt: limits.%s needs the Landlock backend's world of its own",
                          limit);
    for (size_t i = 0; i < policy->write.n; i++) {
        const char *path = policy->write.v[i];
        if (lcsb__seatbelt_canonical(path, canon))
            return lcsb__fail(err, LCSB_EINVAL, "seatbelt: write: %s: too long", path);
        bool holds = false;
        const char *tree = guarded_by(canon, &holds);
        if (tree)
            return lcsb__fail(err, LCSB_EINVAL,
                              "seatbelt: write: %s: refusing write access %s the system tree %s",
                              path, holds ? "to a directory that is or contains" : "inside", tree);
    }
    for (size_t i = 0; !policy->exec_open && i < policy->exec.n; i++) {
        const char *path = policy->exec.v[i], *prefix = lcsb__system_prefix_within(path);
        bool holds = false;
        if (!prefix && !lcsb__seatbelt_canonical(path, canon)) {
            const char *tree = guarded_by(canon, &holds);
            if (holds) prefix = tree;
            for (size_t k = 0; !prefix && private_prefixes[k]; k++)
                if (lcsb__path_within(private_prefixes[k], canon)) prefix = private_prefixes[k];
        }
        if (prefix) return lcsb__refuse_exec_dir(path, "process-exec", prefix, err);
    }
    return 0;
}

typedef struct profile {
    lcsb__buf text;
    lcsb__strv params; /* "-D", "KEY=PATH", ... */
    bool oom;
    const char *too_long; /* a path with no canonical form that fits */
} profile;

/* (ACTION OPS (subpath (param "KEYn")) ...) for the tier's paths, sorted and
 * without repeats; nothing at all for an empty tier, since a rule without a
 * filter would match every path. */
static void add_tier(profile *pr, const char *action, const char *ops, const char *key,
                     const lcsb__strv *paths) {
    size_t n = 0;
    const char **sorted = lcsb__strv_sorted_unique(paths, &n);
    if (!sorted) {
        pr->oom = true;
        return;
    }
    if (n) lcsb__buf_addf(&pr->text, "(%s %s", action, ops);
    for (size_t i = 0; i < n; i++) {
        char canon[LCSB__SEATBELT_PATH_MAX];
        lcsb__buf param = {0};
        if (lcsb__seatbelt_canonical(sorted[i], canon)) {
            pr->too_long = sorted[i];
            break;
        }
        lcsb__buf_addf(&pr->text, "\n  (subpath (param \"%s%zu\"))", key, i);
        lcsb__buf_addf(&param, "%s%zu=%s", key, i, canon);
        if (param.oom || lcsb__strv_push(&pr->params, "-D") ||
            lcsb__strv_push(&pr->params, param.p))
            pr->oom = true;
        lcsb__buf_free(&param);
    }
    if (n) lcsb__buf_adds(&pr->text, ")\n");
    free(sorted);
}

static void add_guard(profile *pr) {
    lcsb__buf_adds(&pr->text, "(deny file-write*");
    for (size_t i = 0; guarded_trees[i]; i++)
        lcsb__buf_addf(&pr->text, "\n  (subpath \"%s\")", guarded_trees[i]);
    lcsb__buf_adds(&pr->text, ")\n");
}

/* One rule per port, in ascending order: (allow OPS (SIDE tcp "*:PORT")). */
static void add_port_rules(profile *pr, const lcsb__ports *ports, const char *ops,
                           const char *side) {
    for (int port = lcsb__port_after(ports, -1); port < 65536; port = lcsb__port_after(ports, port))
        lcsb__buf_addf(&pr->text, "(allow %s (%s tcp \"*:%d\"))\n", ops, side, port);
}

#define PROXY_LINE ";; lcsb's proxy\n(allow network-outbound (remote tcp \"localhost:"

/* Denied: nothing (deny default holds every socket, unix ones included).
 * Ports: TCP to and from the policy's ports, and name resolution.
 * Domains: lcsb's proxy on the loopback, and no name resolution (the
 * proxy resolves); the policy's ports on the loopback only. */
static void add_network(profile *pr, const lcsb_policy *policy) {
    if (policy->net == LCSB_NET_OPEN) {
        lcsb__buf_adds(&pr->text, "(allow network*)\n");
        return;
    }
    if (policy->net == LCSB_NET_DOMAINS) {
        lcsb__buf_addf(&pr->text, PROXY_LINE "%u\"))\n", (unsigned)lcsb__proxy_port(policy));
        add_port_rules(pr, &policy->bind, "network-bind network-inbound", "local");
        for (int port = lcsb__port_after(&policy->connect, -1); port < 65536;
             port = lcsb__port_after(&policy->connect, port))
            lcsb__buf_addf(&pr->text, "(allow network-outbound (remote tcp \"localhost:%d\"))\n",
                           port);
        return;
    }
    if (policy->net != LCSB_NET_PORTS) return;
    add_port_rules(pr, &policy->bind, "network-bind network-inbound", "local");
    add_port_rules(pr, &policy->connect, "network-outbound", "remote");
    lcsb__buf_adds(&pr->text, "(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n"
                              "(allow network-outbound (literal \"" DNS_SOCKET "\"))\n");
}

static void add_layer(profile *pr, const lcsb_policy *policy, lcsb__seatbelt_layer layer) {
    switch (layer) {
    case LCSB__SB_BASE:
        lcsb__buf_adds(&pr->text, ";; base (profiles/base.sb)\n");
        lcsb__buf_adds(&pr->text, lcsb__seatbelt_base);
        return;
    case LCSB__SB_READ:
        lcsb__buf_adds(&pr->text, ";; read tier\n");
        add_tier(pr, "allow", "file-read*", "READ", &policy->read);
        return;
    case LCSB__SB_EXEC:
        lcsb__buf_adds(&pr->text, ";; exec allowlist\n");
        if (policy->exec_open) lcsb__buf_adds(&pr->text, "(allow process-exec*)\n");
        add_tier(pr, "allow", "file-read* process-exec*", "EXEC", &policy->exec);
        return;
    case LCSB__SB_GUARD:
        lcsb__buf_adds(&pr->text, ";; guard: no writes in the system trees\n");
        add_guard(pr);
        return;
    case LCSB__SB_WRITE:
        lcsb__buf_adds(&pr->text, ";; write tier, restated after the guard\n");
        add_tier(pr, "allow", "file-read* file-write*", "WRITE", &policy->write);
        return;
    case LCSB__SB_PROTECT:
        lcsb__buf_adds(&pr->text, ";; protected paths inside the write tier\n");
        add_tier(pr, "deny", "file-write*", "PROTECT", &policy->protect);
        /* Hidden paths: neither read nor written, by their own names (a
         * world of its own covers them; a profile can only refuse them). */
        if (policy->hide.n) {
            lcsb__buf_adds(&pr->text, ";; hidden paths\n");
            add_tier(pr, "deny", "file-read* file-write*", "HIDE", &policy->hide);
        }
        return;
    case LCSB__SB_NET:
        lcsb__buf_adds(&pr->text, ";; network\n");
        add_network(pr, policy);
        return;
    }
}

const lcsb__seatbelt_layer lcsb__seatbelt_order[LCSB__SB_LAYERS] = {
    LCSB__SB_BASE,  LCSB__SB_READ,    LCSB__SB_EXEC, LCSB__SB_GUARD,
    LCSB__SB_WRITE, LCSB__SB_PROTECT, LCSB__SB_NET,
};

int lcsb__seatbelt_wrap_layers(const lcsb_policy *policy, const lcsb__seatbelt_layer *order,
                               const char *const *argv, lcsb__strv *out, lcsb_error *err) {
    int rc = check_policy(policy, err);
    if (rc) return rc;
    /* sandbox-exec reads options until the command: one whose name starts
     * with '-' could be taken for one by a getopt that ignores "--". */
    if (argv[0][0] == '-')
        return lcsb__fail(err, LCSB_EINVAL,
                          "seatbelt: command \"%s\" starts with '-', which sandbox-exec would "
                          "take for an option; name it by path (./%s)",
                          argv[0], argv[0]);
    profile pr = {0};
    lcsb__buf_adds(&pr.text, LCSB__SEATBELT_HEAD);
    for (size_t i = 0; i < LCSB__SB_LAYERS; i++) add_layer(&pr, policy, order[i]);
    if (pr.too_long)
        rc = lcsb__fail(err, LCSB_EINVAL, "seatbelt: %s: too long", pr.too_long);
    else if (pr.oom || pr.text.oom || lcsb__strv_push(out, LCSB__SANDBOX_EXEC) ||
             lcsb__strv_push(out, "-p") || lcsb__strv_push(out, pr.text.p) ||
             lcsb__strv_push_all(out, (const char *const *)pr.params.v) ||
             lcsb__strv_push(out, "--") || lcsb__strv_push_all(out, argv))
        rc = lcsb__fail(err, LCSB_ENOMEM, "seatbelt: out of memory");
    lcsb__buf_free(&pr.text);
    lcsb__strv_clear(&pr.params);
    return rc;
}

/* ---- the attestation: the profile read back ---- */

/* The -D keys, tier by tier, in the order wrap writes them. */
static const char *const param_keys[] = {"READ", "EXEC", "WRITE", "PROTECT", "HIDE"};
#define PARAM_TIERS (sizeof param_keys / sizeof param_keys[0])

/* KV is "KEYn=/..." for the tier's next index N: true, and the tier is KEY. */
static bool next_param(const char *kv, size_t *counts) {
    for (size_t t = 0; t < PARAM_TIERS; t++) {
        size_t n = strlen(param_keys[t]);
        if (strncmp(kv, param_keys[t], n) != 0) continue;
        char expect[32];
        snprintf(expect, sizeof expect, "%zu=/", counts[t]);
        if (strncmp(kv + n, expect, strlen(expect)) != 0) return false;
        counts[t]++;
        return true;
    }
    return false;
}

/* The ports of the profile's network rules (what the generator writes:
 * one rule per port and side), into POLICY. */
static int read_ports(const char *text, lcsb_policy *policy) {
    static const struct {
        const char *lead;
        lcsb_port_kind kind;
    } sides[] = {{"(allow network-bind network-inbound (local tcp \"*:", LCSB_PORT_BIND},
                 {"(allow network-outbound (remote tcp \"*:", LCSB_PORT_CONNECT},
                 {"(allow network-outbound (remote tcp \"localhost:", LCSB_PORT_CONNECT}};
    const char *proxy = strstr(text, PROXY_LINE);
    if (proxy) {
        long port = strtol(proxy + strlen(PROXY_LINE), NULL, 10);
        if (port < 1 || port > 65535) return LCSB_EINVAL;
        lcsb_policy_set_net(policy, LCSB_NET_DOMAINS);
        policy->proxy_port = (uint16_t)port;
        text = strchr(strchr(proxy, '\n') + 1, '\n');
    }
    for (const char *line = text; line && *line;) {
        for (size_t s = 0; s < 3; s++) {
            size_t n = strlen(sides[s].lead);
            if (strncmp(line, sides[s].lead, n) != 0) continue;
            long port = strtol(line + n, NULL, 10);
            int rc = lcsb_policy_add_port(policy, sides[s].kind, port, NULL);
            if (rc) return rc;
        }
        const char *next = strchr(line, '\n');
        line = next ? next + 1 : NULL;
    }
    return 0;
}

/* ARGV is `sandbox-exec -p PROFILE (-D KEY=PATH)... -- COMMAND...`. The
 * profile must be exactly one lcsb writes: a policy of the shape its
 * parameters and network rules describe is generated again and the two
 * compared byte for byte, so that no rule added, moved or widened passes
 * (a guess from its lines would let one through). What it enforces is then
 * read from that shape. */
static int seatbelt_attest(const char *const *rest, const char *const *prefix,
                           lcsb_attestation *out, lcsb_error *err) {
    (void)prefix;
    if (!rest || !rest[0] || !rest[1] || !rest[2] || strcmp(rest[0], LCSB__SANDBOX_EXEC) != 0 ||
        strcmp(rest[1], "-p") != 0 ||
        strncmp(rest[2], LCSB__SEATBELT_HEAD, strlen(LCSB__SEATBELT_HEAD)) != 0)
        return LCSB__NOT_MINE;
    const char *text = rest[2];
    size_t counts[PARAM_TIERS] = {0}, i = 3;
    for (; rest[i] && strcmp(rest[i], "-D") == 0; i += 2)
        if (!rest[i + 1] || !next_param(rest[i + 1], counts))
            return lcsb__fail(err, LCSB_EINVAL, "attest: the sandbox-exec argv is malformed");
    if (!rest[i] || strcmp(rest[i], "--") != 0 || !rest[i + 1])
        return lcsb__fail(err, LCSB_EINVAL, "attest: the sandbox-exec argv is malformed");
    static const char exec_open[] = ";; exec allowlist\n(allow process-exec*)\n";
    static const char net_open[] = ";; network\n(allow network*)\n";
    lcsb_policy *shape = lcsb_policy_new();
    lcsb__strv again = {0};
    int rc = shape ? 0 : LCSB_ENOMEM;
    for (size_t t = 0; !rc && t < PARAM_TIERS; t++)
        for (size_t k = 0; !rc && k < counts[t]; k++) {
            char path[48];
            snprintf(path, sizeof path, "/lcsb-attest/%s/%08zu", param_keys[t], k);
            rc = t == 0   ? lcsb_policy_add_read(shape, path, NULL)
                 : t == 1 ? lcsb_policy_add_exec(shape, path, NULL)
                 : t == 2 ? lcsb_policy_add_write(shape, path, NULL)
                 : t == 3 ? lcsb_policy_add_protect(shape, path, NULL)
                          : lcsb_policy_add_hide(shape, path, NULL);
        }
    if (!rc) {
        lcsb_policy_set_exec_open(shape, strstr(text, exec_open) != NULL);
        const char *net = strstr(text, ";; network\n");
        if (net && strcmp(net, net_open) == 0)
            lcsb_policy_set_net(shape, LCSB_NET_OPEN);
        else if (net)
            rc = read_ports(net, shape);
    }
    if (!rc) {
        static const char *const probe[] = {"x", NULL};
        rc = lcsb__seatbelt_wrap_layers(shape, lcsb__seatbelt_order, probe, &again, NULL);
    }
    bool same = !rc && again.n > 2 && strcmp(again.v[2], text) == 0;
    lcsb_net net = shape ? lcsb_policy_net(shape) : LCSB_NET_DENY;
    bool open_exec = shape && lcsb_policy_exec_open(shape);
    lcsb_policy_free(shape);
    lcsb__strv_clear(&again);
    if (rc == LCSB_ENOMEM) return lcsb__fail(err, rc, "attest: out of memory");
    if (!same)
        return lcsb__fail(err, LCSB_EINVAL,
                          "attest: the seatbelt profile is not one lcsb writes; nothing about "
                          "it can be vouched for");
    bool all = net != LCSB_NET_OPEN;
    *out = (lcsb_attestation){
        .backend = LCSB_MECHANISM_SEATBELT,
        .fs = LCSB_FS_ENFORCED,
        .exec = open_exec ? LCSB_EXEC_OPEN : LCSB_EXEC_ALLOWLIST,
        .net = net,
        .net_covers = all ? LCSB_NET_COVERS_ALL : LCSB_NET_COVERS_NOTHING,
        .net_by = all ? LCSB_NET_BY_SEATBELT : LCSB_NET_BY_NOTHING,
        .scoped = true, /* the base's (allow signal (target same-sandbox)), verified above */
        /* file-write* covers chmod, chown and utimes (file-write-mode, -owner, -times). */
        .metadata = LCSB_HELD_READONLY,
        .protected_paths = counts[3] ? LCSB_HELD_READONLY : LCSB_HELD_NONE,
    };
    return 0;
}

typedef struct seatbelt_backend {
    lcsb_backend base;
    /* /usr/bin/sandbox-exec was found (or the caller vouched for it).
     * Without it the backend still wraps, for other hosts, but refuses to
     * run. */
    bool present;
} seatbelt_backend;

static int seatbelt_wrap(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
                         const char *const *env, lcsb__strv *out, lcsb_error *err) {
    (void)b;
    (void)env; /* sandbox-exec's environment, from lcsb_env_block */
    return lcsb__seatbelt_wrap_layers(policy, lcsb__seatbelt_order, argv, out, err);
}

/* Seatbelt holds every part lcsb knows: the network (every socket, by
 * operation), signals (same-sandbox), truncation and metadata (file-write*),
 * device and terminal ioctls (the base grants no file-ioctl). So nothing is
 * ever dropped; what it needs is sandbox-exec itself. */
static int seatbelt_validate(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err) {
    if (!((const seatbelt_backend *)b)->present)
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "seatbelt: %s not found on this host (Seatbelt is macOS's; "
                          "`lcsb wrap --backend seatbelt` still prints the argv anywhere)",
                          LCSB__SANDBOX_EXEC);
    int rc = check_policy(policy, err);
    if (!rc) rc = lcsb__check_env_listed(policy, err);
    if (!rc) rc = lcsb__validate_paths(policy, !policy->exec_open, lcsb__seatbelt_canonical, err);
    return rc;
}

const lcsb__backend_ops lcsb__seatbelt_ops = {
    .name = "seatbelt",
    .contains_prefix = false,
    .is_mechanism = true,
    .validate = seatbelt_validate,
    .wrap = seatbelt_wrap,
    .attest = seatbelt_attest,
};

int lcsb__seatbelt_new(bool present, lcsb_backend **out, lcsb_error *err) {
    int rc = lcsb__backend_new(&lcsb__seatbelt_ops, sizeof(seatbelt_backend), out, err);
    if (!rc) ((seatbelt_backend *)*out)->present = present;
    return rc;
}

/* Configured by hand: the caller vouches for sandbox-exec. */
int lcsb_backend_seatbelt(lcsb_backend **out, lcsb_error *err) {
    return lcsb__seatbelt_new(true, out, err);
}
