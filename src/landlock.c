/* The Landlock backend: a pure rewrite of the command into
 * `lcsb-exec HEADER PART... -- COMMAND`, the policy carried as JSON on argv
 * (docs/wire-format.md), and that header read back for the attestation. The
 * shim builds the ruleset; this file only writes and reads. */
#include "landlock.h"

#include "json.h"
#include "sysprefix.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct landlock_backend {
    lcsb_backend base;
    int abi;
    char *shim;
    /* The shim can install its socket filter (seccomp), which a restricted
     * network needs beyond Landlock's TCP rules. */
    bool seccomp;
    /* The shim can enter a mount namespace (as root, or in a user namespace)
     * to make the file system read-only outside the write tier. */
    bool namespaces;
    /* The memory cgroup the shim can make: 2 (v2), 1 (v1), 0 (none). */
    int memory_cgroup;
} landlock_backend;

static const landlock_backend *landlock_of(const lcsb_backend *b) {
    return (const landlock_backend *)b;
}

/* The kernel's filesystem rights by name, with the ABI that introduced each. */
static const struct right {
    const char *name;
    int abi;
} fs_rights[] = {
    {"execute", 1},     {"write_file", 1},   {"read_file", 1}, {"read_dir", 1}, {"remove_dir", 1},
    {"remove_file", 1}, {"make_char", 1},    {"make_dir", 1},  {"make_reg", 1}, {"make_sock", 1},
    {"make_fifo", 1},   {"make_block", 1},   {"make_sym", 1},  {"refer", 2},    {"truncate", 3},
    {"ioctl_dev", 5},   {"resolve_unix", 9},
};
#define FS_RIGHTS (sizeof fs_rights / sizeof fs_rights[0])

enum tier { TIER_READ, TIER_EXEC, TIER_WRITE };

/* Does TIER grant fs right NAME? Read: read files, list directories, and
 * connect to the unix sockets in them (ABI 9; before it Landlock does not
 * hold connect, and a world of its own holds only the policy's paths). Exec:
 * that plus EXECUTE. Write: everything a writable tree needs, but not EXECUTE
 * (a freshly written binary must not run unless the exec allowlist names it)
 * and not device nodes (as root, `mknod kmsg c 1 11` would read the host's
 * kernel log through the project). */
static bool tier_grants(enum tier tier, const char *name, bool exec_open) {
    bool reading = strcmp(name, "read_file") == 0 || strcmp(name, "read_dir") == 0 ||
                   strcmp(name, "resolve_unix") == 0;
    bool executing = strcmp(name, "execute") == 0;
    bool device = strcmp(name, "make_char") == 0 || strcmp(name, "make_block") == 0;
    switch (tier) {
    case TIER_READ: return reading;
    case TIER_EXEC: return reading || (executing && !exec_open);
    case TIER_WRITE: return !executing && !device;
    }
    return false;
}

static bool handled(const char *name, int abi, bool exec_open) {
    for (size_t i = 0; i < FS_RIGHTS; i++)
        if (strcmp(fs_rights[i].name, name) == 0)
            return fs_rights[i].abi <= abi && !(exec_open && strcmp(name, "execute") == 0);
    return false;
}

static void add_rights(lcsb__buf *b, int abi, bool exec_open, int tier /* -1: handled */) {
    bool first = true;
    lcsb__buf_adds(b, "[");
    for (size_t i = 0; i < FS_RIGHTS; i++) {
        const char *name = fs_rights[i].name;
        if (!handled(name, abi, exec_open)) continue;
        if (tier >= 0 && !tier_grants((enum tier)tier, name, exec_open)) continue;
        lcsb__buf_addf(b, "%s\"%s\"", first ? "" : ",", name);
        first = false;
    }
    lcsb__buf_adds(b, "]");
}

typedef struct parts_writer {
    lcsb__strv parts;
    lcsb__buf cur;
    bool in_rule;
    bool rule_has_path;
    lcsb__buf rule_head; /* `{"access":[...],"paths":[` of the rule being written */
} parts_writer;

