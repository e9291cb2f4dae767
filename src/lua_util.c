/* What the Lua binding's files share: raising an lcsb_error, pushing argvs,
 * bit sets and the public structs (through their field tables), making a
 * userdata class, a table's names sorted, a list of names added to a
 * policy. */
#include "lua_util.h"

#include "attest.h"
#include "policy.h"

#include <stdlib.h>
#include <string.h>

int lcsb__lua_raise(lua_State *L, const lcsb_error *err) {
    return luaL_error(L, "%s", err->message);
}

const char *lcsb__lua_check_path(lua_State *L, int idx) {
    size_t len;
    const char *path = luaL_checklstring(L, idx, &len);
    if (strlen(path) != len) luaL_argerror(L, idx, "the path holds a NUL byte");
    return path;
}

int lcsb__lua_fail(lua_State *L, const char *message) {
    luaL_pushfail(L);
    lua_pushstring(L, message);
    return 2;
}

int lcsb__lua_outcome(lua_State *L, int rc, const lcsb_error *err) {
    if (rc) return lcsb__lua_fail(L, err->message);
    lua_pushboolean(L, 1);
    return 1;
}

void lcsb__lua_push_argv(lua_State *L, char **argv) {
    lua_newtable(L);
    for (size_t i = 0; argv && argv[i]; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* N in decimal, ending at END; returns where it starts. */
static char *decimal(char *end, lua_Integer n) {
    lua_Unsigned u = n < 0 ? 0u - (lua_Unsigned)n : (lua_Unsigned)n;
    do *--end = (char)('0' + u % 10);
    while (u /= 10);
    if (n < 0) *--end = '-';
    return end;
}

void lcsb__lua_push_identity(lua_State *L, lua_Integer dev, lua_Integer ino) {
    char buf[48];
    char *ino_at = decimal(buf + sizeof buf, ino);
    *--ino_at = ':';
    char *start = decimal(ino_at, dev);
    lua_pushlstring(L, start, (size_t)(buf + sizeof buf - start));
}

void lcsb__lua_push_bits(lua_State *L, const char *const *names, unsigned bits) {
    lua_newtable(L);
    lua_Integer n = 0;
    for (unsigned i = 0; names[i]; i++) {
        if (!(bits & (1u << i))) continue;
        lua_pushstring(L, names[i]);
        lua_rawseti(L, -2, ++n);
    }
}

void lcsb__lua_push_fields(lua_State *L, const lcsb__field *fields, const void *object) {
    lua_newtable(L);
    for (const lcsb__field *f = fields; f->key; f++) {
        if (lcsb__field_omitted(f, object)) continue;
        switch (f->kind) {
        case LCSB__FIELD_WORD: lua_pushstring(L, lcsb__field_word(f, object)); break;
        case LCSB__FIELD_TEXT: lua_pushstring(L, lcsb__field_text(f, object)); break;
        case LCSB__FIELD_INT: lua_pushinteger(L, lcsb__field_int(f, object)); break;
        case LCSB__FIELD_BOOL: lua_pushboolean(L, lcsb__field_bool(f, object)); break;
        case LCSB__FIELD_BITS: lcsb__lua_push_bits(L, f->names, lcsb__field_bits(f, object)); break;
        }
        lua_setfield(L, -2, f->key);
    }
}

/* The recorder's refusals (lcsb.h), as the attestation's JSON has them. */
static void push_refused(lua_State *L, const lcsb_attestation *a) {
    if (!a->recorded) return;
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "recorded");
    lua_pushboolean(L, a->execs_seen);
    lua_setfield(L, -2, "execs_seen");
    lua_createtable(L, LCSB_REFUSALS_MAX, 0);
    for (size_t i = 0; i < a->refused_count && i < LCSB_REFUSALS_MAX; i++) {
        const lcsb_refusal *r = &a->refused[i];
        const char *name = strerrorname_np(r->error);
        lua_createtable(L, 0, 8);
        lua_pushstring(L, r->op);
        lua_setfield(L, -2, "op");
        lua_pushstring(L, r->key);
        lua_setfield(L, -2, "key");
        lua_pushstring(L, r->target);
        lua_setfield(L, -2, "target");
        lua_pushstring(L, r->program);
        lua_setfield(L, -2, "program");
        lua_pushinteger(L, r->error);
        lua_setfield(L, -2, "errno");
        lua_pushstring(L, name ? name : "?");
        lua_setfield(L, -2, "error");
        lua_pushinteger(L, r->count);
        lua_setfield(L, -2, "count");
        if (r->home) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, "home");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "refused");
    lua_pushinteger(L, (lua_Integer)a->refused_count);
    lua_setfield(L, -2, "refused_count");
}

