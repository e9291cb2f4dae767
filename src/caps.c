/* Caps: what no project policy may grant (caps.h). Three files in one
 * format, lcsb's defaults, the administrator's and the user's, each run as
 * data in a Lua state of its own; merged so that the tightest wins; checked
 * against the C policy, by path as written and by real path. */
#include "caps.h"

#include "installed.h"
#include "json.h"
#include "lua_util.h"
#include "path.h"
#include "plan.h"
#include "policy.h"
#include "sha256.h"
#include "sys.h"
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lua.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LCSB_SYSCONFDIR
#define LCSB_SYSCONFDIR "/etc/lcsb"
#endif

/* A caps file is a few lines of data: these bound what a broken or hostile
 * one can cost, far above what a real one needs. */
#define CAPS_FILE_MAX ((size_t)1 << 20)    /* bytes */
#define CAPS_MEMORY_MAX ((size_t)16 << 20) /* bytes its Lua state may hold */
#define CAPS_HOOK_EVERY 10000              /* instructions between two counts */
#define CAPS_HOOK_MAX 1000                 /* counts: 10 million instructions */
#define CAPS_LIST_MAX 4096                 /* entries in one list */

typedef enum role { ROLE_DEFAULTS, ROLE_SYSTEM, ROLE_USER, ROLES, ROLE_OWN = ROLES } role;

/* A list of paths: as the file wrote them, and as absolute normal paths
 * ("" for a "~" entry when HOME is unknown). */
typedef struct path_list {
    lcsb__strv written, path;
} path_list;

/* What one file says. */
typedef struct layer {
    bool present;
    char path[PATH_MAX]; /* where it is, or would be; "" for none */
    char sha256[LCSB__SHA256_HEX];
    path_list deny, deny_write, allow;
    int net;      /* a net_rank, or -1 when not said */
    int exec_any; /* 0, 1, or -1 when not said */
    bool degrade_said;
    unsigned degrade; /* the parts a policy may let degrade */
} layer;

typedef enum cap_kind { CAP_DENY, CAP_DENY_WRITE } cap_kind;

/* One path the caps keep from projects. */
typedef struct cap_path {
    const char *path;    /* absolute and normal */
    const char *written; /* as its file wrote it */
    cap_kind kind;
    role from;
} cap_path;

struct lcsb__caps {
    layer layers[ROLES];
    cap_path *paths;
    size_t n;
    lcsb__strv own; /* lcsb's own configuration and state */
};

/* ---- where the files are ---- */

/* NAME's value when it is an absolute path, into OUT (PATH_MAX bytes),
 * ".." taken as text: HOME=/home/u/../u is /home/u, as the trust store and
 * the policy take it, never a reason to look elsewhere. */
static bool env_path(const char *name, char *out) {
    const char *v = getenv(name);
    return v && v[0] == '/' && lcsb__trust_absolute(v, out);
}

/* DIR/LEAF, normalized, into OUT (PATH_MAX bytes); "" when DIR is "" or it
 * does not fit. */
static void join(char *out, const char *dir, const char *leaf) {
    char joined[PATH_MAX];
    int n = dir[0] ? snprintf(joined, sizeof joined, "%s/%s", dir, leaf) : -1;
    if (n < 0 || n >= PATH_MAX || lcsb__path_normalize("path", joined, out, NULL)) out[0] = '\0';
}

/* DIR, normalized ("//.config/lcsb" when HOME is "/"), unless it is there
 * already; a relative one by its real path, when it has one. */
static void add_own(lcsb__caps_places *places, const char *dir) {
    char norm[PATH_MAX], real[PATH_MAX];
    if (places->own_n == LCSB__CAPS_OWN_MAX || !dir[0]) return;
    if (dir[0] != '/' && !realpath(dir, real)) return;
    if (lcsb__path_normalize("own", dir[0] == '/' ? dir : real, norm, NULL)) return;
    for (size_t i = 0; i < places->own_n; i++)
        if (strcmp(places->own[i], norm) == 0) return;
    memcpy(places->own[places->own_n++], norm, strlen(norm) + 1);
}

