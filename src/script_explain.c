/* What a policy script says back, in lines for a terminal: explain's hints
 * for a failed run (lua/lcsb/remedies.lua, given the result's own tables,
 * or a saved attestation in a Lua state of its own), after_run's warnings,
 * and the lists of lines exec_policy's result holds (tools, warnings,
 * defaults, plan). Each line escaped: a hint may quote the command's
 * stderr, a warning a path the command named. */
#include "script.h"

#include "caps.h"
#include "escape.h"
#include "installed.h"
#include "lua_modules.h"
#include "lua_util.h"

#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <string.h>

/* LEN bytes of TEXT, escaped for a terminal, pushed onto LINES. */
static bool push_escaped(lcsb__strv *lines, const char *text, size_t len) {
    lcsb__buf b = {0};
    lcsb__buf_add_escaped(&b, text, len);
    bool oom = b.oom || lcsb__strv_push_n(lines, b.p, b.len) != 0;
    lcsb__buf_free(&b);
    return !oom;
}

/* The list on top as an lcsb argv of lines, each of its strings (and
 * numbers) escaped for a terminal and, when SPLIT, cut at its newlines: a
 * hint may quote the command's stderr. A warning is one line whatever it
 * holds: a newline in a path the command named must not start a line of
 * its own words. What is neither is passed over. NULL when there is no
 * line, or on ENOMEM. */
char **lcsb__script_take_lines(lua_State *L, bool split) {
    lcsb__strv lines = {0};
    bool oom = false;
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; !oom && i <= n; i++) {
        lua_rawgeti(L, -1, i);
        size_t len;
        const char *text = lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER
                               ? lua_tolstring(L, -1, &len)
                               : NULL;
        for (size_t at = 0; text && !oom && at < len;) {
            size_t line = split ? strcspn(text + at, "\n") : len;
            if (line > 0) oom = !push_escaped(&lines, text + at, line);
            at += line + 1;
        }
        lua_pop(L, 1);
    }
    if (oom || lines.n == 0) {
        lcsb__strv_clear(&lines);
        return NULL;
    }
    return lcsb__strv_take(&lines);
}

/* An lcsb argv of one line: WHAT failed, and the error on top. */
static char **failure_line(lua_State *L, const char *what) {
    const char *msg = lua_tostring(L, -1);
    lcsb__buf b = {0};
    lcsb__strv line = {0};
    lcsb__buf_addf(&b, "%s failed: %s", what, msg ? msg : "(no message)");
    char **out = b.oom || !push_escaped(&line, b.p, b.len) ? NULL : lcsb__strv_take(&line);
    lcsb__strv_clear(&line);
    lcsb__buf_free(&b);
    return out;
}

/* Call the function pushed above TOP with its NARGS arguments: the list of
 * lines it returns as an lcsb argv, or one line saying WHAT failed. */
static char **call_for_lines(lua_State *L, int top, int nargs, const char *what, bool split) {
    char **lines = NULL;
    if (lua_pcall(L, nargs, 1, 0) != LUA_OK)
        lines = failure_line(L, what);
    else if (lua_istable(L, -1))
        lines = lcsb__script_take_lines(L, split);
    lua_settop(L, top);
    return lines;
}

void lcsb__push_evidence(lua_State *L, const char *const *argv, const lcsb_run_result *result,
                         int ref, const lcsb__caps *caps) {
    lua_newtable(L);
    lua_newtable(L);
    for (size_t i = 0; argv && argv[i]; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "argv");
    lcsb__lua_set_run_result(L, result);
    /* The policy as the script's result holds it (the one enforced, its
     * protected paths made), and the caps it was held to, merged: a hint
     * never offers what a cap of the administrator's or the user's refuses. */
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_setfield(L, -2, "policy");
    if (caps) {
        lcsb__caps_push(L, caps);
        lua_setfield(L, -2, "caps");
    }
}

static int pexplain(lua_State *L) {
    const char *const *argv = lua_touserdata(L, 1);
    const lcsb_run_result *result = lua_touserdata(L, 2);
    int ref = (int)lua_tointeger(L, 3);
    const lcsb__caps *caps = lua_touserdata(L, 4);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb.remedies");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "explain");
    lcsb__push_evidence(L, argv, result, ref, caps);
    lua_call(L, 1, 1);
    return 1;
}