static int flush_part(parts_writer *w) {
    if (w->cur.len == 0) return 0;
    if (w->in_rule) lcsb__buf_adds(&w->cur, "]}");
    lcsb__buf_adds(&w->cur, "]}");
    if (w->cur.oom || lcsb__strv_push(&w->parts, w->cur.p)) return LCSB_ENOMEM;
    w->cur.len = 0;
    w->in_rule = false;
    return 0;
}

static void open_part(parts_writer *w) {
    lcsb__buf_addf(&w->cur, "{\"part\":%zu,\"rules\":[", w->parts.n + 1);
}

static int add_path(parts_writer *w, const char *path) {
    lcsb__buf item = {0};
    lcsb__buf_add_json_string(&item, path);
    if (item.oom) return LCSB_ENOMEM;
    /* Start a new part rather than cut a path: room for the rule head, the
     * path, and the closing brackets. */
    size_t need = w->rule_head.len + item.len + 8;
    if (w->cur.len && w->cur.len + need > LCSB__WIRE_PART_MAX && flush_part(w)) goto oom;
    if (w->cur.len == 0) open_part(w);
    if (!w->in_rule) {
        if (w->cur.p[w->cur.len - 1] == '}') lcsb__buf_adds(&w->cur, ",");
        lcsb__buf_add(&w->cur, w->rule_head.p, w->rule_head.len);
        w->in_rule = true;
        w->rule_has_path = false;
    }
    if (w->rule_has_path) lcsb__buf_adds(&w->cur, ",");
    lcsb__buf_add(&w->cur, item.p, item.len);
    w->rule_has_path = true;
    lcsb__buf_free(&item);
    return w->cur.oom ? LCSB_ENOMEM : 0;
oom:
    lcsb__buf_free(&item);
    return LCSB_ENOMEM;
}

static int add_rule(parts_writer *w, const lcsb__strv *paths, enum tier tier, int abi,
                    bool exec_open) {
    size_t n = 0;
    const char **sorted = lcsb__strv_sorted_unique(paths, &n);
    if (!sorted) return LCSB_ENOMEM;
    int rc = 0;
    w->rule_head.len = 0;
    lcsb__buf_adds(&w->rule_head, "{\"access\":");
    add_rights(&w->rule_head, abi, exec_open, (int)tier);
    lcsb__buf_adds(&w->rule_head, ",\"paths\":[");
    if (w->rule_head.oom) rc = LCSB_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++) rc = add_path(w, sorted[i]);
    if (!rc && w->in_rule) {
        lcsb__buf_adds(&w->cur, "]}");
        w->in_rule = false;
    }
    free(sorted);
    return rc;
}

static void add_ports(lcsb__buf *b, const char *access, const lcsb__ports *ports, bool *first) {
    if (ports->n == 0) return;
    lcsb__buf_addf(b, "%s{\"access\":[\"%s\"],\"ports\":[", *first ? "" : ",", access);
    *first = false;
    for (int port = lcsb__port_after(ports, -1), first_port = 1; port < 65536;
         port = lcsb__port_after(ports, port), first_port = 0)
        lcsb__buf_addf(b, "%s%d", first_port ? "" : ",", port);
    lcsb__buf_adds(b, "]}");
}

/* Does the command get a world of its own, with these parts DROPPED? */
static bool world_held(unsigned dropped) {
    return !(dropped & (LCSB_PART_WORLD | LCSB_PART_METADATA));
}

/* RLIMIT_NPROC does not bind root; the pid namespace's pid_max then holds,
 * and the kernel takes no pid_max below 301 (init + 299 + one past). */
static bool pids_unholdable(const lcsb_policy *policy) {
    unsigned long long pids = policy->limits[LCSB_LIMIT_PIDS];
    return pids && pids < 299 && geteuid() == 0;
}

