/* The check (caps_check.h): a policy's paths, each by its path as written
 * and by its real path, against every capped path, at or above and at or
 * below; its network, exec and degrade against each file's switches; and
 * the refusal that names the cap, the file that set it and what to change.
 * Apart from the files' loading (caps.c), which needs Lua: this needs only
 * the merged caps, the policy and the file system. */
#include "caps_check.h"

#include "facts.h"
#include "path.h"
#include "plan.h"
#include "policy.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const lcsb__caps_net_names[] = {"false", "domains", "ports", "open"};

static int net_rank(lcsb_net net) {
    return net == LCSB_NET_OPEN      ? LCSB__CAPS_NET_OPEN
           : net == LCSB_NET_PORTS   ? LCSB__CAPS_NET_PORTS
           : net == LCSB_NET_DOMAINS ? LCSB__CAPS_NET_DOMAINS
                                     : LCSB__CAPS_NET_NONE;
}

/* A path and where it really is (NULL when no ancestor resolves): its real
 * path when it exists, else where it would be once made. */
typedef struct spot {
    const char *path;
    char *real;
    bool there; /* it exists */
} spot;

/* Is A equal to or beneath B, by either's path as written or real path? */
static bool spot_within(const spot *a, const spot *b) {
    return lcsb__path_within(a->path, b->path) ||
           (a->real && lcsb__path_within(a->real, b->path)) ||
           (b->real && lcsb__path_within(a->path, b->real)) ||
           (a->real && b->real && lcsb__path_within(a->real, b->real));
}

/* What is said of the check, in the order the policy's tiers are read. */
static const lcsb_tier checked_tiers[] = {LCSB_TIER_READ, LCSB_TIER_WRITE, LCSB_TIER_EXEC,
                                          LCSB_TIER_PROTECT, LCSB_TIER_HIDE};
#define CHECKED_TIERS (sizeof checked_tiers / sizeof checked_tiers[0])

/* A spot's path or real path, and which spot it is (a cap's index, or a
 * policy path's tier and index), sorted by text: the checks find every
 * spot at or above a path by looking up its ancestors, one sorted pass
 * instead of every pair. */
typedef struct spot_key {
    const char *text;
    unsigned tier; /* a policy path's; unused for a cap */
    size_t index;
} spot_key;

typedef struct keys {
    spot_key *v;
    size_t n;
} keys;

/* Each cap a policy path holds (the cap within it), by the policy path. */
typedef struct held_caps {
    size_t *v;
    size_t n, cap;
} held_caps;

typedef struct check {
    const lcsb__caps *caps;
    const lcsb_policy *policy;
    const char *name;
    spot *tiers[LCSB_TIERS];
    size_t counts[LCSB_TIERS];
    spot *capped;                 /* caps->paths as spots */
    keys cap_keys;                /* the caps' spots, sorted */
    held_caps *holds[LCSB_TIERS]; /* per policy path, the caps within it */
    /* The hidden and protected paths hold: neither world nor metadata may degrade. */
    bool held;
} check;

static const char *verb_of(lcsb_tier tier) {
    switch (tier) {
    case LCSB_TIER_WRITE: return "write";
    case LCSB_TIER_EXEC: return "run";
    case LCSB_TIER_PROTECT: return "protect";
    default: return "read";
    }
}

/* Who set the cap, for the message: "lcsb's defaults, PATH", a file, or lcsb. */
static void add_source(lcsb__buf *b, const lcsb__caps *c, lcsb__caps_role from) {
    if (from == LCSB__CAPS_OWN)
        lcsb__buf_adds(b, "lcsb's own programs, configuration and trust store, never writable by "
                          "a project");
    else if (from == LCSB__CAPS_DEFAULTS)
        lcsb__buf_addf(b, "lcsb's defaults, %s", c->layers[from].path);
    else
        lcsb__buf_adds(b, c->layers[from].path);
}