void lcsb__lua_push_attestation(lua_State *L, const lcsb_attestation *a) {
    lcsb__lua_push_fields(L, lcsb__attestation_fields, a);
    if (a->domains[0]) {
        lua_newtable(L);
        lua_Integer n = 0;
        for (const char *line = a->domains; *line;) {
            size_t len = strcspn(line, "\n");
            lua_pushlstring(L, line, len);
            lua_rawseti(L, -2, ++n);
            line += len + (line[len] == '\n');
        }
        lua_setfield(L, -2, "domains");
    }
    push_refused(L, a);
    if (!a->net_refused_count) return;
    lua_createtable(L, LCSB_NET_REFUSALS_MAX, 0);
    for (size_t i = 0; i < a->net_refused_count && i < LCSB_NET_REFUSALS_MAX; i++) {
        const lcsb_net_refusal *r = &a->net_refused[i];
        lua_createtable(L, 0, 4);
        lua_pushstring(L, r->host);
        lua_setfield(L, -2, "host");
        lua_pushinteger(L, r->port);
        lua_setfield(L, -2, "port");
        lua_pushinteger(L, r->attempts);
        lua_setfield(L, -2, "attempts");
        lua_pushstring(L, r->why);
        lua_setfield(L, -2, "why");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "net_refused");
    lua_pushinteger(L, (lua_Integer)a->net_refused_count);
    lua_setfield(L, -2, "net_refused_count");
}

void lcsb__lua_new_class(lua_State *L, const char *name, const luaL_Reg *meta,
                         const luaL_Reg *methods) {
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    /* Out of a script's reach: a __call put there would make the object a
     * function lcsb calls while composing, which no plan's key sees. */
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

void *lcsb__lua_capped_alloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
    lcsb__lua_memory *m = ud;
    if (!ptr) old_size = 0; /* then old_size tells the kind of object, not a size */
    if (new_size == 0) {
        free(ptr);
        m->used -= old_size;
        return NULL;
    }
    if (new_size > old_size && new_size - old_size > m->max - m->used) return NULL;
    void *grown = realloc(ptr, new_size);
    if (grown) m->used = m->used - old_size + new_size;
    return grown;
}

void lcsb__lua_set_run_result(lua_State *L, const lcsb_run_result *result) {
    lua_pushinteger(L, result->status);
    lua_setfield(L, -2, "status");
    lua_pushstring(L, result->note);
    lua_setfield(L, -2, "note");
    lua_pushboolean(L, result->setup_failed);
    lua_setfield(L, -2, "setup_failed");
    if (result->stderr_tail_len > 0) {
        lua_pushlstring(L, result->stderr_tail, result->stderr_tail_len);
        lua_setfield(L, -2, "stderr");
    }
    lcsb__lua_push_attestation(L, &result->attestation);
    lua_setfield(L, -2, "attestation");
}

static int by_string(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The string keys of the table at T, sorted (so that the same policy gives
 * the same argv whatever Lua's hash order), in an array the GC owns, left on
 * the stack; their strings are kept alive by the table. *N gets the count. */
const char **lcsb__lua_sorted_names(lua_State *L, int t, const char *what, size_t *n) {
    *n = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "policy key '%s': names must be strings", what);
        size_t len;
        const char *name = lua_tolstring(L, -2, &len);
        if (strlen(name) != len) luaL_error(L, "policy key '%s': a name holds a NUL byte", what);
        lua_pop(L, 1);
        (*n)++;
    }
    const char **names = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *names, 0);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        names[i++] = lua_tostring(L, -2);
        lua_pop(L, 1);
    }
    qsort(names, *n, sizeof *names, by_string);
    return names;
}

const char *lcsb__lua_list_entry(lua_State *L, const char *key, lua_Integer i, const char *kind) {
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "policy key '%s': entry %d is a %s, expected %s", key, (int)i,
                   luaL_typename(L, -1), kind);
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    if (strlen(text) != len)
        luaL_error(L, "policy key '%s': entry %d holds a NUL byte", key, (int)i);
    return text;
}

/* Each name in the list at T, given to ADD (pass), or unset (ADD NULL). */
void lcsb__lua_add_names(lua_State *L, lcsb_policy *p, int t, const char *what,
                         int (*add)(lcsb_policy *, const char *, lcsb_error *)) {
    lcsb_error err;
    if (!lua_istable(L, t)) luaL_error(L, "policy key '%s': expected a list of names", what);
    lua_Integer n = luaL_len(L, t), count = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > n)
            luaL_error(L, "policy key '%s': expected a list of names", what);
        lua_pop(L, 1);
        count++;
    }
    if (count != n) luaL_error(L, "policy key '%s': expected a list of names", what);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, t, i);
        const char *name = lcsb__lua_list_entry(L, what, i, "a name");
        if (!add) {
            for (size_t k = 0; k < p->env_n; k++)
                if (p->env[k].value && strcmp(p->env[k].name, name) == 0)
                    luaL_error(L, "policy key 'env': %s is both in set and in unset", name);
        }
        if (add ? add(p, name, &err) : lcsb_policy_set_env(p, name, NULL, &err))
            lcsb__lua_raise(L, &err);
        lua_pop(L, 1);
    }
}