/* The directory FILE is in. */
static void add_own_dir_of(lcsb__caps_places *places, const char *file) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    *(slash == dir ? slash + 1 : slash) = '\0';
    add_own(places, dir);
}

/* NAME in the directory of FILE, when it is there. */
static void add_beside(lcsb__caps_places *places, const char *file, const char *name) {
    char path[PATH_MAX];
    const char *slash = strrchr(file, '/');
    struct stat st;
    if (slash &&
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - file), file, name) <
            (int)sizeof path &&
        lstat(path, &st) == 0)
        add_own(places, path);
}

void lcsb__caps_places_find(lcsb__caps_places *places, const char *lua_dir, const char *system,
                            const char *user) {
    memset(places, 0, sizeof *places);
    if (!env_path("HOME", places->home)) {
        struct passwd *pw = getpwuid(getuid());
        if (!pw || !pw->pw_dir || lcsb__path_normalize("home", pw->pw_dir, places->home, NULL))
            places->home[0] = '\0';
    }
    char config[PATH_MAX], state[PATH_MAX], dir[PATH_MAX];
    if (!env_path("XDG_CONFIG_HOME", config)) join(config, places->home, ".config");
    if (!env_path("XDG_STATE_HOME", state)) join(state, places->home, ".local/state");

    /* As given: a relative LUA_DIR is one the process can open all the same. */
    int n = snprintf(places->defaults, PATH_MAX, "%s/lcsb/caps.lua", lua_dir ? lua_dir : ".");
    if (n < 0 || n >= PATH_MAX) places->defaults[0] = '\0';
    if (system)
        snprintf(places->system, sizeof places->system, "%s", system);
    else
        join(places->system, LCSB_SYSCONFDIR, "caps.lua");
    if (user)
        snprintf(places->user, sizeof places->user, "%s", user);
    else
        join(places->user, config, "lcsb/user.lua");

    /* lcsb's Lua files (exec_policy and the defaults), the administrator's
     * directory, the user's, the trust store: by the environment's names and
     * by the usual ones, which another run may use. */
    if (lua_dir) add_own_dir_of(places, places->defaults); /* not a guess in the cwd */
    add_own(places, LCSB_SYSCONFDIR);
    if (places->system[0]) add_own_dir_of(places, places->system);
    join(dir, config, "lcsb");
    add_own(places, dir);
    join(dir, places->home, ".config/lcsb");
    add_own(places, dir);
    if (places->user[0]) add_own_dir_of(places, places->user);
    join(dir, state, "lcsb");
    add_own(places, dir);
    join(dir, places->home, ".local/state/lcsb");
    add_own(places, dir);

    /* What runs the next command, outside any sandbox or before one is set
     * up: a command that replaced it would run unsandboxed next time. */
    char exe[PATH_MAX], shim[PATH_MAX], searched[PATH_MAX];
    if (realpath("/proc/self/exe", exe)) {
        add_own(places, exe);
        add_beside(places, exe, "lcsb-exec"); /* a build tree's layout */
        add_beside(places, exe, "liblcsb-record.so");
    }
    if (lcsb__installed_shim(shim, searched, sizeof shim)) {
        add_own(places, shim);
        add_beside(places, shim, "liblcsb-record.so");
    }
}

/* ---- reading one file ---- */

/* PATH's bytes into *TEXT (caller frees): *ABSENT when there is no file
 * there. Anything but a regular file of at most CAPS_FILE_MAX bytes is
 * refused: a FIFO would block, /dev/zero would never end. */