/* What each part needs from the host, and why, for the refusal. */
static const char *part_gap(const landlock_backend *b, const lcsb_policy *policy, unsigned part,
                            char *why, size_t size) {
    int abi = b->abi;
    switch (part) {
    case LCSB_PART_NET:
        if (policy->net == LCSB_NET_OPEN) return NULL;
        if (policy->net == LCSB_NET_DOMAINS)
            return b->namespaces ? NULL
                                 : "no user namespaces here, in which the command gets a network "
                                   "of its own whose only way out is lcsb's proxy; without one "
                                   "the proxy listens on the host's loopback, and the command "
                                   "may reach its port on any host";
        if (!b->seccomp)
            return "no seccomp filters here, which refuse UDP and other non-TCP sockets";
        if (policy->net == LCSB_NET_PORTS && abi < 4) {
            snprintf(why, size, "Landlock ABI %d has no TCP port rules (they need ABI 4)", abi);
            return why;
        }
        return NULL;
    case LCSB_PART_SCOPE:
        if (abi >= 6) return NULL;
        snprintf(why, size,
                 "Landlock ABI %d cannot keep signals and abstract unix sockets inside the "
                 "sandbox (ABI 6)",
                 abi);
        return why;
    case LCSB_PART_TRUNCATE:
        if (abi >= 3) return NULL;
        snprintf(why, size, "Landlock ABI %d cannot refuse truncating read-only files (ABI 3)",
                 abi);
        return why;
    case LCSB_PART_IOCTL:
        if (abi >= 5) return NULL;
        snprintf(why, size, "Landlock ABI %d cannot refuse device ioctls (ABI 5)", abi);
        return why;
    case LCSB_PART_TERMINAL:
        return b->seccomp ? NULL : "no seccomp filters here, which refuse TIOCSTI";
    case LCSB_PART_WORLD:
        return b->namespaces ? NULL
                             : "no user namespaces here, in which the shim gives the command a "
                               "world of its own (pid, IPC, a root of the policy's paths)";
    case LCSB_PART_LIMITS:
        if (!lcsb__policy_first_limit(policy)) return NULL;
        if (!b->namespaces) return "no user namespaces here, and limits need a world of its own";
        if (pids_unholdable(policy)) {
            snprintf(why, size,
                     "limits.pids = %llu for root: the kernel does not count root's processes, "
                     "and a pid namespace holds no fewer than 299",
                     policy->limits[LCSB_LIMIT_PIDS]);
            return why;
        }
        return NULL;
    case LCSB_PART_MEMORY:
        /* Without a world, the limits part says what is missing. */
        if (!policy->limits[LCSB_LIMIT_MEMORY] || !b->namespaces || b->memory_cgroup) return NULL;
        return "no memory cgroup lcsb may make here (cgroup v2 with memory handed to the "
               "children of lcsb's cgroup, or a writable cgroup v1 memory hierarchy), which holds "
               "limits.memory for all the command's processes together and for what they share "
               "(SysV shared memory, memfds, tmpfs); without one RLIMIT_AS holds each process, "
               "and the IPC namespace's limits SysV IPC";
    case LCSB_PART_METADATA:
        return b->namespaces ? NULL
                             : "no user namespaces here, in which the shim makes the file system "
                               "read-only outside the write tier (chmod, chown, touch)";
    }
    return NULL;
}

/* The parts of POLICY this host cannot enforce go to *DROPPED when the policy
 * lets them degrade; any other is a refusal that names it and its remedy. */
