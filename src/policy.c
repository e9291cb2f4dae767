/* The Policy: mechanism-free path sets, env overlay, network, working directory.
 * Building one is pure: paths are checked and normalized lexically, never
 * looked up on disk (that is validation's job, just before a run). */
#include "policy.h"

#include "envname.h"
#include "netname.h"
#include "path.h"
#include "secrets.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lcsb_policy *lcsb_policy_new(void) { return calloc(1, sizeof(lcsb_policy)); }

void lcsb_policy_free(lcsb_policy *policy) {
    if (!policy) return;
    lcsb__strv_clear(&policy->read);
    lcsb__strv_clear(&policy->write);
    lcsb__strv_clear(&policy->exec);
    lcsb__strv_clear(&policy->protect);
    lcsb__strv_clear(&policy->hide);
    for (size_t i = 0; i < policy->priv_n; i++) {
        free(policy->priv[i].path);
        lcsb__strv_clear(&policy->priv[i].links);
    }
    free(policy->priv);
    for (size_t i = 0; i < policy->env_n; i++) {
        free(policy->env[i].name);
        free(policy->env[i].value);
    }
    free(policy->env);
    lcsb__strv_clear(&policy->env_pass);
    free(policy->connect.v);
    free(policy->bind.v);
    lcsb__strv_clear(&policy->domains);
    lcsb__strv_clear(&policy->secrets);
    lcsb__strv_clear(&policy->lan);
    free(policy->netns);
    free(policy->ca_bundle);
    free(policy->java_truststore);
    free(policy->cwd);
    free(policy);
}

/* Count LEN more bytes held by POLICY, unless that passes the ceiling. */
static int hold(lcsb_policy *policy, const char *what, size_t len, lcsb_error *err) {
    if (len > LCSB_POLICY_BYTES_MAX - policy->bytes)
        return lcsb__fail(err, LCSB_ETOOBIG,
                          "%s: the policy would hold more than %zu MiB of paths and environment",
                          what, LCSB_POLICY_BYTES_MAX >> 20);
    policy->bytes += len;
    return 0;
}

