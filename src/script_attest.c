/* What a policy script adds to the attestation: the keys lcsb --attest
 * writes after the attestation's own, "policy" (the script and every file it
 * read), "home" and "cache", "caps", and from the script's result
 * "run_later", "built" and "tools". Strings that need not be text (paths)
 * are escaped as lcsb_escape does, never written as invalid JSON. */
#include "script.h"

#include "attest.h"
#include "caps.h"
#include "escape.h"
#include "json.h"

#include <lua.h>
#include <stdlib.h>
#include <string.h>

/* The string at T[KEY] (raw), or NULL. */
static const char *string_field(lua_State *L, int t, const char *key) {
    const char *value = lcsb__raw_field(L, t, key) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* the string stays alive in T */
    return value;
}

/* TEXT as a JSON string: as it is when it is UTF-8, else escaped as
 * lcsb_escape does (a path need not be text, and JSON is). */
static void add_json_text(lcsb__buf *b, const char *text) {
    size_t len = strlen(text);
    if (lcsb__is_utf8(text, len)) {
        lcsb__buf_add_json_string(b, text);
        return;
    }
    lcsb__buf escaped = {0};
    lcsb__buf_add_escaped(&escaped, text, len);
    lcsb__buf_add_json_string(b, escaped.oom ? "" : escaped.p);
    b->oom |= escaped.oom;
    lcsb__buf_free(&escaped);
}

/* ,"run_later":[{"path":...,"why":...,"inside":[...]},...] (and "quiet": a
 * file no warning named, "unseen": where lcsb could not look) from
 * result.run_later, which after_run sets when a command ran. */
static void add_run_later(lua_State *L, int result, lcsb__buf *b) {
    if (lcsb__raw_field(L, result, "run_later") != LUA_TTABLE) return;
    int list = lua_gettop(L);
    lcsb__buf_adds(b, ",\"run_later\":[");
    size_t n = 0;
    for (lua_Integer i = 1; lua_rawgeti(L, list, i) == LUA_TTABLE; i++) {
        int item = lua_gettop(L);
        const char *path = string_field(L, item, "path"), *why = string_field(L, item, "why");
        if (path && why) {
            lcsb__buf_adds(b, n++ ? ",{\"path\":" : "{\"path\":");
            add_json_text(b, path);
            lcsb__buf_adds(b, ",\"why\":");
            add_json_text(b, why);
            if (lcsb__raw_field(L, item, "inside") == LUA_TTABLE && lua_rawlen(L, -1) > 0) {
                lcsb__buf_adds(b, ",\"inside\":[");
                for (lua_Integer j = 1; lua_rawgeti(L, -1, j) == LUA_TSTRING; j++) {
                    if (j > 1) lcsb__buf_adds(b, ",");
                    add_json_text(b, lua_tostring(L, -1));
                    lua_pop(L, 1);
                }
                lcsb__buf_adds(b, "]");
            }
            if (lcsb__raw_field(L, item, "unseen") == LUA_TBOOLEAN && lua_toboolean(L, -1))
                lcsb__buf_adds(b, ",\"unseen\":true");
            if (lcsb__raw_field(L, item, "quiet") == LUA_TBOOLEAN && lua_toboolean(L, -1))
                lcsb__buf_adds(b, ",\"quiet\":true");
            lcsb__buf_adds(b, "}");
        }
        lua_settop(L, list);
    }
    lcsb__buf_adds(b, "]");
}