static int check_parts(const landlock_backend *b, const lcsb_policy *policy, unsigned *dropped,
                       lcsb_error *err) {
    lcsb__buf refused = {0}, names = {0};
    char why[160];
    unsigned missing = 0;
    *dropped = 0;
    for (unsigned part = 1; part <= LCSB_PARTS_ALL; part <<= 1) {
        const char *gap = part_gap(b, policy, part, why, sizeof why);
        if (!gap) continue;
        if (policy->degradable & part) {
            *dropped |= part;
            continue;
        }
        lcsb__buf_addf(&refused, "%s%s (%s)", refused.len ? "; " : "", lcsb_part_name(part), gap);
        missing |= part;
    }
    lcsb__add_part_names(&names, missing, "\"", ", ");
    int rc = 0;
    if (refused.oom || names.oom)
        rc = lcsb__fail(err, LCSB_ENOMEM, "landlock: out of memory");
    else if (refused.len)
        rc = lcsb__fail(err, LCSB_EUNAVAIL,
                        "landlock: this host cannot enforce %s; to run without %s, the policy "
                        "must say degrade = { %s }",
                        refused.p, missing & (missing - 1) ? "them" : "it", names.p);
    lcsb__buf_free(&refused);
    lcsb__buf_free(&names);
    return rc;
}

/* PATHS as a JSON array, sorted, or [] when there is no world to hold them. */
static int add_paths(lcsb__buf *b, const lcsb__strv *paths, bool own_world) {
    size_t n = 0;
    const char **sorted = lcsb__strv_sorted_unique(paths, &n);
    if (!sorted) return LCSB_ENOMEM;
    lcsb__buf_adds(b, "[");
    for (size_t i = 0; own_world && i < n; i++) {
        if (i) lcsb__buf_adds(b, ",");
        lcsb__buf_add_json_string(b, sorted[i]);
    }
    lcsb__buf_adds(b, "]");
    free(sorted);
    return 0;
}

/* ,"private":[{"path":P,"links":[[REL,TARGET],...]},...]: the private
 * directories the shim makes in the world, a tmpfs each, in the policy's
 * order; nothing when there are none. */
static void add_private(lcsb__buf *b, const lcsb_policy *policy) {
    if (!policy->priv_n) return;
    lcsb__buf_adds(b, ",\"private\":[");
    for (size_t i = 0; i < policy->priv_n; i++) {
        const lcsb__private *d = &policy->priv[i];
        lcsb__buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        lcsb__buf_add_json_string(b, d->path);
        lcsb__buf_adds(b, ",\"links\":[");
        for (size_t j = 0; j + 1 < d->links.n; j += 2) {
            lcsb__buf_adds(b, j ? ",[" : "[");
            lcsb__buf_add_json_string(b, d->links.v[j]);
            lcsb__buf_adds(b, ",");
            lcsb__buf_add_json_string(b, d->links.v[j + 1]);
            lcsb__buf_adds(b, "]");
        }
        lcsb__buf_adds(b, "]}");
    }
    lcsb__buf_adds(b, "]");
}

/* The env overlay's TMPDIR, which a tmp limit makes a tmpfs of its size. */
static const char *tmpdir_of(const lcsb_policy *policy) {
    for (size_t i = policy->env_n; i > 0; i--)
        if (strcmp(policy->env[i - 1].name, "TMPDIR") == 0) return policy->env[i - 1].value;
    return NULL;
}

/* The limits in force: none when the part is dropped, and without pids when
 * that one is what cannot be held. A memory limit names the cgroup that
 * holds it, unless the memory part is dropped; the private tmp, a tmpfs,
 * is memory too, and holds no more than the memory limit. */
static void add_limits(const landlock_backend *lb, lcsb__buf *b, const lcsb_policy *policy,
                       unsigned dropped) {
    bool first = true;
    bool none = !world_held(dropped);
    unsigned long long memory = policy->limits[LCSB_LIMIT_MEMORY];
    lcsb__buf_adds(b, "{");
    for (unsigned k = 0; k < LCSB_LIMITS && !none; k++) {
        unsigned long long v = policy->limits[k];
        if (!v || (k == LCSB_LIMIT_PIDS && pids_unholdable(policy))) continue;
        if (k == LCSB_LIMIT_TMP && memory && memory < v) v = memory;
        lcsb__buf_addf(b, "%s\"%s\":%llu", first ? "" : ",", lcsb_limit_name(k), v);
        first = false;
    }
    if (policy->limits[LCSB_LIMIT_TMP] && !none) {
        lcsb__buf_adds(b, ",\"tmpdir\":");
        lcsb__buf_add_json_string(b, tmpdir_of(policy));
    }
    if (memory && !none && !(dropped & LCSB_PART_MEMORY))
        lcsb__buf_addf(b, ",\"cgroup\":\"v%d\"", lb->memory_cgroup);
    lcsb__buf_adds(b, "}");
}