/* What to change when the policy asks for CAP itself. */
static void add_cap_remedy(lcsb__buf *b, const lcsb__caps *c, const lcsb__cap_path *cap) {
    lcsb__buf_adds(b, "take it out of the policy");
    const char *user = c->layers[LCSB__CAPS_USER].path;
    if (cap->from == LCSB__CAPS_DEFAULTS)
        lcsb__buf_addf(b, "; if projects must have it, add \"%s\" to allow in %s", cap->written,
                       user[0] ? user : "your caps file");
    else if (cap->from == LCSB__CAPS_USER)
        lcsb__buf_addf(b, ", or \"%s\" out of %s in %s", cap->written,
                       cap->kind == LCSB__CAP_DENY ? "deny" : "deny_write", user);
    else if (cap->from == LCSB__CAPS_SYSTEM)
        lcsb__buf_addf(b, "; only an administrator can change %s",
                       c->layers[LCSB__CAPS_SYSTEM].path);
}

static int refuse(lcsb__buf *b, lcsb_error *err) {
    int rc =
        lcsb__fail(err, b->oom ? LCSB_ENOMEM : LCSB_EINVAL, "%s", b->oom ? "out of memory" : b->p);
    lcsb__buf_free(b);
    return rc;
}

/* The policy's path P (tier TIER) is CAP or beneath it. */
static int refuse_inside(const check *k, lcsb_tier tier, const spot *p, const lcsb__cap_path *cap,
                         lcsb_error *err) {
    lcsb__buf b = {0};
    lcsb__buf_addf(&b, "%s: the policy asks to %s %s", k->name, verb_of(tier), p->path);
    if (strcmp(p->path, cap->path) != 0) lcsb__buf_addf(&b, ", inside %s", cap->path);
    lcsb__buf_addf(&b, ", which no project policy may %s (cap %s, set by ",
                   cap->kind == LCSB__CAP_DENY ? "read, write or run" : "write",
                   cap->kind == LCSB__CAP_DENY ? "deny" : "deny_write");
    add_source(&b, k->caps, cap->from);
    lcsb__buf_adds(&b, "); ");
    add_cap_remedy(&b, k->caps, cap);
    return refuse(&b, err);
}

/* Is CAP hidden by the policy (or, for a cap on writing, protected)? */
static bool covered(const check *k, const spot *cap, lcsb__cap_kind kind) {
    for (size_t i = 0; i < k->counts[LCSB_TIER_HIDE]; i++)
        if (spot_within(cap, &k->tiers[LCSB_TIER_HIDE][i])) return true;
    for (size_t i = 0; kind == LCSB__CAP_DENY_WRITE && i < k->counts[LCSB_TIER_PROTECT]; i++)
        if (spot_within(cap, &k->tiers[LCSB_TIER_PROTECT][i])) return true;
    return false;
}

/* Up to this many paths are named in one message; the rest are counted. */
#define NAMED_MAX 4

/* The paths of one kind of trouble in a tree the policy grants. */
typedef struct named {
    lcsb__buf paths;   /* ", "-separated */
    lcsb__buf written; /* the same as the caps files wrote them, quoted */
    size_t n;
} named;

static void name_one(named *nm, const lcsb__cap_path *cap) {
    if (nm->n++ >= NAMED_MAX) return;
    lcsb__buf_addf(&nm->paths, "%s%s", nm->n > 1 ? ", " : "", cap->path);
    lcsb__buf_addf(&nm->written, "%s\"%s\"", nm->n > 1 ? ", " : "", cap->written);
}

static void add_named(lcsb__buf *b, const named *nm) {
    lcsb__buf_adds(b, nm->paths.p ? nm->paths.p : "");
    if (nm->n > NAMED_MAX) lcsb__buf_addf(b, " and %zu more", nm->n - NAMED_MAX);
    b->oom |= nm->paths.oom || nm->written.oom;
}

static void free_named(named *nm) {
    lcsb__buf_free(&nm->paths);
    lcsb__buf_free(&nm->written);
}

/* The policy's path P (tier TIER) holds capped paths: each must exist and
 * be hidden (or protected, for a cap on writing), by a hide that holds. What
 * does not exist is nothing to read, but a writable tree could make it. */