static int read_whole(const char *path, char **text, size_t *len, bool *absent, lcsb_error *err) {
    *absent = false;
    lcsb__file_seen seen;
    if (lcsb__read_regular(path, CAPS_FILE_MAX, false, text, len, NULL, &seen) == 0) {
        /* Asked of the descriptor it was read through: a caps file others
         * may write lets them loosen what it holds. */
        const struct stat *st = &seen.st;
        if ((st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022)) return 0;
        free(*text);
        *text = NULL;
        return lcsb__fail(err, LCSB_EINVAL,
                          "caps file %s: %s, so lcsb takes nothing from it; make it root's or "
                          "yours, and writable by its owner alone",
                          path, st->st_mode & 022 ? "writable by others" : "owned by another user");
    }
    if (errno == ENOENT || errno == ENOTDIR) {
        *absent = true;
        return 0;
    }
    if (errno == ENOMEM) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (errno == EINVAL)
        return lcsb__fail(err, LCSB_EINVAL, "caps file %s: not a regular file", path);
    if (errno == EFBIG)
        return lcsb__fail(err, LCSB_EINVAL, "caps file %s: larger than %zu KiB", path,
                          CAPS_FILE_MAX >> 10);
    return lcsb__fail(err, LCSB_EINVAL, "caps file %s: cannot read it: %s", path, strerror(errno));
}

/* The Lua state's budget: memory (first, for lcsb__lua_capped_alloc) and
 * instructions. */
typedef struct budget {
    lcsb__lua_memory memory;
    unsigned counts;
} budget;

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    budget *b = ud;
    if (++b->counts > CAPS_HOOK_MAX) {
        lua_pushfstring(L, "ran past %d million instructions; a caps file is data",
                        CAPS_HOOK_EVERY * CAPS_HOOK_MAX / 1000000);
        lua_error(L);
    }
}

typedef struct load_args {
    const char *text;
    size_t len;
    const char *home;
    layer *into;
} load_args;

/* An error without a position: the caller names the file. */
static int fail_lua(lua_State *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return lua_error(L);
}

static void push_or_raise(lua_State *L, lcsb__strv *sv, const char *s) {
    if (lcsb__strv_push(sv, s)) fail_lua(L, "out of memory");
}

/* The entries of the list at IDX, as key KEY, into LIST. */
static void read_paths(lua_State *L, int idx, const char *key, const char *home, path_list *list) {
    if (!lua_istable(L, idx))
        fail_lua(L, "key '%s' must be a list of paths, not a %s", key, luaL_typename(L, idx));
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n > CAPS_LIST_MAX) fail_lua(L, "key '%s': more than %d entries", key, CAPS_LIST_MAX);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            fail_lua(L, "key '%s' must be a list of paths (it has a key that is no index)", key);
    }
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, idx, i) != LUA_TSTRING)
            fail_lua(L, "key '%s': entry %d is a %s, not a path", key, (int)i,
                     luaL_typename(L, -1));
        size_t len;
        const char *written = lua_tolstring(L, -1, &len);
        if (strlen(written) != len) fail_lua(L, "key '%s': entry %d holds a NUL byte", key, (int)i);
        char expanded[PATH_MAX], norm[PATH_MAX] = "";
        bool tilde = strcmp(written, "~") == 0 || strncmp(written, "~/", 2) == 0;
        if (tilde && !home[0]) {
            /* No HOME: nothing there to keep. */
        } else {
            int fit = tilde ? snprintf(expanded, sizeof expanded, "%s%s", home, written + 1)
                            : snprintf(expanded, sizeof expanded, "%s", written);
            lcsb_error perr;
            if (fit < 0 || (size_t)fit >= sizeof expanded)
                fail_lua(L, "key '%s': entry %d is longer than %d bytes", key, (int)i, PATH_MAX);
            if (lcsb__path_normalize(key, expanded, norm, &perr))
                fail_lua(L, "key %s%s", perr.message,
                         tilde ? "" : " (paths are absolute, or ~/...)");
        }
        push_or_raise(L, &list->written, written);
        push_or_raise(L, &list->path, norm);
        lua_pop(L, 1);
    }
}

/* How much of the network a policy reaches, for the cap: named hosts
 * through lcsb's proxy are less than TCP ports to any host. */
enum net_rank { NET_NONE, NET_DOMAINS, NET_PORTS, NET_OPEN };
static const char *const net_rank_names[] = {"false", "domains", "ports", "open"};