/* What a tmp limit needs; hidden paths need the world (they are no part:
 * what they hide would be seen). */
static int check_world_paths(const lcsb_policy *policy, unsigned dropped, lcsb_error *err) {
    if (policy->hide.n && !world_held(dropped))
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "landlock: cannot hide %s: hidden paths need a world of its own, which "
                          "this host cannot give (the world part is dropped)",
                          policy->hide.v[0]);
    if (policy->limits[LCSB_LIMIT_TMP] && world_held(dropped)) {
        const char *tmpdir = tmpdir_of(policy);
        bool writable = false;
        for (size_t i = 0; tmpdir && i < policy->write.n; i++)
            writable |= strcmp(policy->write.v[i], tmpdir) == 0;
        if (!writable)
            return lcsb__fail(err, LCSB_EINVAL,
                              "landlock: limits.tmp needs TMPDIR set, to a path of the write "
                              "tier (exec_policy's private TMPDIR is one)");
    }
    return 0;
}

/* The filesystem tiers as parts into W: read, exec, and write, which in a
 * world of its own also holds what pins a protected or hidden path. */
static int write_fs_parts(parts_writer *w, const lcsb_policy *policy, int abi, bool own_world) {
    bool exec_open = policy->exec_open;
    /* In a world of its own, what holds a protected or hidden path in
     * place is a write path too: the shim mounts each write path. */
    lcsb__strv write = {0};
    int rc = lcsb__strv_push_all(&write, (const char *const *)policy->write.v);
    if (!rc && own_world) rc = lcsb__policy_pins(policy, &write);
    if (!rc) rc = add_rule(w, &policy->read, TIER_READ, abi, exec_open);
    if (!rc) rc = add_rule(w, &policy->exec, TIER_EXEC, abi, exec_open);
    if (!rc) rc = add_rule(w, &write, TIER_WRITE, abi, exec_open);
    if (!rc) rc = flush_part(w);
    lcsb__strv_clear(&write);
    return rc;
}

/* The wire header (docs/wire-format.md) into HEADER, for PARTS parts: the
 * rights handled, the network and its ports, the scope and sockets, what
 * was dropped, the world, protect, hide, limits and the proxy's port. */