static int check_holds(const check *k, lcsb_tier tier, const spot *p, lcsb_error *err) {
    const lcsb__caps *c = k->caps;
    named bare = {0}, unheld = {0}, makeable = {0};
    bool write_only = true;
    /* Who set them: kind and role, each named once. */
    bool seen[2][LCSB__CAPS_ROLES + 1] = {{false}};
    /* lcsb's own files first, then what else may not be written, then what
     * may not be had at all: a message names only the first few. */
    const held_caps *within = &k->holds[tier][p - k->tiers[tier]];
    for (size_t pass = 0; pass < 3 * within->n; pass++) {
        size_t i = within->v[pass % within->n], stage = pass / within->n;
        const lcsb__cap_path *cap = &c->paths[i];
        const spot *s = &k->capped[i];
        size_t its = cap->kind != LCSB__CAP_DENY_WRITE ? 2 : cap->from == LCSB__CAPS_OWN ? 0 : 1;
        if (its != stage) continue;
        if (cap->kind == LCSB__CAP_DENY_WRITE && tier != LCSB_TIER_WRITE) continue;
        bool there = s->there;
        if (!there && tier != LCSB_TIER_WRITE) continue;
        bool cover = there && covered(k, s, cap->kind);
        if (cover && k->held) continue;
        name_one(!there ? &makeable : cover ? &unheld : &bare, cap);
        if (there && !cover) write_only &= cap->kind == LCSB__CAP_DENY_WRITE;
        seen[cap->kind][cap->from] = true;
    }
    if (!bare.n && !unheld.n && !makeable.n) return 0;
    lcsb__buf b = {0};
    lcsb__buf_addf(&b, "%s: the policy's %s path %s holds what no project policy may have", k->name,
                   lcsb_tier_name(tier), p->path);
    const char *sep = ": ";
    if (bare.n) {
        lcsb__buf_adds(&b, sep);
        add_named(&b, &bare);
        sep = "; ";
    }
    if (unheld.n) {
        lcsb__buf_addf(
            &b, "%shidden, but degrade lets world or metadata go and the hide with it: ", sep);
        add_named(&b, &unheld);
        sep = "; ";
    }
    if (makeable.n) {
        lcsb__buf_addf(&b, "%snot there, but the command could make %s: ", sep,
                       makeable.n > 1 ? "them" : "it");
        add_named(&b, &makeable);
    }
    lcsb__buf_adds(&b, " (");
    sep = "";
    for (int kind = LCSB__CAP_DENY; kind <= LCSB__CAP_DENY_WRITE; kind++)
        for (int r = 0; r <= LCSB__CAPS_ROLES; r++) {
            if (!seen[kind][r]) continue;
            lcsb__buf_addf(&b, "%s%s: ", sep, kind == LCSB__CAP_DENY ? "deny" : "deny_write");
            add_source(&b, c, (lcsb__caps_role)r);
            sep = "; ";
        }
    lcsb__buf_adds(&b, "); ");
    const char *it = bare.n > 1 ? "them" : "it";
    if (makeable.n)
        lcsb__buf_addf(&b, "%s less than %s: what is not there cannot be hidden", verb_of(tier),
                       p->path);
    else if (bare.n && write_only)
        lcsb__buf_addf(&b, "protect %s (exec_policy{ protect = { %s } }), or ", it,
                       bare.written.p ? bare.written.p : "");
    else if (bare.n)
        lcsb__buf_addf(&b,
                       "hide %s (exec_policy{ hide = { %s } }, held in a world of its own), or ",
                       it, bare.written.p ? bare.written.p : "");
    if (!makeable.n && unheld.n) lcsb__buf_adds(&b, "take world and metadata out of degrade, or ");
    if (!makeable.n) lcsb__buf_addf(&b, "%s less than %s", verb_of(tier), p->path);
    free_named(&bare);
    free_named(&unheld);
    free_named(&makeable);
    return refuse(&b, err);
}