char **lcsb_script_explain(lcsb_script *s, const char *const *argv, const lcsb_run_result *result) {
    if (!s || !s->L) return NULL;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, pexplain);
    lua_pushlightuserdata(L, (void *)argv);
    lua_pushlightuserdata(L, (void *)result);
    lua_pushinteger(L, s->result);
    lua_pushlightuserdata(L, s->caps);
    return call_for_lines(L, top, 4, "explain", true);
}

/* The evidence a saved attestation holds, explained: JSON on top, decoded
 * with lua-cjson; the status is the run's when it was saved with it. */
static const char explain_saved[] =
    "local text = ...\n"
    "local ok, cjson = pcall(require, 'cjson.safe')\n"
    "if not ok then error('lua-cjson is not installed (Debian: lua-cjson)', 0) end\n"
    "local att = cjson.decode(text)\n"
    "if type(att) ~= 'table' or type(att.backend) ~= 'string' then\n"
    "  error('not an attestation (lcsb --attest FILE writes one)', 0)\n"
    "end\n"
    "local status = math.type(att.status) == 'integer' and att.status or nil\n"
    "return require('lcsb.remedies').explain { attestation = att, status = status,\n"
    "  argv = {}, policy = {}, saved = true }\n";

static int pexplain_saved(lua_State *L) {
    lcsb__lua_open(L, lua_touserdata(L, 1));
    if (luaL_loadbuffer(L, explain_saved, sizeof explain_saved - 1, "=explain") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, 2);
    lua_call(L, 1, 1);
    return 1;
}

int lcsb_explain_attestation(const char *json, size_t len, const char *lua_dir, char ***hints,
                             lcsb_error *err) {
    *hints = NULL;
    char installed[PATH_MAX];
    if (!lua_dir) {
        int found = lcsb__installed_lua_dir(installed, err);
        if (found) return found;
        lua_dir = installed;
    }
    lua_State *L = luaL_newstate();
    if (!L) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    lua_pushcfunction(L, pexplain_saved);
    lua_pushlightuserdata(L, (void *)lua_dir);
    lua_pushlstring(L, json, len);
    int rc = 0;
    if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        rc = lcsb__fail(err, LCSB_EINVAL, "explain: %s", msg ? msg : "(no message)");
    } else if (lua_istable(L, -1)) {
        *hints = lcsb__script_take_lines(L, true);
    }
    lua_close(L);
    return rc;
}

static int pafter(lua_State *L) {
    int ref = (int)lua_tointeger(L, 1);
    bool ran = lua_toboolean(L, 2);
    bool list_quiet = lua_toboolean(L, 3);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "after_run");
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_pushboolean(L, ran);
    lua_pushboolean(L, list_quiet);
    lua_call(L, 3, 1);
    return 1;
}

char **lcsb__script_after_run(lcsb_script *s, bool ran) {
    if (!s || !s->L || s->result == LUA_NOREF) return NULL;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, pafter);
    lua_pushinteger(L, s->result);
    lua_pushboolean(L, ran);
    lua_pushboolean(L, s->list_quiet);
    return call_for_lines(L, top, 3, "checking after the run", false);
}

char **lcsb_script_after_run(lcsb_script *s) { return lcsb__script_after_run(s, true); }

/* result[KEY], a list of lines exec_policy wrote, read raw and escaped. */
static char **result_lines(const lcsb_script *s, const char *key) {
    if (!s || !s->L || s->result == LUA_NOREF) return NULL;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->result);
    char **lines = NULL;
    if (lua_istable(L, -1) && lcsb__raw_field(L, -1, key) == LUA_TTABLE)
        lines = lcsb__script_take_lines(L, false);
    lua_settop(L, top);
    return lines;
}

char **lcsb_script_tools(const lcsb_script *s) { return result_lines(s, "tools"); }

char **lcsb_script_warnings(const lcsb_script *s) { return result_lines(s, "warnings"); }

char **lcsb_script_defaults(const lcsb_script *s) { return result_lines(s, "defaults"); }

char **lcsb_script_plan(const lcsb_script *s) { return result_lines(s, "plan"); }
