/* The network's keys of a Lua policy spec (lua_net.h): net, its domains
 * with their grants and rules, lan and ports; and secrets, read and given
 * back. */
#include "lua_net.h"

#include "lua_util.h"
#include "netname.h"
#include "policy.h"
#include "secrets.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void add_ports(lua_State *L, lcsb_policy *p, int net_idx, const char *field,
                      lcsb_port_kind kind) {
    lcsb_error err;
    lua_getfield(L, net_idx, field);
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1))
            luaL_error(L, "policy key 'net.%s': expected a list of ports", field);
        lua_Integer n = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, -1, i);
            int isnum;
            lua_Integer port = lua_tointegerx(L, -1, &isnum);
            if (!isnum)
                luaL_error(L, "policy key 'net.%s': entry %d is not an integer", field, (int)i);
            if (lcsb_policy_add_port(p, kind, (long)port, &err)) lcsb__lua_raise(L, &err);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* net.domains or net.lan, when given: a list of strings, each added by ADD. */
static void add_net_names(lua_State *L, lcsb_policy *p, int net_idx, const char *field,
                          const char *what, int (*add)(lcsb_policy *, const char *, lcsb_error *)) {
    if (lua_getfield(L, net_idx, field) != LUA_TNIL)
        lcsb__lua_add_names(L, p, lua_gettop(L), what, add);
    lua_pop(L, 1);
}

/* LIST (a list of strings at the top) joined by commas into OUT (SIZE
 * bytes), for the policy key WHERE.KEY (WHERE: 'net.domains["HOST"]',
 * 'secrets.NAME'): each string checked whole where the entry is, here only
 * for its shape. */
static void join_list(lua_State *L, const char *where, const char *key, char *out, size_t size) {
    if (!lua_istable(L, -1))
        luaL_error(L, "policy key '%s.%s': expected a list of strings", where, key);
    lcsb__buf b = {0};
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        size_t len;
        const char *item = lua_rawgeti(L, -1, i) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!item || strlen(item) != len || strchr(item, ',') || strchr(item, ' ')) {
            lcsb__buf_free(&b);
            luaL_error(L, "policy key '%s.%s': item %d is no string without commas and spaces",
                       where, key, (int)i);
        }
        lcsb__buf_addf(&b, "%s%s", i > 1 ? "," : "", item);
        lua_pop(L, 1);
    }
    bool fits = !b.oom && n > 0 && b.len < size;
    if (fits) memcpy(out, b.p, b.len + 1);
    lcsb__buf_free(&b);
    if (!fits)
        luaL_error(L, "policy key '%s.%s': %s", where, key,
                   n > 0 ? "too long a list" : "an empty list allows nothing; leave the key out");
}

/* ["HOST"] = { once = true, ["until"] = TIME, methods = {...}, paths = {...} }
 * in net.domains, the table at G: HOST allowed until its grant ends, and
 * only the requests its rule lets through, as the entry "HOST once
 * until=... methods=... paths=...". TIME is "YYYY-MM-DDTHH:MM:SSZ" or
 * seconds since the epoch (os.time() + 600). */