static const char *net_text(int rank) {
    return rank == LCSB__CAPS_NET_OPEN ? "an open network (net = true)"
           : rank == LCSB__CAPS_NET_PORTS
               ? "TCP ports to any host (net = { connect = ..., bind = ... })"
           : rank == LCSB__CAPS_NET_DOMAINS ? "named hosts (net = { domains = ... })"
                                            : "no network (net = false)";
}

/* The role whose file closed what the policy asks, for the message. */
static void add_layer_remedy(lcsb__buf *b, const lcsb__caps *c, lcsb__caps_role r,
                             const char *key) {
    if (r == LCSB__CAPS_SYSTEM)
        lcsb__buf_addf(b, "; only an administrator can change %s", c->layers[r].path);
    else if (r == LCSB__CAPS_USER)
        lcsb__buf_addf(b, ", or %s in %s", key, c->layers[r].path);
}

static int check_switches(const check *k, lcsb_error *err) {
    const lcsb__caps *c = k->caps;
    int net = net_rank(lcsb_policy_net(k->policy));
    bool exec_open = lcsb_policy_exec_open(k->policy);
    unsigned degrade = lcsb_policy_degradable(k->policy);
    for (int r = LCSB__CAPS_DEFAULTS; r < LCSB__CAPS_ROLES; r++) {
        const lcsb__caps_layer *l = &c->layers[r];
        lcsb__buf b = {0};
        const char *from = r == LCSB__CAPS_DEFAULTS ? "lcsb's defaults, " : "";
        if (l->net >= 0 && net > l->net) {
            lcsb__buf_addf(&b, "%s: the policy asks for %s, and %s%s caps it (net = %s%s%s); ",
                           k->name, net_text(net), from, l->path, l->net ? "\"" : "",
                           lcsb__caps_net_names[l->net], l->net ? "\"" : "");
            lcsb__buf_adds(&b,
                           l->net == LCSB__CAPS_NET_PORTS ? "name the ports the command needs, or "
                                                            "the hosts (net = { domains = ... })"
                           : l->net == LCSB__CAPS_NET_DOMAINS ? "name the hosts the command needs "
                                                                "(net = { domains = ... })"
                                                              : "say net = false");
            add_layer_remedy(&b, c, (lcsb__caps_role)r, "change net");
            return refuse(&b, err);
        }
        if (l->exec_any == 0 && exec_open) {
            lcsb__buf_addf(&b,
                           "%s: the policy lets anything run (exec = \"any\"), and %s%s says "
                           "exec_any = false (cap exec_any); list the programs in exec instead",
                           k->name, from, l->path);
            add_layer_remedy(&b, c, (lcsb__caps_role)r, "change exec_any");
            return refuse(&b, err);
        }
        unsigned over = l->degrade_said ? degrade & ~l->degrade : 0;
        if (over) {
            lcsb__buf_addf(&b, "%s: the policy lets ", k->name);
            lcsb__add_part_names(&b, over, "", ", ");
            lcsb__buf_addf(&b, " degrade, and %s%s allows degrading ", from, l->path);
            if (l->degrade)
                lcsb__add_part_names(&b, l->degrade, "", ", ");
            else
                lcsb__buf_adds(&b, "nothing");
            lcsb__buf_adds(&b, " (cap degrade); take ");
            lcsb__add_part_names(&b, over, "\"", ", ");
            lcsb__buf_adds(&b, " out of degrade");
            add_layer_remedy(&b, c, (lcsb__caps_role)r, "change degrade");
            return refuse(&b, err);
        }
        lcsb__buf_free(&b);
    }
    return 0;
}

static void free_spots(spot *spots, size_t n) {
    for (size_t i = 0; spots && i < n; i++) free(spots[i].real);
    free(spots);
}

/* N spots, to be filled by resolve; NULL on ENOMEM. */
static spot *new_spots(size_t n) { return calloc(n ? n : 1, sizeof(spot)); }