static int add_path(lcsb_policy *policy, lcsb__strv *set, const char *what, const char *path,
                    lcsb_error *err) {
    char norm[PATH_MAX];
    int rc = lcsb__path_normalize(what, path, norm, err);
    if (!rc) rc = hold(policy, what, strlen(norm) + 1, err);
    if (rc) return rc;
    if (lcsb__strv_push(set, norm)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

int lcsb_policy_add_read(lcsb_policy *policy, const char *path, lcsb_error *err) {
    return add_path(policy, &policy->read, "read", path, err);
}

int lcsb_policy_add_write(lcsb_policy *policy, const char *path, lcsb_error *err) {
    return add_path(policy, &policy->write, "write", path, err);
}

int lcsb_policy_add_exec(lcsb_policy *policy, const char *path, lcsb_error *err) {
    return add_path(policy, &policy->exec, "exec", path, err);
}

int lcsb_policy_add_protect(lcsb_policy *policy, const char *path, lcsb_error *err) {
    return add_path(policy, &policy->protect, "protect", path, err);
}

int lcsb_policy_add_hide(lcsb_policy *policy, const char *path, lcsb_error *err) {
    return add_path(policy, &policy->hide, "hide", path, err);
}

/* A link's place in its private directory: relative, in normal form, and
 * staying inside it (no "." or ".." component), since the shim and the run
 * make it below the directory by descriptor. */
static bool link_rel_ok(const char *rel) {
    size_t len = strlen(rel);
    if (len == 0 || len >= PATH_MAX || rel[0] == '/' || rel[len - 1] == '/') return false;
    for (const char *p = rel; *p;) {
        const char *end = strchrnul(p, '/');
        size_t n = (size_t)(end - p);
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p = *end ? end + 1 : end;
    }
    return true;
}

int lcsb__policy_add_private(lcsb_policy *policy, const char *path, const char *const *links,
                             lcsb_error *err) {
    char norm[PATH_MAX], target[PATH_MAX];
    int rc = lcsb__path_normalize("private", path, norm, err);
    if (!rc && strcmp(norm, "/") == 0)
        rc = lcsb__fail(err, LCSB_EINVAL, "private: / cannot be a private directory");
    size_t n = 0, bytes = rc ? 0 : strlen(norm) + 1;
    for (; !rc && links && links[n]; n += 2) {
        if (!links[n + 1])
            return lcsb__fail(err, LCSB_EINVAL, "private: %s: a link without its target", norm);
        if (!link_rel_ok(links[n]))
            return lcsb__fail(err, LCSB_EINVAL,
                              "private: %s: link \"%s\" is no relative path inside it", norm,
                              links[n]);
        /* Targets come normal already: the setter keeps them as given. */
        rc = lcsb__path_normalize("private link", links[n + 1], target, err);
        if (!rc && strcmp(target, links[n + 1]) != 0)
            rc = lcsb__fail(err, LCSB_EINVAL, "private link: %s is not in normal form (%s)",
                            links[n + 1], target);
        bytes += strlen(links[n]) + strlen(links[n + 1]) + 2;
    }
    if (!rc) rc = hold(policy, "private", bytes, err);
    if (rc) return rc;
    lcsb__private *v = realloc(policy->priv, (policy->priv_n + 1) * sizeof *v);
    if (!v) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    policy->priv = v;
    lcsb__private *d = &v[policy->priv_n];
    *d = (lcsb__private){strdup(norm), {0}};
    bool ok = d->path && (n == 0 || !lcsb__strv_push_all(&d->links, links));
    if (!ok) {
        free(d->path);
        lcsb__strv_clear(&d->links);
        policy->bytes -= bytes;
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    policy->priv_n++;
    return 0;
}

bool lcsb__policy_private_at(const lcsb_policy *policy, const char *path) {
    for (size_t i = 0; i < policy->priv_n; i++)
        if (lcsb__path_within(path, policy->priv[i].path)) return true;
    return false;
}

void lcsb_policy_set_exec_open(lcsb_policy *policy, bool open) { policy->exec_open = open; }

static const char *const limit_names[LCSB_LIMITS] = {"time", "memory", "pids", "files", "tmp"};

const char *lcsb_limit_name(lcsb_limit limit) {
    return (unsigned)limit < LCSB_LIMITS ? limit_names[limit] : NULL;
}

int lcsb_policy_set_limit(lcsb_policy *policy, lcsb_limit limit, unsigned long long value,
                          lcsb_error *err) {
    /* What the shim takes (shim/wire.h): pid_max's and nr_open's ceilings. */
    static const unsigned long long highest[LCSB_LIMITS] = {UINT32_MAX, UINT64_MAX / 2, 4194304,
                                                            1073741816, UINT64_MAX / 2};
    if ((unsigned)limit >= LCSB_LIMITS)
        return lcsb__fail(err, LCSB_EINVAL, "limit %d: no such limit", (int)limit);
    if (value > highest[limit])
        return lcsb__fail(err, LCSB_EINVAL, "limits.%s: %llu is more than %llu", limit_names[limit],
                          value, highest[limit]);
    policy->limits[limit] = value;
    return 0;
}

unsigned long long lcsb_policy_limit(const lcsb_policy *policy, lcsb_limit limit) {
    return (unsigned)limit < LCSB_LIMITS ? policy->limits[limit] : 0;
}

const char *lcsb__policy_first_limit(const lcsb_policy *policy) {
    for (unsigned k = 0; k < LCSB_LIMITS; k++)
        if (policy->limits[k]) return limit_names[k];
    return NULL;
}

static bool valid_env_name(const char *name) {
    if (!*name) return false;
    for (const char *p = name; *p; p++)
        if (*p == '=') return false;
    return true;
}

int lcsb_policy_set_env(lcsb_policy *policy, const char *name, const char *value, lcsb_error *err) {
    if (!name || !valid_env_name(name))
        return lcsb__fail(err, LCSB_EINVAL, "env: \"%s\" is not a variable name",
                          name ? name : "(null)");
    int rc = hold(policy, "env", strlen(name) + (value ? strlen(value) : 0) + 2, err);
    if (rc) return rc;
    char *copy = NULL;
    if (value && !(copy = strdup(value))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    for (size_t i = 0; i < policy->env_n; i++) {
        if (strcmp(policy->env[i].name, name) == 0) {
            free(policy->env[i].value);
            policy->env[i].value = copy;
            return 0;
        }
    }
    lcsb__env *env = realloc(policy->env, (policy->env_n + 1) * sizeof *env);
    char *name_copy = strdup(name);
    if (env) policy->env = env;
    if (!env || !name_copy) {
        free(copy);
        free(name_copy);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    policy->env[policy->env_n++] = (lcsb__env){.name = name_copy, .value = copy};
    return 0;
}

size_t lcsb_policy_env_count(const lcsb_policy *policy) { return policy->env_n; }
const char *lcsb_policy_env(const lcsb_policy *policy, size_t i, const char **value) {
    if (value) *value = i < policy->env_n ? policy->env[i].value : NULL;
    return i < policy->env_n ? policy->env[i].name : NULL;
}

bool lcsb__policy_has_env(const lcsb_policy *policy) {
    return policy->env_n > 0 || policy->net == LCSB_NET_DOMAINS;
}

uint16_t lcsb__proxy_port(const lcsb_policy *policy) {
    return policy->proxy_port ? policy->proxy_port : LCSB__PROXY_PORT;
}

int lcsb_policy_pass_env(lcsb_policy *policy, const char *name, lcsb_error *err) {
    if (!name || !lcsb__env_valid_entry(name))
        return lcsb__fail(err, LCSB_EINVAL, "env.pass: \"%s\" is not a variable name or pattern",
                          name ? name : "(null)");
    for (size_t i = 0; i < policy->env_pass.n; i++)
        if (strcmp(policy->env_pass.v[i], name) == 0) return 0;
    int rc = hold(policy, "env.pass", strlen(name) + 1, err);
    if (rc) return rc;
    if (lcsb__strv_push(&policy->env_pass, name))
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

void lcsb_policy_set_env_inherit(lcsb_policy *policy, bool inherit) {
    policy->env_inherit = inherit;
}

bool lcsb_policy_env_inherit(const lcsb_policy *policy) { return policy->env_inherit; }

int lcsb__port_after(const lcsb__ports *ports, int last) {
    int next = 65536;
    for (size_t i = 0; i < ports->n; i++)
        if (ports->v[i] > last && ports->v[i] < next) next = ports->v[i];
    return next;
}

/* Ascending and once each, as lcsb__port_after walks them: the same policy
 * reads back the same whatever order its script added them in. */
size_t lcsb_policy_port_count(const lcsb_policy *policy, lcsb_port_kind kind) {
    const lcsb__ports *ports = kind == LCSB_PORT_BIND ? &policy->bind : &policy->connect;
    size_t n = 0;
    for (int port = lcsb__port_after(ports, -1); port < 65536; port = lcsb__port_after(ports, port))
        n++;
    return n;
}

unsigned lcsb_policy_port(const lcsb_policy *policy, lcsb_port_kind kind, size_t i) {
    const lcsb__ports *ports = kind == LCSB_PORT_BIND ? &policy->bind : &policy->connect;
    int port = lcsb__port_after(ports, -1);
    for (; port < 65536 && i > 0; i--) port = lcsb__port_after(ports, port);
    return port < 65536 ? (unsigned)port : 0;
}

void lcsb_policy_set_net(lcsb_policy *policy, lcsb_net net) { policy->net = net; }

int lcsb_policy_add_port(lcsb_policy *policy, lcsb_port_kind kind, long port, lcsb_error *err) {
    const char *what = kind == LCSB_PORT_BIND ? "bind" : "connect";
    if (port < 1 || port > 65535)
        return lcsb__fail(err, LCSB_EINVAL, "net.%s: port %ld is not in 1..65535", what, port);
    int rc = hold(policy, what, sizeof(uint16_t), err);
    if (rc) return rc;
    lcsb__ports *ports = kind == LCSB_PORT_BIND ? &policy->bind : &policy->connect;
    uint16_t *v = realloc(ports->v, (ports->n + 1) * sizeof *v);
    if (!v) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    ports->v = v;
    ports->v[ports->n++] = (uint16_t)port;
    /* Under domains, ports are the command's own loopback's. */
    if (policy->net == LCSB_NET_DENY) policy->net = LCSB_NET_PORTS;
    return 0;
}

/* An entry of the network's names, kept in its normal form. */
static int add_net_entry(lcsb_policy *policy, lcsb__strv *set, const char *what, const char *normal,
                         lcsb_error *err) {
    int rc = hold(policy, what, strlen(normal) + 1, err);
    if (rc) return rc;
    if (lcsb__strv_push(set, normal)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

int lcsb_policy_add_domain(lcsb_policy *policy, const char *entry, lcsb_error *err) {
    lcsb__domain d;
    char why[256], normal[LCSB__DOMAIN_TEXT_MAX];
    if (!entry) return lcsb__fail(err, LCSB_EINVAL, "net.domains: no entry");
    if (lcsb__domain_parse(entry, &d, why, sizeof why) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "%s", why);
    lcsb__domain_format(&d, normal, sizeof normal);
    /* One entry a spelling: "pkg.example.org once" twice (or "PKG.example.org.
     * once") is one connection, not two. */
    for (size_t i = 0; i < policy->domains.n; i++)
        if (strcmp(policy->domains.v[i], normal) == 0) {
            policy->net = LCSB_NET_DOMAINS;
            return 0;
        }
    int rc = add_net_entry(policy, &policy->domains, "net.domains", normal, err);
    if (!rc) policy->net = LCSB_NET_DOMAINS;
    return rc;
}

int lcsb_policy_add_lan(lcsb_policy *policy, const char *range, lcsb_error *err) {
    lcsb__cidr c;
    char why[256], normal[64];
    if (!range) return lcsb__fail(err, LCSB_EINVAL, "net.lan: no entry");
    if (lcsb__cidr_parse(range, &c, why, sizeof why) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "%s", why);
    lcsb__cidr_format(&c, normal, sizeof normal);
    return add_net_entry(policy, &policy->lan, "net.lan", normal, err);
}

int lcsb_policy_add_secret(lcsb_policy *policy, const char *name, const char *hosts,
                           lcsb_error *err) {
    lcsb__secret s;
    char why[300], normal[LCSB__SECRET_NAME_MAX + LCSB__SECRET_HOSTS_MAX * LCSB__DOMAIN_TEXT_MAX];
    if (!name || !hosts) return lcsb__fail(err, LCSB_EINVAL, "secrets: no name or no hosts");
    if (lcsb__secret_parse(name, hosts, &s, why, sizeof why) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "%s", why);
    size_t len = strlen(s.name);
    for (size_t i = 0; i < policy->secrets.n; i++)
        if (strncmp(policy->secrets.v[i], s.name, len) == 0 && policy->secrets.v[i][len] == ' ')
            return lcsb__fail(err, LCSB_EINVAL, "secrets.%s: given twice", s.name);
    if (policy->secrets.n >= LCSB__SECRETS_MAX)
        return lcsb__fail(err, LCSB_EINVAL, "secrets: at most %d", LCSB__SECRETS_MAX);
    lcsb__secret_format(&s, normal, sizeof normal);
    return add_net_entry(policy, &policy->secrets, "secrets", normal, err);
}

size_t lcsb_policy_secret_count(const lcsb_policy *policy) { return policy->secrets.n; }
const char *lcsb_policy_secret(const lcsb_policy *policy, size_t i) {
    return i < policy->secrets.n ? policy->secrets.v[i] : NULL;
}

size_t lcsb_policy_domain_count(const lcsb_policy *policy) { return policy->domains.n; }
const char *lcsb_policy_domain(const lcsb_policy *policy, size_t i) {
    return i < policy->domains.n ? policy->domains.v[i] : NULL;
}
size_t lcsb_policy_lan_count(const lcsb_policy *policy) { return policy->lan.n; }
const char *lcsb_policy_lan(const lcsb_policy *policy, size_t i) {
    return i < policy->lan.n ? policy->lan.v[i] : NULL;
}

int lcsb_policy_set_cwd(lcsb_policy *policy, const char *path, lcsb_error *err) {
    char *copy = NULL;
    if (path) {
        char norm[PATH_MAX];
        int rc = lcsb__path_normalize("cwd", path, norm, err);
        if (rc) return rc;
        if (!(copy = strdup(norm))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    free(policy->cwd);
    policy->cwd = copy;
    return 0;
}

const char *const lcsb__part_names[] = {"net",      "scope", "truncate", "ioctl",  "terminal",
                                        "metadata", "world", "limits",   "memory", NULL};
#define PART_COUNT (sizeof lcsb__part_names / sizeof lcsb__part_names[0] - 1)

const char *lcsb_part_name(unsigned part) {
    for (size_t i = 0; i < PART_COUNT; i++)
        if (part == 1u << i) return lcsb__part_names[i];
    return NULL;
}

unsigned lcsb_part_from_name(const char *name) {
    for (size_t i = 0; name && i < PART_COUNT; i++)
        if (strcmp(lcsb__part_names[i], name) == 0) return 1u << i;
    return 0;
}

void lcsb__add_part_names(lcsb__buf *b, unsigned parts, const char *quote, const char *sep) {
    bool first = true;
    for (size_t i = 0; i < PART_COUNT; i++) {
        if (!(parts & (1u << i))) continue;
        lcsb__buf_addf(b, "%s%s%s%s", first ? "" : sep, quote, lcsb__part_names[i], quote);
        first = false;
    }
}

void lcsb_policy_set_degradable(lcsb_policy *policy, unsigned parts) {
    policy->degradable = parts & LCSB_PARTS_ALL;
}

unsigned lcsb_policy_degradable(const lcsb_policy *policy) { return policy->degradable; }

static const char *const tier_names[LCSB_TIERS] = {"read", "write", "exec", "protect", "hide"};

const char *lcsb_tier_name(lcsb_tier tier) {
    return (unsigned)tier < LCSB_TIERS ? tier_names[tier] : NULL;
}

static const lcsb__strv *tier_of(const lcsb_policy *policy, lcsb_tier tier) {
    switch (tier) {
    case LCSB_TIER_READ: return &policy->read;
    case LCSB_TIER_WRITE: return &policy->write;
    case LCSB_TIER_EXEC: return &policy->exec;
    case LCSB_TIER_PROTECT: return &policy->protect;
    case LCSB_TIER_HIDE: return &policy->hide;
    }
    return NULL;
}

size_t lcsb_policy_count(const lcsb_policy *policy, lcsb_tier tier) {
    const lcsb__strv *set = tier_of(policy, tier);
    return set ? set->n : 0;
}

const char *lcsb_policy_path(const lcsb_policy *policy, lcsb_tier tier, size_t i) {
    const lcsb__strv *set = tier_of(policy, tier);
    return set && i < set->n ? set->v[i] : NULL;
}

bool lcsb_policy_exec_open(const lcsb_policy *policy) { return policy->exec_open; }
lcsb_net lcsb_policy_net(const lcsb_policy *policy) { return policy->net; }
const char *lcsb_policy_cwd(const lcsb_policy *policy) { return policy->cwd; }

lcsb_policy *lcsb_policy_copy(const lcsb_policy *src) {
    lcsb_policy *p = lcsb_policy_new();
    if (!p) return NULL;
    bool ok = !lcsb__strv_push_all(&p->read, (const char *const *)src->read.v) &&
              !lcsb__strv_push_all(&p->write, (const char *const *)src->write.v) &&
              !lcsb__strv_push_all(&p->exec, (const char *const *)src->exec.v) &&
              !lcsb__strv_push_all(&p->protect, (const char *const *)src->protect.v) &&
              !lcsb__strv_push_all(&p->hide, (const char *const *)src->hide.v) &&
              !lcsb__strv_push_all(&p->env_pass, (const char *const *)src->env_pass.v) &&
              !lcsb__strv_push_all(&p->domains, (const char *const *)src->domains.v) &&
              !lcsb__strv_push_all(&p->lan, (const char *const *)src->lan.v) &&
              !lcsb__strv_push_all(&p->secrets, (const char *const *)src->secrets.v);
    for (size_t i = 0; ok && i < src->priv_n; i++)
        ok = !lcsb__policy_add_private(p, src->priv[i].path,
                                       (const char *const *)src->priv[i].links.v, NULL);
    for (size_t i = 0; ok && i < src->env_n; i++)
        ok = !lcsb_policy_set_env(p, src->env[i].name, src->env[i].value, NULL);
    for (size_t i = 0; ok && i < src->connect.n; i++)
        ok = !lcsb_policy_add_port(p, LCSB_PORT_CONNECT, src->connect.v[i], NULL);
    for (size_t i = 0; ok && i < src->bind.n; i++)
        ok = !lcsb_policy_add_port(p, LCSB_PORT_BIND, src->bind.v[i], NULL);
    p->exec_open = src->exec_open;
    p->env_inherit = src->env_inherit;
    p->net = src->net;
    p->proxy_port = src->proxy_port;
    p->bytes = src->bytes;
    p->degradable = src->degradable;
    memcpy(p->limits, src->limits, sizeof p->limits);
    if (ok && src->cwd) ok = (p->cwd = strdup(src->cwd)) != NULL;
    if (ok && src->netns) ok = (p->netns = strdup(src->netns)) != NULL;
    if (ok && src->ca_bundle) ok = (p->ca_bundle = strdup(src->ca_bundle)) != NULL;
    if (ok && src->java_truststore)
        ok = (p->java_truststore = strdup(src->java_truststore)) != NULL;
    if (!ok) {
        lcsb_policy_free(p);
        return NULL;
    }
    return p;
}

static int by_text(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool lcsb__policy_verified(const lcsb_policy *policy, const char *path) {
    return policy->verified && bsearch(&path, policy->verified, policy->verified_n,
                                       sizeof *policy->verified, by_text) != NULL;
}

static bool within_write(const lcsb_policy *policy, const char *dir, bool *is_root) {
    bool within = false;
    *is_root = false;
    for (size_t w = 0; w < policy->write.n; w++) {
        if (strcmp(dir, policy->write.v[w]) == 0)
            *is_root = true;
        else if (lcsb__path_within(dir, policy->write.v[w]))
            within = true;
    }
    return within;
}

bool lcsb__policy_lists(const lcsb_policy *policy, const char *path) {
    return lcsb__strv_has(&policy->write, path) || lcsb__strv_has(&policy->read, path) ||
           lcsb__strv_has(&policy->exec, path);
}

/* Is DIR in a private directory's own tmpfs, not in a tree of the host's
 * bound inside it (a write path there)? Nothing of the host's is there to
 * hold in place: a directory bound there to pin it would be the host's, in
 * the command's reach. The shim makes the tmpfs only where the private
 * directory is a path of the policy's (validation refuses one that is not,
 * lcsb__validate_paths); one that is not would be the host's directory,
 * seen through the tree that holds it, and is pinned as any. */
static bool in_private_tmpfs(const lcsb_policy *policy, const char *dir) {
    size_t priv = 0, write = 0;
    for (size_t i = 0; i < policy->priv_n; i++) {
        const char *path = policy->priv[i].path;
        size_t len = strlen(path);
        if (len > priv && lcsb__path_within(dir, path) && lcsb__policy_lists(policy, path))
            priv = len;
    }
    for (size_t i = 0; i < policy->write.n; i++) {
        size_t len = strlen(policy->write.v[i]);
        if (len > write && lcsb__path_within(dir, policy->write.v[i])) write = len;
    }
    return priv > 0 && write <= priv;
}

int lcsb__policy_pins(const lcsb_policy *policy, lcsb__strv *out) {
    const lcsb__strv *held[] = {&policy->protect, &policy->hide};
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < held[t]->n; i++) {
            char dir[PATH_MAX];
            snprintf(dir, sizeof dir, "%s", held[t]->v[i]);
            /* Up from the path, while inside a write path: past it, no
             * ancestor is in one. A write path itself is a mount already. */
            for (char *slash; (slash = strrchr(dir, '/')) && slash != dir;) {
                *slash = '\0';
                bool is_root;
                if (!within_write(policy, dir, &is_root)) break;
                if (!is_root && !in_private_tmpfs(policy, dir) && lcsb__strv_push(out, dir))
                    return LCSB_ENOMEM;
            }
        }
    return 0;
}