static void add_granted_domain(lua_State *L, lcsb_policy *p, const char *host, int g) {
    static const char shape[] = "expected { once = true, [\"until\"] = \"YYYY-MM-DDTHH:MM:SSZ\" "
                                "or seconds since the epoch, methods = { \"GET\" }, paths = { "
                                "\"/PREFIX/\" } }";
    if (!lua_istable(L, g)) luaL_error(L, "policy key 'net.domains[\"%s\"]': %s", host, shape);
    bool once = false;
    char until[64] = "", methods[LCSB__DOMAIN_METHODS_MAX] = "", paths[LCSB__DOMAIN_PATHS_MAX] = "";
    lua_pushnil(L);
    while (lua_next(L, g)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (k && strcmp(k, "once") == 0 && lua_isboolean(L, -1)) {
            once = lua_toboolean(L, -1);
        } else if (k && strcmp(k, "until") == 0 && lua_type(L, -1) == LUA_TNUMBER) {
            /* Seconds since the epoch, a fraction dropped (os.time() + 0.5),
             * up to the last second of year 9999, as the text form goes. */
            lua_Number n = lua_tonumber(L, -1);
            time_t t = n >= 1 && n < 253402300800.0 ? (time_t)n : 0;
            struct tm tm;
            if (t <= 0 || !gmtime_r(&t, &tm) ||
                !strftime(until, sizeof until, "%Y-%m-%dT%H:%M:%SZ", &tm))
                luaL_error(L,
                           "policy key 'net.domains[\"%s\"].until': %s is no time from 1970 to "
                           "9999 (seconds since the epoch)",
                           host, lua_tostring(L, -1));
        } else if (k && strcmp(k, "until") == 0 && lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            const char *text = lua_tolstring(L, -1, &len);
            if (strlen(text) != len || len >= sizeof until)
                luaL_error(L,
                           "policy key 'net.domains[\"%s\"].until': not a time in UTC, as "
                           "2026-12-06T18:00:00Z",
                           host);
            memcpy(until, text, len + 1);
        } else if (k && (strcmp(k, "methods") == 0 || strcmp(k, "paths") == 0)) {
            char where[LCSB__HOST_MAX + 32];
            snprintf(where, sizeof where, "net.domains[\"%s\"]", host);
            if (k[0] == 'm')
                join_list(L, where, k, methods, sizeof methods);
            else
                join_list(L, where, k, paths, sizeof paths);
        } else if (k && strcmp(k, "once") != 0 && strcmp(k, "until") != 0) {
            luaL_error(L, "policy key 'net.domains[\"%s\"]': unknown key '%s' (%s)", host, k,
                       shape);
        } else {
            luaL_error(L, "policy key 'net.domains[\"%s\"]%s%s': %s", host, k ? "." : "",
                       k ? k : "", shape);
        }
        lua_pop(L, 1);
    }
    if (!once && !until[0] && !methods[0] && !paths[0])
        luaL_error(L,
                   "policy key 'net.domains[\"%s\"]': a grant with no end and no rule; list "
                   "\"%s\" instead",
                   host, host);
    char entry[LCSB__DOMAIN_TEXT_MAX + 64];
    if ((size_t)snprintf(entry, sizeof entry, "%s%s%s%s%s%s%s%s", host, once ? " once" : "",
                         until[0] ? " until=" : "", until, methods[0] ? " methods=" : "", methods,
                         paths[0] ? " paths=" : "", paths) >= sizeof entry)
        luaL_error(L, "policy key 'net.domains[\"%s\"]': longer than any entry", host);
    lcsb_error err;
    if (lcsb_policy_add_domain(p, entry, &err)) lcsb__lua_raise(L, &err);
}

/* net.domains, the table at T: a list of entries, and hosts whose grant
 * ends by name, after them in the order of their names. */
static void add_domains(lua_State *L, lcsb_policy *p, int t) {
    if (!lua_istable(L, t)) luaL_error(L, "policy key 'net.domains': expected a list of names");
    lua_Integer n = luaL_len(L, t);
    /* The list first, alone: its strings are entries as lcsb.policy takes them. */
    lua_createtable(L, (int)n, 0);
    int list = lua_gettop(L);
    lua_newtable(L);
    int granted = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_settable(L, lua_type(L, -2) == LUA_TSTRING ? granted : list);
    }
    lcsb__lua_add_names(L, p, list, "net.domains", lcsb_policy_add_domain);
    size_t count;
    const char **hosts = lcsb__lua_sorted_names(L, granted, "net.domains", &count);
    for (size_t i = 0; i < count; i++) {
        lua_getfield(L, granted, hosts[i]);
        add_granted_domain(L, p, hosts[i], lua_gettop(L));
        lua_pop(L, 1);
    }
    lua_settop(L, list - 1);
}