/* S := PATH and where it really is (lcsb__realpath_where: a capped path
 * that is not there yet lies where a symlinked ancestor leads); false on
 * ENOMEM. */
static bool resolve(spot *s, const char *path, const lcsb_policy *policy) {
    char real[PATH_MAX];
    s->path = path;
    s->real = NULL;
    /* What the composition verified is its own real path, and there. */
    if (policy && lcsb__policy_verified(policy, path)) {
        s->there = true;
        return (s->real = strdup(path)) != NULL;
    }
    if (!lcsb__realpath_where(path, real)) return true;
    /* Where it would be, or where it is: one question more only when it
     * lies past a symlink. */
    struct stat st;
    s->there = lstat(real, &st) == 0;
    return (s->real = strdup(real)) != NULL;
}

/* A cap's spot written as a line of a plan's data: "1 REAL" there, "0 REAL"
 * not there, "-" where no ancestor resolves. */
static void add_spot(lcsb__buf *b, const spot *s) {
    if (!s->real) {
        lcsb__buf_adds(b, "-\n");
        return;
    }
    lcsb__buf_adds(b, s->there ? "1 " : "0 ");
    lcsb__buf_add_word(b, s->real);
    lcsb__buf_adds(b, "\n");
}

/* The N spots of CAPPED from a plan's DATA (LEN bytes): false when it is
 * not N lines add_spot wrote, or memory ran out. */
static bool take_spots(spot *capped, size_t n, const char *data, size_t len) {
    const char *at = data, *end = data + len;
    for (size_t i = 0; i < n; i++) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        char real[PATH_MAX];
        if (!nl) return false;
        if (nl - at == 1 && at[0] == '-') {
            capped[i].real = NULL;
        } else if (nl - at > 2 && (at[0] == '0' || at[0] == '1') && at[1] == ' ' &&
                   lcsb__word_decode(at + 2, (size_t)(nl - at - 2), real, sizeof real)) {
            capped[i].there = at[0] == '1';
            if (!(capped[i].real = strdup(real))) return false;
        } else {
            return false;
        }
        at = nl + 1;
    }
    return at == end;
}

/* The caps' spots: where each capped path really is. They are the same on
 * every run but for the file system, so they are a plan (plan.h) keyed by
 * the paths, kept with what resolving them rested on, and resolved again
 * only when that changed: resolving them was half of a minimal run's
 * system calls. */
static bool resolve_caps(const lcsb__caps *caps, spot *capped) {
    lcsb__buf key = {0}, data = {0};
    lcsb__buf_adds(&key, "lcsb caps spots 1\n");
    for (size_t i = 0; i < caps->n; i++) {
        lcsb__buf_add_word(&key, caps->paths[i].path);
        lcsb__buf_adds(&key, "\n");
    }
    char *kept = NULL, why[PATH_MAX + 256];
    size_t kept_len;
    bool ok = !key.oom;
    if (ok && lcsb__plan_find(key.p, key.len, &kept, &kept_len, why, sizeof why) == 0) {
        ok = take_spots(capped, caps->n, kept, kept_len);
        free(kept);
        if (ok) {
            lcsb__buf_free(&key);
            return true;
        }
        for (size_t i = 0; i < caps->n; i++) {
            free(capped[i].real);
            capped[i] = (spot){0};
        }
    }
    lcsb__facts *facts = ok ? lcsb__facts_new() : NULL;
    lcsb__facts_record(facts, true);
    for (size_t i = 0; ok && i < caps->n; i++) {
        char real[PATH_MAX];
        spot *sp = &capped[i];
        struct stat st;
        sp->path = caps->paths[i].path;
        sp->real = NULL;
        if (lcsb__facts_realpath_where(facts, sp->path, real)) {
            sp->there = lcsb__facts_lstat(facts, real, &st) == 0;
            ok = (sp->real = strdup(real)) != NULL;
        }
        if (ok) add_spot(&data, sp);
    }
    ok = ok && facts && !data.oom;
    /* Not kept (a change too recent, a store others may write) is no
     * failure: the next run resolves them again. */
    if (ok)
        (void)lcsb__plan_save(key.p, key.len, facts, lcsb__facts_since(facts), NULL, 0, data.p,
                              data.len, why, sizeof why);
    lcsb__facts_free(facts);
    lcsb__buf_free(&key);
    lcsb__buf_free(&data);
    return ok;
}

