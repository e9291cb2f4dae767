/* Layer 7: the network's keys of a Lua policy spec (lua_net.c), apart
 * from lua_policy.c's others: net = true | false | { domains, lan, connect,
 * bind } (an entry of domains a string, or a host with its grant's end and
 * rule), and secrets = { NAME = { hosts, headers } }. */
#ifndef LCSB_LUA_NET_H
#define LCSB_LUA_NET_H

#include "util.h"

#include <lua.h>

/* The value on top as the spec's net, into P (raised when misshapen). */
void lcsb__lua_policy_net(lua_State *L, lcsb_policy *p);
/* The table on top as the spec's secrets, into P, in the order of their
 * names (raised when misshapen). */
void lcsb__lua_policy_secrets(lua_State *L, lcsb_policy *p);
/* P's secrets as the spec gives them, set as "secrets" in the table on top. */
void lcsb__lua_push_secrets(lua_State *L, const lcsb_policy *p);

#endif