/* ,"KEY":[...] from the list of strings result[KEY], when it has any. */
static void add_strings(lua_State *L, int result, lcsb__buf *b, const char *key) {
    if (lcsb__raw_field(L, result, key) != LUA_TTABLE || lua_rawlen(L, -1) == 0) return;
    lcsb__buf_addf(b, ",\"%s\":[", key);
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
        if (i > 1) lcsb__buf_adds(b, ",");
        add_json_text(b, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lcsb__buf_adds(b, "]");
}

/* ,"built":[DIR,...]: where what the command writes, it may run. */
static void add_built(lua_State *L, int result, lcsb__buf *b) {
    add_strings(L, result, b, "built");
}

/* ,"tools":[...]: the presets and closures the exec allowlist came from. */
static void add_tools(lua_State *L, int result, lcsb__buf *b) {
    add_strings(L, result, b, "tools");
}

/* "policy": the script, how it was trusted, and each file it read: its
 * digest and whether the run protects it (lcsb's own modules only then). */
static void add_policy_json(lcsb__buf *b, const lcsb_script *s) {
    const lcsb__loads *loads = &s->loads;
    lcsb__buf_adds(b, "\"policy\":{\"script\":");
    lcsb__buf_add_json_string(b, loads->script_path);
    lcsb__buf_addf(b, ",\"trust\":\"%s\",\"files\":[", lcsb_script_trusted(s));
    size_t n = loads->read.n + loads->own.n, shown = 0;
    for (size_t i = 0; i < n; i++) {
        bool own = i >= loads->read.n;
        /* Files loaded after the policy was made (a hint's modules) were
         * never the policy's to protect. */
        size_t k = own ? s->protected_read_n + (i - loads->read.n) : i;
        bool protected = s->protected_reads &&
                         (own ? i - loads->read.n < s->protected_own_n : i < s->protected_read_n) &&
                         s->protected_reads[k];
        if (own && !protected) continue;
        const lcsb__trust_file *f = own ? &loads->own.v[i - loads->read.n] : &loads->read.v[i];
        lcsb__buf_addf(b, "%s{\"path\":", shown++ ? "," : "");
        lcsb__buf_add_json_string(b, f->path);
        if (strcmp(f->path, f->real) != 0) {
            lcsb__buf_adds(b, ",\"real\":");
            lcsb__buf_add_json_string(b, f->real);
        }
        lcsb__buf_addf(b, ",\"sha256\":\"%s\",\"protected\":%s}", f->sha256,
                       protected ? "true" : "false");
    }
    lcsb__buf_adds(b, "]}");
}

/* ,"home":[{"name":...,"path":...}],"cache":[...]: what the private HOME
 * showed of the real one, from the copy taken when the script returned. */
static void add_home_json(lcsb__buf *b, const lcsb_script *s) {
    for (int cache = 0; cache < 2; cache++) {
        lcsb__buf_adds(b, cache ? ",\"cache\":[" : ",\"home\":[");
        size_t shown = 0;
        for (size_t i = 0; i < s->home_n; i++) {
            if (s->home[i].cache != (cache == 1)) continue;
            lcsb__buf_adds(b, shown++ ? ",{\"name\":" : "{\"name\":");
            add_json_text(b, s->home[i].name);
            lcsb__buf_adds(b, ",\"path\":");
            add_json_text(b, s->home[i].path);
            lcsb__buf_adds(b, "}");
        }
        lcsb__buf_adds(b, "]");
    }
}

/* What the script adds to the attestation, each a top-level key written
 * after the attestation's own: one function per key. */
static void (*const script_keys[])(lua_State *L, int result, lcsb__buf *b) = {add_run_later,
                                                                              add_built, add_tools};

static int pattest(lua_State *L) {
    lcsb__buf *b = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, (int)lua_tointeger(L, 2));
    int result = lua_gettop(L);
    for (size_t i = 0; i < sizeof script_keys / sizeof script_keys[0]; i++) {
        script_keys[i](L, result, b);
        lua_settop(L, result);
    }
    return 0;
}

/* The keys the script's result adds (pattest), appended to B: a Lua
 * status. */
static int add_script_keys(lcsb_script *s, lcsb__buf *b) {
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, pattest);
    lua_pushlightuserdata(L, b);
    lua_pushinteger(L, s->result);
    int status = lua_pcall(L, 2, 0, 0);
    lua_settop(L, top);
    return status;
}

/* ATT as JSON with the keys S adds (S NULL: none) and, for a run, its
 * STATUS (NULL: none), every one a key of the one object. */
static char *attestation_json(lcsb_script *s, const lcsb_attestation *att, const int *status) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "{");
    lcsb__attestation_add_keys(&b, att);
    int lua_status = LUA_OK;
    if (s) {
        lcsb__buf_adds(&b, ",");
        add_policy_json(&b, s);
        if (s->home_known) add_home_json(&b, s);
        /* The files the policy was checked against, with what they held. */
        char *caps = s->caps ? lcsb__caps_json(s->caps) : NULL;
        if (caps) lcsb__buf_addf(&b, ",\"caps\":%s", caps);
        if (s->caps && !caps) b.oom = true;
        free(caps);
        if (s->L && s->result != LUA_NOREF) lua_status = add_script_keys(s, &b);
    }
    /* How the run ended, which lcsb explain reads back. */
    if (status) lcsb__buf_addf(&b, ",\"status\":%d", *status);
    lcsb__buf_adds(&b, "}");
    if (lua_status != LUA_OK || b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}

char *lcsb_script_attestation_json(lcsb_script *s, const lcsb_attestation *att) {
    return attestation_json(s, att, NULL);
}

char *lcsb_script_run_json(lcsb_script *s, const lcsb_run_result *result) {
    return attestation_json(s, &result->attestation, &result->status);
}