static int by_key(const void *a, const void *b) {
    return strcmp(((const spot_key *)a)->text, ((const spot_key *)b)->text);
}

/* S's path and real path as keys into OUT (N so far; room for two). */
static void add_keys(spot_key *out, size_t *n, const spot *s, unsigned tier, size_t index) {
    out[(*n)++] = (spot_key){s->path, tier, index};
    if (s->real && strcmp(s->real, s->path) != 0) out[(*n)++] = (spot_key){s->real, tier, index};
}

/* Calls FN(CTX, K) for each key of SORTED (N of them) at or above PATH:
 * PATH itself and each of its ancestors, looked up. */
static void each_above(const spot_key *sorted, size_t n, const char *path,
                       void (*fn)(void *, const spot_key *), void *ctx) {
    char at[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof at || n == 0) return;
    memcpy(at, path, len + 1);
    for (;;) {
        spot_key probe = {at, 0, 0};
        const spot_key *hit = bsearch(&probe, sorted, n, sizeof *sorted, by_key);
        if (hit) {
            /* Equal texts sit together: every spot with it. */
            while (hit > sorted && strcmp(hit[-1].text, at) == 0) hit--;
            for (; hit < sorted + n && strcmp(hit->text, at) == 0; hit++) fn(ctx, hit);
        }
        if (len <= 1) return;
        while (len > 1 && at[len - 1] != '/') len--;
        len = len > 1 ? len - 1 : 1;
        at[len] = '\0';
    }
}

/* The lowest cap index found at or above a policy path (it lies in that cap). */
typedef struct lowest {
    const lcsb__caps *caps;
    lcsb_tier tier;
    size_t found;
} lowest;

static void note_lowest(void *ctx, const spot_key *k) {
    lowest *l = ctx;
    if (l->caps->paths[k->index].kind == LCSB__CAP_DENY_WRITE && l->tier != LCSB_TIER_WRITE) return;
    if (k->index < l->found) l->found = k->index;
}

/* A cap at or below a policy path: noted in that path's holds, once. */
typedef struct holding {
    check *k;
    size_t cap;
    bool oom;
} holding;

static void note_holding(void *ctx, const spot_key *pk) {
    holding *h = ctx;
    held_caps *hc = &h->k->holds[pk->tier][pk->index];
    if (hc->n && hc->v[hc->n - 1] == h->cap) return; /* by its path and its real path */
    if (hc->n == hc->cap) {
        size_t cap = hc->cap ? hc->cap * 2 : 4;
        size_t *grown = realloc(hc->v, cap * sizeof *grown);
        if (!grown) {
            h->oom = true;
            return;
        }
        hc->v = grown;
        hc->cap = cap;
    }
    hc->v[hc->n++] = h->cap;
}

/* The sorted keys: the caps' into K->cap_keys, the policy's (but hidden
 * paths, which are what is wanted of a capped path) into POLICY_KEYS; then
 * which caps each policy path holds. False when memory ran out. */