static int write_header(lcsb__buf *header, const landlock_backend *b, const lcsb_policy *policy,
                        int abi, unsigned dropped, size_t parts) {
    bool exec_open = policy->exec_open;
    bool own_world = world_held(dropped);
    bool tcp_rules = policy->net != LCSB_NET_OPEN && abi >= 4;
    /* Under domains the command reaches lcsb's proxy on a loopback port, its
     * own network's (the shim listens there), or the host's when the net
     * part is dropped; the policy's ports are then for its own loopback. */
    bool domains = policy->net == LCSB_NET_DOMAINS;
    bool own_network = domains && own_world && !(dropped & LCSB_PART_NET);
    uint16_t proxy = lcsb__proxy_port(policy);
    lcsb__ports connect = policy->connect;
    uint16_t *with_proxy = NULL;
    if (domains && tcp_rules) {
        if (!(with_proxy = malloc((connect.n + 1) * sizeof *with_proxy))) return LCSB_ENOMEM;
        if (connect.n) memcpy(with_proxy, connect.v, connect.n * sizeof *with_proxy);
        with_proxy[connect.n] = proxy;
        connect = (lcsb__ports){with_proxy, connect.n + 1};
    }
    lcsb__buf_addf(header, "%s%d,\"abi\":%d,\"parts\":%zu,\"fs\":", LCSB__WIRE_KEY,
                   LCSB__WIRE_VERSION, abi, parts);
    add_rights(header, abi, exec_open, -1);
    lcsb__buf_addf(header, ",\"net\":%s,\"ports\":[",
                   tcp_rules ? "[\"bind_tcp\",\"connect_tcp\"]" : "[]");
    bool first = true;
    if (tcp_rules && policy->net != LCSB_NET_DENY) {
        add_ports(header, "bind_tcp", &policy->bind, &first);
        add_ports(header, "connect_tcp", &connect, &first);
    }
    free(with_proxy);
    /* Landlock's rules cover TCP only; the shim's socket filter closes the
     * rest: only unix sockets when the network is denied (TCP included, so a
     * denied network needs no TCP rules), unix and TCP (held to the ports by
     * Landlock) when ports or domains are allowed. */
    const char *sockets = !b->seccomp || policy->net == LCSB_NET_OPEN ? "any"
                          : policy->net == LCSB_NET_DENY              ? "unix"
                                                                      : "unix+tcp";
    lcsb__buf_addf(header, "],\"scope\":%s,\"sockets\":\"%s\",\"dropped\":[",
                   abi >= 6 ? "[\"abstract_unix_socket\",\"signal\"]" : "[]", sockets);
    lcsb__add_part_names(header, dropped, "\"", ",");
    lcsb__buf_addf(header, "],\"world\":\"%s\",\"protect\":", own_world ? "policy" : "open");
    int rc = add_paths(header, &policy->protect, own_world);
    lcsb__buf_adds(header, ",\"hide\":");
    if (!rc) rc = add_paths(header, &policy->hide, own_world);
    lcsb__buf_adds(header, ",\"limits\":");
    add_limits(b, header, policy, dropped);
    lcsb__buf_addf(header, ",\"proxy\":%u", own_network ? (unsigned)proxy : 0u);
    if (own_world) add_private(header, policy);
    lcsb__buf_adds(header, "}");
    return rc;
}

static int landlock_wrap(const lcsb_backend *backend, const lcsb_policy *policy,
                         const char *const *argv, const char *const *env, lcsb__strv *out,
                         lcsb_error *err) {
    (void)env; /* the shim's environment, from lcsb_env_block */
    const landlock_backend *b = landlock_of(backend);
    int abi = b->abi;
    if (abi < 1 || abi > LCSB__LANDLOCK_ABI_MAX)
        return lcsb__fail(err, LCSB_EINVAL, "landlock: ABI %d is not one lcsb knows (1..%d)", abi,
                          LCSB__LANDLOCK_ABI_MAX);
    unsigned dropped = 0;
    int rc = check_parts(b, policy, &dropped, err);
    if (!rc) rc = check_world_paths(policy, dropped, err);
    if (!rc) rc = lcsb__check_exec_dirs(policy, "EXECUTE", err);
    if (rc) return rc;
    parts_writer w = {0};
    lcsb__buf header = {0};
    rc = write_fs_parts(&w, policy, abi, world_held(dropped));
    if (!rc) rc = write_header(&header, b, policy, abi, dropped, w.parts.n);
    if (rc) goto out;
    if (header.oom) {
        rc = LCSB_ENOMEM;
        goto out;
    }
    if (lcsb__strv_push(out, b->shim) || lcsb__strv_push(out, header.p) ||
        lcsb__strv_push_all(out, (const char *const *)w.parts.v) || lcsb__strv_push(out, "--") ||
        lcsb__strv_push_all(out, argv))
        rc = LCSB_ENOMEM;
out:
    if (rc == LCSB_ENOMEM) lcsb__fail(err, rc, "landlock: out of memory");
    lcsb__buf_free(&header);
    lcsb__buf_free(&w.cur);
    lcsb__buf_free(&w.rule_head);
    lcsb__strv_clear(&w.parts);
    return rc;
}