static int net_rank(lcsb_net net) {
    return net == LCSB_NET_OPEN      ? NET_OPEN
           : net == LCSB_NET_PORTS   ? NET_PORTS
           : net == LCSB_NET_DOMAINS ? NET_DOMAINS
                                     : NET_NONE;
}

static int read_net(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TBOOLEAN) return lua_toboolean(L, idx) ? NET_OPEN : NET_NONE;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : "";
    for (int rank = NET_DOMAINS; rank <= NET_OPEN; rank++)
        if (strcmp(s, net_rank_names[rank]) == 0) return rank;
    return fail_lua(L, "key 'net' must be false (no network), \"domains\" (named hosts through "
                       "lcsb's proxy at most), \"ports\" (TCP port lists at most) or \"open\"");
}

static unsigned read_degrade(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TBOOLEAN) return lua_toboolean(L, idx) ? LCSB_PARTS_ALL : 0;
    if (!lua_istable(L, idx))
        fail_lua(L, "key 'degrade' must be true, false or a list of part names, not a %s",
                 luaL_typename(L, idx));
    unsigned parts = 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    for (lua_Integer i = 1; i <= n && i <= CAPS_LIST_MAX; i++) {
        lua_rawgeti(L, idx, i);
        unsigned part =
            lua_type(L, -1) == LUA_TSTRING ? lcsb_part_from_name(lua_tostring(L, -1)) : 0;
        if (!part) {
            /* The names on the stack: a raise must leave no memory unowned. */
            char names[256] = "";
            for (size_t p = 0; lcsb__part_names[p]; p++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", p ? ", " : "",
                         lcsb__part_names[p]);
            fail_lua(L, "key 'degrade': entry %d is not a part name (expected one of: %s)", (int)i,
                     names);
        }
        parts |= part;
        lua_pop(L, 1);
    }
    return parts;
}

#define KEYS "allow, degrade, deny, deny_write, exec_any, net"

/* The table the file returned, at IDX, into A->into. */
static void read_layer(lua_State *L, int idx, load_args *a) {
    layer *l = a->into;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int value = lua_gettop(L);
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (key && strcmp(key, "deny") == 0)
            read_paths(L, value, key, a->home, &l->deny);
        else if (key && strcmp(key, "deny_write") == 0)
            read_paths(L, value, key, a->home, &l->deny_write);
        else if (key && strcmp(key, "allow") == 0)
            read_paths(L, value, key, a->home, &l->allow);
        else if (key && strcmp(key, "net") == 0)
            l->net = read_net(L, value);
        else if (key && strcmp(key, "exec_any") == 0) {
            if (!lua_isboolean(L, value)) fail_lua(L, "key 'exec_any' must be true or false");
            l->exec_any = lua_toboolean(L, value);
        } else if (key && strcmp(key, "degrade") == 0) {
            l->degrade = read_degrade(L, value);
            l->degrade_said = true;
        } else {
            lua_pushvalue(L, -2); /* tostring on a copy: lua_next needs the key as it is */
            const char *shown = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER
                                    ? lua_tostring(L, -1)
                                    : luaL_typename(L, -1);
            fail_lua(L, "unknown key '%s' (expected one of: %s)", shown, KEYS);
        }
        lua_settop(L, value - 1);
    }
}

static int pload(lua_State *L) {
    load_args *a = lua_touserdata(L, 1);
    /* "=" names no chunk: Lua's messages then start ":LINE:", and the
     * caller puts the whole path in front, which Lua would shorten. Text
     * only: precompiled chunks can crash the VM. */
    if (luaL_loadbufferx(L, a->text, a->len, "=", "t") != LUA_OK) return lua_error(L);
    lua_newtable(L); /* its _ENV: no library, no global */
    lua_setupvalue(L, -2, 1);
    lua_call(L, 0, 1);
    if (!lua_istable(L, -1))
        return fail_lua(L, "returned a %s; expected a table of caps", luaL_typename(L, -1));
    read_layer(L, lua_gettop(L), a);
    return 0;
}