void lcsb__lua_policy_net(lua_State *L, lcsb_policy *p) {
    int t = lua_gettop(L);
    if (lua_isboolean(L, t)) {
        lcsb_policy_set_net(p, lua_toboolean(L, t) ? LCSB_NET_OPEN : LCSB_NET_DENY);
        return;
    }
    if (!lua_istable(L, t))
        luaL_error(L, "policy key 'net': expected true, false or { domains = {...}, connect = "
                      "{...}, bind = {...}, lan = {...} }");
    bool domains = false;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k || (strcmp(k, "connect") != 0 && strcmp(k, "bind") != 0 &&
                   strcmp(k, "domains") != 0 && strcmp(k, "lan") != 0))
            luaL_error(L,
                       "policy key 'net': unknown key '%s' (expected domains, connect, bind, lan)",
                       k ? k : luaL_typename(L, -2));
        domains |= strcmp(k, "domains") == 0;
        lua_pop(L, 1);
    }
    /* net = { domains = {} } is a network of its own with no way out: what
     * the command's own loopback serves, and nothing else. */
    lcsb_policy_set_net(p, domains ? LCSB_NET_DOMAINS : LCSB_NET_PORTS);
    if (lua_getfield(L, t, "domains") != LUA_TNIL) add_domains(L, p, lua_gettop(L));
    lua_pop(L, 1);
    add_net_names(L, p, t, "lan", "net.lan", lcsb_policy_add_lan);
    if (p->lan.n && !domains)
        luaL_error(L, "policy key 'net.lan': names where listed domains may lead, so it needs "
                      "net.domains");
    add_ports(L, p, t, "connect", LCSB_PORT_CONNECT);
    add_ports(L, p, t, "bind", LCSB_PORT_BIND);
}

/* secrets = { NAME = { hosts = { "api.github.com", ... }, headers = {
 * "Private-Token" } } }, the table on top: each a secret (secrets.h), in
 * the order of their names. */