static int landlock_validate(const lcsb_backend *backend, const lcsb_policy *policy,
                             lcsb_error *err) {
    const landlock_backend *b = landlock_of(backend);
    if (access(b->shim, X_OK) != 0)
        return lcsb__fail(err, LCSB_EUNAVAIL, "landlock: the shim %s is not executable", b->shim);
    unsigned dropped;
    int rc = check_parts(b, policy, &dropped, err);
    if (rc) return rc;
    rc = lcsb__check_env_listed(policy, err);
    return rc ? rc : lcsb__validate_paths(policy, !policy->exec_open, NULL, err);
}

/* ---- the attestation: the header read back ---- */

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

static bool is_shim(const char *arg) {
    const char *base = strrchr(arg, '/');
    return strcmp(base ? base + 1 : arg, LCSB__SHIM_NAME) == 0;
}

/* ARGV is `lcsb-exec HEADER ...`: what the header says the shim enforces. */
/* "limits":{"time":5,"pids":300,...} as "time=5 pids=300" (tmpdir left out). */
static void read_limits(const char *limits, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (unsigned k = 0; k < LCSB_LIMITS; k++) {
        const char *name = lcsb_limit_name(k);
        long v = lcsb__json_int(lcsb__json_find(limits, name));
        if (v < 0) continue;
        int n = snprintf(out + used, size - used, "%s%s=%ld", used ? " " : "", name, v);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

static int landlock_attest(const char *const *argv, const char *const *prefix,
                           lcsb_attestation *out, lcsb_error *err) {
    (void)prefix;
    if (!argv || !argv[0] || !argv[1] || !is_shim(argv[0]) ||
        strncmp(argv[1], LCSB__WIRE_KEY, strlen(LCSB__WIRE_KEY)) != 0)
        return LCSB__NOT_MINE;
    const char *header = argv[1];
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
    const char *sockets = lcsb__json_choice(lcsb__json_find(header, "sockets"), socket_rules);
    long dropped = read_dropped(lcsb__json_find(header, "dropped"));
    static const char *const worlds[] = {"policy", "open", NULL};
    const char *world = lcsb__json_choice(lcsb__json_find(header, "world"), worlds);
    int protect = lcsb__json_array(lcsb__json_find(header, "protect"), NULL, NULL);
    const char *limits = lcsb__json_find(header, "limits");
    long proxy = lcsb__json_int(lcsb__json_find(header, "proxy"));
    if (abi < 1 || fs < 0 || net < 0 || ports < 0 || scope < 0 || !sockets || dropped < 0 ||
        !world || protect < 0 || !limits || *limits != '{' || proxy < 0 || proxy > 65535)
        return lcsb__fail(err, LCSB_EINVAL, "attest: the shim's header is malformed");
    /* Landlock's network rules cover TCP only; the shim's socket filter, when
     * the header asks for one, covers every other socket, and "unix" refuses
     * TCP sockets as well. "denied" and "ports" are said only when every
     * socket is held: TCP rules alone (no filter) leave UDP and the rest
     * open, which is "open", with net_covers "tcp" for what is held. */
    bool tcp_rules = connect && bind;
    bool unix_only = strcmp(sockets, "unix") == 0, filter = strcmp(sockets, "any") != 0;
    bool all = unix_only || (filter && tcp_rules);
    bool own = strcmp(world, "policy") == 0;
    *out = (lcsb_attestation){
        .backend = LCSB_MECHANISM_LANDLOCK,
        .fs = fs > 0 ? LCSB_FS_ENFORCED : LCSB_FS_OPEN,
        .exec = execute ? LCSB_EXEC_ALLOWLIST : LCSB_EXEC_OPEN,
        .net = !all                     ? LCSB_NET_OPEN
               : tcp_rules && ports > 0 ? LCSB_NET_PORTS
                                        : LCSB_NET_DENY,
        .net_covers = all         ? LCSB_NET_COVERS_ALL
                      : tcp_rules ? LCSB_NET_COVERS_TCP
                                  : LCSB_NET_COVERS_NOTHING,
        .net_by = all && tcp_rules ? LCSB_NET_BY_LANDLOCK_SECCOMP
                  : all            ? LCSB_NET_BY_SECCOMP
                  : tcp_rules      ? LCSB_NET_BY_LANDLOCK
                                   : LCSB_NET_BY_NOTHING,
        .abi = (int)abi,
        .scoped = signal && abstract,
        .dropped = (unsigned)dropped,
        .metadata = own ? LCSB_HELD_READONLY : LCSB_HELD_OPEN,
        .protected_paths = !own          ? LCSB_HELD_OPEN
                           : protect > 0 ? LCSB_HELD_READONLY
                                         : LCSB_HELD_NONE,
        .world = own ? LCSB_HELD_OWN : LCSB_HELD_OPEN,
    };
    /* A network of its own has loopback alone: lcsb's proxy is the way out. */
    if (proxy > 0 && own) {
        out->net = LCSB_NET_DOMAINS;
        out->net_covers = LCSB_NET_COVERS_ALL;
        out->net_by = LCSB_NET_BY_NAMESPACE;
    }
    read_limits(limits, out->limits, sizeof out->limits);
    /* A memory limit in force is held by the cgroup the header names, or,
     * without one, per process and in the IPC namespace only. */
    static const char *const cgroups[] = {"v1", "v2", NULL};
    const char *cgroup = lcsb__json_choice(lcsb__json_find(limits, "cgroup"), cgroups);
    if (lcsb__json_int(lcsb__json_find(limits, "memory")) > 0)
        out->memory_by = !cgroup                     ? LCSB_MEMORY_BY_RLIMIT
                         : strcmp(cgroup, "v2") == 0 ? LCSB_MEMORY_BY_CGROUP2
                                                     : LCSB_MEMORY_BY_CGROUP1;
    return 0;
}

/* In a world of its own the shim makes them: the run makes nothing on the host. */
static bool landlock_makes_private(const lcsb_backend *backend, const lcsb_policy *policy) {
    unsigned dropped = 0;
    return check_parts(landlock_of(backend), policy, &dropped, NULL) == 0 && world_held(dropped);
}

static void landlock_release(lcsb_backend *backend) { free(((landlock_backend *)backend)->shim); }

const lcsb__backend_ops lcsb__landlock_ops = {
    .name = "landlock",
    .contains_prefix = false,
    .is_mechanism = true,
    .validate = landlock_validate,
    .wrap = landlock_wrap,
    .makes_private = landlock_makes_private,
    .attest = landlock_attest,
    .release = landlock_release,
};

int lcsb__landlock_new(int abi, const char *shim, bool seccomp, bool namespaces, int memory_cgroup,
                       lcsb_backend **out, lcsb_error *err) {
    if (abi < 1 || abi > LCSB__LANDLOCK_ABI_MAX)
        return lcsb__fail(err, LCSB_EINVAL, "landlock: ABI %d is not one lcsb knows (1..%d)", abi,
                          LCSB__LANDLOCK_ABI_MAX);
    if (!shim || shim[0] != '/')
        return lcsb__fail(err, LCSB_EINVAL, "landlock: the shim path must be absolute");
    lcsb_backend *backend;
    int rc = lcsb__backend_new(&lcsb__landlock_ops, sizeof(landlock_backend), &backend, err);
    if (rc) return rc;
    landlock_backend *b = (landlock_backend *)backend;
    if (!(b->shim = strdup(shim))) {
        lcsb_backend_free(backend);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    b->abi = abi;
    b->seccomp = seccomp;
    b->namespaces = namespaces;
    b->memory_cgroup = memory_cgroup == 1 || memory_cgroup == 2 ? memory_cgroup : 0;
    *out = backend;
    return 0;
}

/* Configured by hand: the caller vouches for the host, seccomp, namespaces
 * and a cgroup v2 memory cgroup included. */
int lcsb_backend_landlock(int abi, const char *shim, lcsb_backend **out, lcsb_error *err) {
    return lcsb__landlock_new(abi, shim, true, true, 2, out, err);
}
