/* Layer 7: what stops a policy script (lua_stop.c): a signal, its time
 * budget, and the commands it waits for meanwhile. */
#ifndef LCSB_LUA_STOP_H
#define LCSB_LUA_STOP_H

#include "util.h"

#include <lua.h>
#include <signal.h>
#include <stdbool.h>

/* The signals lcsb_run relays, and SIGALRM, the budget's own. */
#define LCSB__STOP_SIGNALS_MAX 8

/* What lcsb__stop_arm replaced, for lcsb__stop_disarm to put back. */
typedef struct lcsb__stop {
    int signals[LCSB__STOP_SIGNALS_MAX];
    struct sigaction old[LCSB__STOP_SIGNALS_MAX];
    bool replaced[LCSB__STOP_SIGNALS_MAX];
    size_t n;
} lcsb__stop;

/* From now until lcsb__stop_disarm, a script running in L stops when a
 * signal lcsb_run relays arrives, or BUDGET seconds (0: never) have passed:
 * the handlers and the timer are installed, and the count hook set on L
 * before any code runs there (the threads it makes inherit it). One script
 * at a time per process. */
void lcsb__stop_arm(lcsb__stop *stop, lua_State *L, double budget);
/* The signal that asked the script to stop, or 0. */
int lcsb__stop_signal(void);
/* Did the script run past its budget? */
bool lcsb__stop_timed_out(void);
/* The hook off L, where Lua code runs for lcsb after the script. */
void lcsb__stop_unhook(lua_State *L);
/* The caller's handlers and timer back; a signal that asked the script to
 * stop is raised again, for them. Call it once the script's directories are
 * gone. */
void lcsb__stop_disarm(lcsb__stop *stop);

/* os.execute and io.popen in L, as Lua's own but with their shell known by
 * its pid: a stop reaches it, and waiting for it ends with it; and
 * coroutine.create and coroutine.wrap, whose coroutines a stop reaches. */
void lcsb__stop_open_commands(lua_State *L);

#endif