static bool index_spots(check *k, keys *policy_keys) {
    const lcsb__caps *caps = k->caps;
    size_t total = 0;
    for (size_t t = 0; t < CHECKED_TIERS; t++)
        if (checked_tiers[t] != LCSB_TIER_HIDE) total += k->counts[checked_tiers[t]];
    k->cap_keys.v = calloc(2 * caps->n + 1, sizeof(spot_key));
    policy_keys->v = calloc(2 * total + 1, sizeof(spot_key));
    if (!k->cap_keys.v || !policy_keys->v) return false;
    for (size_t j = 0; j < caps->n; j++)
        add_keys(k->cap_keys.v, &k->cap_keys.n, &k->capped[j], 0, j);
    for (size_t t = 0; t < CHECKED_TIERS; t++) {
        lcsb_tier tier = checked_tiers[t];
        if (tier == LCSB_TIER_HIDE) continue;
        if (!(k->holds[tier] = calloc(k->counts[tier] + 1, sizeof(held_caps)))) return false;
        for (size_t i = 0; i < k->counts[tier]; i++)
            add_keys(policy_keys->v, &policy_keys->n, &k->tiers[tier][i], tier, i);
    }
    qsort(k->cap_keys.v, k->cap_keys.n, sizeof(spot_key), by_key);
    qsort(policy_keys->v, policy_keys->n, sizeof(spot_key), by_key);
    /* Caps in the order they were merged: a path's holds are named in it. */
    for (size_t j = 0; j < caps->n; j++) {
        const spot *c = &k->capped[j];
        holding h = {k, j, false};
        each_above(policy_keys->v, policy_keys->n, c->path, note_holding, &h);
        if (c->real && strcmp(c->real, c->path) != 0)
            each_above(policy_keys->v, policy_keys->n, c->real, note_holding, &h);
        if (h.oom) return false;
    }
    return true;
}

int lcsb__caps_check(const lcsb__caps *caps, const lcsb_policy *policy, const char *name,
                     lcsb_error *err) {
    check k = {.caps = caps, .policy = policy, .name = name};
    k.held = !(lcsb_policy_degradable(policy) & (LCSB_PART_WORLD | LCSB_PART_METADATA));
    int rc = 0;
    for (size_t t = 0; !rc && t < CHECKED_TIERS; t++) {
        lcsb_tier tier = checked_tiers[t];
        k.counts[tier] = lcsb_policy_count(policy, tier);
        if (!(k.tiers[tier] = new_spots(k.counts[tier]))) rc = LCSB_ENOMEM;
        for (size_t i = 0; !rc && i < k.counts[tier]; i++)
            if (!resolve(&k.tiers[tier][i], lcsb_policy_path(policy, tier, i), policy))
                rc = LCSB_ENOMEM;
    }
    if (!rc && !(k.capped = new_spots(caps->n))) rc = LCSB_ENOMEM;
    for (size_t i = 0; !rc && i < caps->n; i++) k.capped[i].path = caps->paths[i].path;
    if (!rc && !resolve_caps(caps, k.capped)) rc = LCSB_ENOMEM;
    if (rc) lcsb__fail(err, rc, "out of memory");

    keys policy_keys = {0};
    if (!rc && !index_spots(&k, &policy_keys)) rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");

    for (size_t t = 0; !rc && t < CHECKED_TIERS; t++) {
        lcsb_tier tier = checked_tiers[t];
        if (tier == LCSB_TIER_HIDE) continue; /* hiding a capped path is what is wanted */
        for (size_t i = 0; !rc && i < k.counts[tier]; i++) {
            const spot *p = &k.tiers[tier][i];
            /* The first cap, in merged order, the path lies in. */
            lowest l = {caps, tier, caps->n};
            each_above(k.cap_keys.v, k.cap_keys.n, p->path, note_lowest, &l);
            if (p->real && strcmp(p->real, p->path) != 0)
                each_above(k.cap_keys.v, k.cap_keys.n, p->real, note_lowest, &l);
            if (l.found < caps->n) rc = refuse_inside(&k, tier, p, &caps->paths[l.found], err);
            if (!rc) rc = check_holds(&k, tier, p, err);
        }
    }
    if (!rc) rc = check_switches(&k, err);

    for (size_t t = 0; t < CHECKED_TIERS; t++) {
        lcsb_tier tier = checked_tiers[t];
        for (size_t i = 0; k.holds[tier] && i < k.counts[tier]; i++) free(k.holds[tier][i].v);
        free(k.holds[tier]);
        free_spots(k.tiers[tier], k.counts[tier]);
    }
    free(k.cap_keys.v);
    free(policy_keys.v);
    free_spots(k.capped, caps->n);
    return rc;
}