void lcsb__lua_policy_secrets(lua_State *L, lcsb_policy *p) {
    static const char shape[] = "expected { hosts = { \"HOST\", ... }, headers = { \"NAME\" }, "
                                "from = \"/PATH\" }";
    int t = lua_gettop(L);
    if (!lua_istable(L, t))
        luaL_error(L, "policy key 'secrets': expected { NAME = { hosts = { \"HOST\", ... } } }");
    size_t n;
    const char **names = lcsb__lua_sorted_names(L, t, "secrets", &n);
    for (size_t i = 0; i < n; i++) {
        char hosts[LCSB__SECRET_HOSTS_MAX * (LCSB__HOST_MAX + 8) + LCSB__SECRET_HEADERS_MAX +
                   LCSB__SECRET_FROM_MAX + 32];
        char headers[LCSB__SECRET_HEADERS_MAX] = "", where[LCSB__SECRET_NAME_MAX + 16];
        snprintf(where, sizeof where, "secrets.%.*s", LCSB__SECRET_NAME_MAX - 1, names[i]);
        lua_getfield(L, t, names[i]);
        int entry = lua_gettop(L);
        if (!lua_istable(L, entry)) luaL_error(L, "policy key '%s': %s", where, shape);
        lua_pushnil(L);
        while (lua_next(L, entry)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            if (strcmp(k, "hosts") != 0 && strcmp(k, "headers") != 0 && strcmp(k, "from") != 0)
                luaL_error(L, "policy key '%s': %s", where, shape);
            lua_pop(L, 1);
        }
        if (lua_getfield(L, entry, "headers") != LUA_TNIL)
            join_list(L, where, "headers", headers, sizeof headers);
        lua_pop(L, 1);
        if (lua_getfield(L, entry, "hosts") == LUA_TNIL)
            luaL_error(L, "policy key '%s': %s", where, shape);
        join_list(L, where, "hosts", hosts,
                  sizeof hosts - LCSB__SECRET_HEADERS_MAX - LCSB__SECRET_FROM_MAX - 32);
        lua_pop(L, 1);
        size_t used = strlen(hosts);
        if (headers[0])
            used += (size_t)snprintf(hosts + used, sizeof hosts - used, " headers=%s", headers);
        int from_type = lua_getfield(L, entry, "from");
        if (from_type == LUA_TTABLE) {
            /* A command's words, as the entry holds them: a JSON array. */
            lcsb__buf argv = {0};
            lua_Integer words = luaL_len(L, -1);
            for (lua_Integer w = 1; w <= words; w++) {
                const char *word = lua_rawgeti(L, -1, w) == LUA_TSTRING ? lua_tostring(L, -1) : "";
                lcsb__buf_addf(&argv, "%s\"%s\"", w > 1 ? "," : "[", word);
                lua_pop(L, 1);
            }
            lcsb__buf_adds(&argv, "]");
            if (!argv.oom && words > 0)
                snprintf(hosts + used, sizeof hosts - used, " command=%s", argv.p);
            lcsb__buf_free(&argv);
            if (words <= 0)
                luaL_error(L, "policy key '%s.from': a command has one word or more", where);
        } else if (from_type != LUA_TNIL) {
            size_t len;
            const char *from = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
            if (!from || strlen(from) != len || len >= LCSB__SECRET_FROM_MAX)
                luaL_error(L,
                           "policy key '%s.from': expected the path of a file, or a command's "
                           "words ({ \"gh\", \"auth\", \"token\" })",
                           where);
            snprintf(hosts + used, sizeof hosts - used, " from=%s", from);
        }
        lcsb_error err;
        if (lcsb_policy_add_secret(p, names[i], hosts, &err)) lcsb__lua_raise(L, &err);
        lua_settop(L, t);
    }
}

/* POLICY's secrets as the spec gives them: { NAME = { hosts = {...} } }. */
void lcsb__lua_push_secrets(lua_State *L, const lcsb_policy *p) {
    lua_createtable(L, 0, (int)p->secrets.n);
    for (size_t i = 0; i < p->secrets.n; i++) {
        lcsb__secret s;
        char why[300];
        if (lcsb__secret_parse(p->secrets.v[i], NULL, &s, why, sizeof why) != 0) continue;
        lua_createtable(L, 0, 1);
        lua_createtable(L, (int)s.hosts_n, 0);
        for (size_t h = 0; h < s.hosts_n; h++) {
            char host[LCSB__DOMAIN_TEXT_MAX];
            lcsb__domain_format(&s.hosts[h], host, sizeof host);
            lua_pushstring(L, host);
            lua_rawseti(L, -2, (lua_Integer)h + 1);
        }
        lua_setfield(L, -2, "hosts");
        if (s.from[0]) {
            lua_pushstring(L, s.from);
            lua_setfield(L, -2, "from");
        }
        char words[LCSB__SECRET_FROM_MAX], *argv[32];
        size_t count = lcsb__secret_command(&s, words, sizeof words, argv, 32);
        if (count) {
            lua_createtable(L, (int)count, 0);
            for (size_t w = 0; w < count; w++) {
                lua_pushstring(L, argv[w]);
                lua_rawseti(L, -2, (lua_Integer)w + 1);
            }
            lua_setfield(L, -2, "from");
        }
        if (s.headers[0]) {
            lua_newtable(L);
            lua_Integer k = 0;
            for (const char *h = s.headers; *h;) {
                size_t len = strcspn(h, ",");
                lua_pushlstring(L, h, len);
                lua_rawseti(L, -2, ++k);
                h += len + (h[len] == ',');
            }
            lua_setfield(L, -2, "headers");
        }
        lua_setfield(L, -2, s.name);
    }
    lua_setfield(L, -2, "secrets");
}