static void clear_list(path_list *list) {
    lcsb__strv_clear(&list->written);
    lcsb__strv_clear(&list->path);
}

static void clear_layer(layer *l) {
    clear_list(&l->deny);
    clear_list(&l->deny_write);
    clear_list(&l->allow);
}

/* Load L->path (when there is a file there) into L. */
static int load_layer(layer *l, const char *home, bool required, lcsb_error *err) {
    l->net = l->exec_any = -1;
    if (!l->path[0])
        return required
                   ? lcsb__fail(err, LCSB_EINVAL, "lcsb's defaults (caps.lua): no path to them")
                   : 0;
    char *text;
    size_t len;
    bool absent;
    int rc = read_whole(l->path, &text, &len, &absent, err);
    if (rc) return rc;
    if (absent)
        return required ? lcsb__fail(err, LCSB_EINVAL,
                                     "caps file %s: missing; lcsb's defaults are part of lcsb "
                                     "(reinstall it, or say where its Lua files are)",
                                     l->path)
                        : 0;
    l->present = true;
    lcsb__sha256_of(text, len, l->sha256);
    budget b = {.memory = {.max = CAPS_MEMORY_MAX}};
    lua_State *L = lua_newstate(lcsb__lua_capped_alloc, &b);
    if (!L) {
        free(text);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    lua_sethook(L, count_hook, LUA_MASKCOUNT, CAPS_HOOK_EVERY);
    load_args args = {.text = text, .len = len, .home = home, .into = l};
    lua_pushcfunction(L, pload);
    lua_pushlightuserdata(L, &args);
    int status = lua_pcall(L, 1, 0, 0);
    if (status == LUA_ERRMEM)
        rc = lcsb__fail(err, LCSB_EINVAL, "caps file %s: ran out of memory (it may use %zu MiB)",
                        l->path, CAPS_MEMORY_MAX >> 20);
    else if (status != LUA_OK) {
        const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (!msg) msg = "raised an error that is not a string";
        rc = lcsb__fail(err, LCSB_EINVAL, "caps file %s%s%s", l->path, msg[0] == ':' ? "" : ": ",
                        msg);
    }
    lua_close(L);
    free(text);
    return rc;
}

/* ---- merging ---- */

static int add_cap(lcsb__caps *c, const char *path, const char *written, cap_kind kind, role from) {
    if (!path[0]) return 0;
    cap_path *grown = realloc(c->paths, (c->n + 1) * sizeof *grown);
    if (!grown) return LCSB_ENOMEM;
    c->paths = grown;
    c->paths[c->n++] = (cap_path){.path = path, .written = written, .kind = kind, .from = from};
    return 0;
}

/* Does an allow of the system's or the user's file take lcsb's default PATH back? */
static bool allowed(const lcsb__caps *c, const char *path) {
    for (int r = ROLE_DEFAULTS; r < ROLES; r++)
        for (size_t i = 0; i < c->layers[r].allow.path.n; i++) {
            const char *a = c->layers[r].allow.path.v[i];
            if (a[0] && lcsb__path_within(path, a)) return true;
        }
    return false;
}

static int add_list(lcsb__caps *c, const path_list *list, cap_kind kind, role from) {
    int rc = 0;
    for (size_t i = 0; !rc && i < list->path.n; i++)
        if (from != ROLE_DEFAULTS || !allowed(c, list->path.v[i]))
            rc = add_cap(c, list->path.v[i], list->written.v[i], kind, from);
    return rc;
}

int lcsb__caps_load(const lcsb__caps_places *places, lcsb__caps **out, lcsb_error *err) {
    *out = NULL;
    lcsb__caps *c = calloc(1, sizeof *c);
    if (!c) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    snprintf(c->layers[ROLE_DEFAULTS].path, PATH_MAX, "%s", places->defaults);
    snprintf(c->layers[ROLE_SYSTEM].path, PATH_MAX, "%s", places->system);
    snprintf(c->layers[ROLE_USER].path, PATH_MAX, "%s", places->user);
    int rc = 0;
    for (int r = ROLE_DEFAULTS; !rc && r < ROLES; r++)
        rc = load_layer(&c->layers[r], places->home, r == ROLE_DEFAULTS, err);
    for (size_t i = 0; !rc && i < places->own_n; i++)
        if (lcsb__strv_push(&c->own, places->own[i])) rc = LCSB_ENOMEM;
    for (int r = ROLE_DEFAULTS; !rc && r < ROLES; r++) {
        rc = add_list(c, &c->layers[r].deny, CAP_DENY, (role)r);
        if (!rc) rc = add_list(c, &c->layers[r].deny_write, CAP_DENY_WRITE, (role)r);
    }
    for (size_t i = 0; !rc && i < c->own.n; i++)
        rc = add_cap(c, c->own.v[i], c->own.v[i], CAP_DENY_WRITE, ROLE_OWN);
    if (rc == LCSB_ENOMEM) lcsb__fail(err, rc, "out of memory");
    if (rc) {
        lcsb__caps_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void lcsb__caps_free(lcsb__caps *caps) {
    if (!caps) return;
    for (int r = 0; r < ROLES; r++) clear_layer(&caps->layers[r]);
    lcsb__strv_clear(&caps->own);
    free(caps->paths);
    free(caps);
}

/* ---- checking ---- */

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
static void add_source(lcsb__buf *b, const lcsb__caps *c, role from) {
    if (from == ROLE_OWN)
        lcsb__buf_adds(b, "lcsb's own programs, configuration and trust store, never writable by "
                          "a project");
    else if (from == ROLE_DEFAULTS)
        lcsb__buf_addf(b, "lcsb's defaults, %s", c->layers[from].path);
    else
        lcsb__buf_adds(b, c->layers[from].path);
}

/* What to change when the policy asks for CAP itself. */
static void add_cap_remedy(lcsb__buf *b, const lcsb__caps *c, const cap_path *cap) {
    lcsb__buf_adds(b, "take it out of the policy");
    const char *user = c->layers[ROLE_USER].path;
    if (cap->from == ROLE_DEFAULTS)
        lcsb__buf_addf(b, "; if projects must have it, add \"%s\" to allow in %s", cap->written,
                       user[0] ? user : "your caps file");
    else if (cap->from == ROLE_USER)
        lcsb__buf_addf(b, ", or \"%s\" out of %s in %s", cap->written,
                       cap->kind == CAP_DENY ? "deny" : "deny_write", user);
    else if (cap->from == ROLE_SYSTEM)
        lcsb__buf_addf(b, "; only an administrator can change %s", c->layers[ROLE_SYSTEM].path);
}

static int refuse(lcsb__buf *b, lcsb_error *err) {
    int rc =
        lcsb__fail(err, b->oom ? LCSB_ENOMEM : LCSB_EINVAL, "%s", b->oom ? "out of memory" : b->p);
    lcsb__buf_free(b);
    return rc;
}

/* The policy's path P (tier TIER) is CAP or beneath it. */
static int refuse_inside(const check *k, lcsb_tier tier, const spot *p, const cap_path *cap,
                         lcsb_error *err) {
    lcsb__buf b = {0};
    lcsb__buf_addf(&b, "%s: the policy asks to %s %s", k->name, verb_of(tier), p->path);
    if (strcmp(p->path, cap->path) != 0) lcsb__buf_addf(&b, ", inside %s", cap->path);
    lcsb__buf_addf(&b, ", which no project policy may %s (cap %s, set by ",
                   cap->kind == CAP_DENY ? "read, write or run" : "write",
                   cap->kind == CAP_DENY ? "deny" : "deny_write");
    add_source(&b, k->caps, cap->from);
    lcsb__buf_adds(&b, "); ");
    add_cap_remedy(&b, k->caps, cap);
    return refuse(&b, err);
}

/* Is CAP hidden by the policy (or, for a cap on writing, protected)? */
static bool covered(const check *k, const spot *cap, cap_kind kind) {
    for (size_t i = 0; i < k->counts[LCSB_TIER_HIDE]; i++)
        if (spot_within(cap, &k->tiers[LCSB_TIER_HIDE][i])) return true;
    for (size_t i = 0; kind == CAP_DENY_WRITE && i < k->counts[LCSB_TIER_PROTECT]; i++)
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

static void name_one(named *nm, const cap_path *cap) {
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
    bool seen[2][ROLES + 1] = {{false}};
    /* lcsb's own files first, then what else may not be written, then what
     * may not be had at all: a message names only the first few. */
    const held_caps *within = &k->holds[tier][p - k->tiers[tier]];
    for (size_t pass = 0; pass < 3 * within->n; pass++) {
        size_t i = within->v[pass % within->n], stage = pass / within->n;
        const cap_path *cap = &c->paths[i];
        const spot *s = &k->capped[i];
        size_t its = cap->kind != CAP_DENY_WRITE ? 2 : cap->from == ROLE_OWN ? 0 : 1;
        if (its != stage) continue;
        if (cap->kind == CAP_DENY_WRITE && tier != LCSB_TIER_WRITE) continue;
        bool there = s->there;
        if (!there && tier != LCSB_TIER_WRITE) continue;
        bool cover = there && covered(k, s, cap->kind);
        if (cover && k->held) continue;
        name_one(!there ? &makeable : cover ? &unheld : &bare, cap);
        if (there && !cover) write_only &= cap->kind == CAP_DENY_WRITE;
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
    for (int kind = CAP_DENY; kind <= CAP_DENY_WRITE; kind++)
        for (int r = 0; r <= ROLES; r++) {
            if (!seen[kind][r]) continue;
            lcsb__buf_addf(&b, "%s%s: ", sep, kind == CAP_DENY ? "deny" : "deny_write");
            add_source(&b, c, (role)r);
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
    return rank == NET_OPEN      ? "an open network (net = true)"
           : rank == NET_PORTS   ? "TCP ports to any host (net = { connect = ..., bind = ... })"
           : rank == NET_DOMAINS ? "named hosts (net = { domains = ... })"
                                 : "no network (net = false)";
}

/* The role whose file closed what the policy asks, for the message. */
static void add_layer_remedy(lcsb__buf *b, const lcsb__caps *c, role r, const char *key) {
    if (r == ROLE_SYSTEM)
        lcsb__buf_addf(b, "; only an administrator can change %s", c->layers[r].path);
    else if (r == ROLE_USER)
        lcsb__buf_addf(b, ", or %s in %s", key, c->layers[r].path);
}

static int check_switches(const check *k, lcsb_error *err) {
    const lcsb__caps *c = k->caps;
    int net = net_rank(lcsb_policy_net(k->policy));
    bool exec_open = lcsb_policy_exec_open(k->policy);
    unsigned degrade = lcsb_policy_degradable(k->policy);
    for (int r = ROLE_DEFAULTS; r < ROLES; r++) {
        const layer *l = &c->layers[r];
        lcsb__buf b = {0};
        const char *from = r == ROLE_DEFAULTS ? "lcsb's defaults, " : "";
        if (l->net >= 0 && net > l->net) {
            lcsb__buf_addf(&b, "%s: the policy asks for %s, and %s%s caps it (net = %s%s%s); ",
                           k->name, net_text(net), from, l->path, l->net ? "\"" : "",
                           net_rank_names[l->net], l->net ? "\"" : "");
            lcsb__buf_adds(&b, l->net == NET_PORTS     ? "name the ports the command needs, or "
                                                         "the hosts (net = { domains = ... })"
                               : l->net == NET_DOMAINS ? "name the hosts the command needs "
                                                         "(net = { domains = ... })"
                                                       : "say net = false");
            add_layer_remedy(&b, c, (role)r, "change net");
            return refuse(&b, err);
        }
        if (l->exec_any == 0 && exec_open) {
            lcsb__buf_addf(&b,
                           "%s: the policy lets anything run (exec = \"any\"), and %s%s says "
                           "exec_any = false (cap exec_any); list the programs in exec instead",
                           k->name, from, l->path);
            add_layer_remedy(&b, c, (role)r, "change exec_any");
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
            add_layer_remedy(&b, c, (role)r, "change degrade");
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
    if (l->caps->paths[k->index].kind == CAP_DENY_WRITE && l->tier != LCSB_TIER_WRITE) return;
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

/* ---- saying what is in force ---- */

char *lcsb__caps_json(const lcsb__caps *caps) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "[");
    bool first = true;
    for (int r = ROLE_DEFAULTS; r < ROLES; r++) {
        const layer *l = &caps->layers[r];
        if (!l->present) continue;
        lcsb__buf_adds(&b, first ? "{\"file\":" : ",{\"file\":");
        lcsb__buf_add_json_string(&b, l->path);
        lcsb__buf_addf(&b, ",\"sha256\":\"%s\"}", l->sha256);
        first = false;
    }
    lcsb__buf_adds(&b, "]");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

char **lcsb__caps_lines(const lcsb__caps *caps) {
    int net = NET_OPEN, exec_any = 1;
    unsigned degrade = LCSB_PARTS_ALL;
    size_t denied = 0, unwritable = 0;
    for (int r = ROLE_DEFAULTS; r < ROLES; r++) {
        const layer *l = &caps->layers[r];
        if (l->net >= 0 && l->net < net) net = l->net;
        if (l->exec_any == 0) exec_any = 0;
        if (l->degrade_said) degrade &= l->degrade;
    }
    for (size_t i = 0; i < caps->n; i++) {
        denied += caps->paths[i].kind == CAP_DENY;
        unwritable += caps->paths[i].kind == CAP_DENY_WRITE;
    }
    lcsb__buf one = {0}, two = {0};
    lcsb__buf_addf(&one,
                   "caps: %zu paths denied, %zu never writable; net %s, exec any %s, degrade ",
                   denied, unwritable, net_rank_names[net], exec_any ? "allowed" : "refused");
    if (degrade == LCSB_PARTS_ALL)
        lcsb__buf_adds(&one, "any part");
    else if (degrade == 0)
        lcsb__buf_adds(&one, "nothing");
    else
        lcsb__add_part_names(&one, degrade, "", ", ");
    static const char *const roles[] = {"lcsb's defaults", "system", "user"};
    lcsb__buf_adds(&two, "caps files:");
    for (int r = ROLE_DEFAULTS; r < ROLES; r++) {
        const layer *l = &caps->layers[r];
        lcsb__buf_addf(&two, "%s %s %s%s", r ? "," : "", roles[r], l->path[0] ? l->path : "(none)",
                       l->path[0] && !l->present ? " (absent)" : "");
    }
    lcsb__strv lines = {0};
    bool oom =
        one.oom || two.oom || lcsb__strv_push(&lines, one.p) || lcsb__strv_push(&lines, two.p);
    lcsb__buf_free(&one);
    lcsb__buf_free(&two);
    if (oom) {
        lcsb__strv_clear(&lines);
        return NULL;
    }
    return lcsb__strv_take(&lines);
}

void lcsb__caps_push(struct lua_State *L, const lcsb__caps *caps) {
    lua_createtable(L, 0, 2);
    lua_newtable(L); /* deny */
    lua_newtable(L); /* deny_write */
    lua_Integer n[2] = {0, 0};
    for (size_t i = 0; caps && i < caps->n; i++) {
        int which = caps->paths[i].kind == CAP_DENY_WRITE;
        lua_pushstring(L, caps->paths[i].written);
        lua_rawseti(L, which ? -2 : -3, ++n[which]);
    }
    lua_setfield(L, -3, "deny_write");
    lua_setfield(L, -2, "deny");
    lua_createtable(L, caps ? (int)caps->own.n : 0, 0);
    for (size_t i = 0; caps && i < caps->own.n; i++) {
        lua_pushstring(L, caps->own.v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "own");
}
