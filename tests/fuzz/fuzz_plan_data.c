/* libFuzzer target: a plan's data (lua_data.c), which a later run decodes
 * into Lua. A plan is the user's own file, checked by owner and digest
 * first, but the decoder still reads it as if anyone wrote it: any bytes
 * either decode to one whole value or are refused, and what decodes
 * encodes again (both ways) and decodes back. */
#include "lua_data.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lua_State *state(void) {
    static lua_State *L;
    if (!L && !(L = luaL_newstate())) abort();
    lua_settop(L, 0);
    return L;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    lua_State *L = state();
    if (!lcsb__lua_data_decode(L, (const char *)data, size)) {
        if (lua_gettop(L) != 0) abort(); /* refused: nothing pushed */
        return 0;
    }
    lcsb__buf again = {0}, sorted = {0};
    if (lcsb__lua_data_encode(L, 1, &again) || again.oom) abort();
    if (lcsb__lua_data_encode_sorted(L, 1, 0, &sorted) || sorted.oom) abort();
    /* The same value, whichever order its pairs were written in. */
    if (!lcsb__lua_data_decode(L, again.p, again.len)) abort();
    lcsb__buf twice = {0};
    if (lcsb__lua_data_encode_sorted(L, -1, 0, &twice) || twice.oom) abort();
    if (twice.len != sorted.len || memcmp(twice.p, sorted.p, sorted.len) != 0) abort();
    lcsb__buf_free(&again);
    lcsb__buf_free(&sorted);
    lcsb__buf_free(&twice);
    return 0;
}
