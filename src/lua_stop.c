/* What stops a policy script: SIGINT, SIGTERM, SIGHUP or SIGQUIT (the
 * signals lcsb_run relays), or its time budget. A script that never returns
 * (a loop, a command that never ends) must not hold lcsb, nor, killed, leave
 * its private HOME and TMPDIR behind. While it runs:
 *
 * - lcsb's handlers note the signal and pass it on to the commands the
 *   script is waiting for (unless a terminal sent it to the whole process
 *   group, those commands included). They do not restart system calls: a
 *   script blocked in one gets EINTR and runs on to the hook;
 * - a count hook looks at what the handlers noted and at the monotonic
 *   clock, and raises once the script is to stop; from then on at every
 *   instruction, so that a pcall in a loop cannot swallow the stop. The
 *   handlers set it when they note a stop (lua_sethook may be called from
 *   one, as lua.c does): a hook running all along would make Lua call it
 *   at every instruction, a twentieth of a run's own time. A budget no
 *   timer of lcsb's watches, or a coroutine (make_coroutine), has it set
 *   from the start, looking every HOOK_COUNT instructions;
 * - a timer (SIGALRM) wakes a script blocked in a system call when the
 *   budget runs out and asks its commands to end (SIGTERM); GRACE_SECONDS
 *   after any stop it kills (SIGKILL) those still running;
 * - os.execute and io.popen are lcsb's own, with Lua's results: system(3)
 *   ignores SIGINT and SIGQUIT while it waits and does not say whom it waits
 *   for; these know their shell's pid and wait for nothing else.
 *
 * Then the caller's handlers and timer are back, and the signal is raised
 * again for them. Signal dispositions are process-wide: one script at a
 * time per process. The timer is taken only when the caller has none
 * running; without it, the budget still stops Lua code, through the hook. */
#include "lua_stop.h"

#include "capture.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <sched.h>
#include <spawn.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define HOOK_COUNT 10000
#define GRACE_SECONDS 2
#define COMMANDS_MAX 32
#define SHELL "/bin/sh"

/* Set by the handlers, read by the hook and the waits. */
static volatile sig_atomic_t stop_signal; /* the first signal that asked for a stop */
static volatile sig_atomic_t timed_out;
static volatile sig_atomic_t grace_started;
static volatile sig_atomic_t timer_ours;
/* The state the handlers set the hook on while a script runs, or NULL; and
 * how many handlers may be setting it now, which lcsb__stop_unhook waits
 * out: on another thread of a host, one could still be at it as the state
 * is closed. */
static _Atomic(lua_State *) hook_target;
static atomic_int hooking;
/* The shells os.execute and io.popen started and nobody reaped yet. */
static volatile sig_atomic_t commands[COMMANDS_MAX];
/* Set before the handlers are installed, constant while they are. */
static bool has_deadline;
static struct timespec deadline;

/* ---- the handlers ---- */

static void tell_commands(int sig) {
    for (size_t i = 0; i < COMMANDS_MAX; i++)
        if (commands[i] > 0) kill((pid_t)commands[i], sig);
}

static void start_grace(void) {
    if (timer_ours && !grace_started) {
        grace_started = 1;
        alarm(GRACE_SECONDS);
    }
}

static void hook(lua_State *L, lua_Debug *ar);

static void on_signal(int sig, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    atomic_fetch_add(&hooking, 1);
    lua_State *L = atomic_load(&hook_target);
    if (sig == SIGALRM && grace_started) {
        tell_commands(SIGKILL);
    } else if (sig == SIGALRM) {
        timed_out = 1;
        tell_commands(SIGTERM);
        start_grace();
    } else {
        if (!stop_signal) stop_signal = sig;
        /* A terminal's ^C already reached the whole foreground process
         * group; its hangup, only the session's leader, which lcsb may be. */
        if (!info || info->si_code != SI_KERNEL || sig == SIGHUP) tell_commands(sig);
        start_grace();
    }
    if (L) lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    atomic_fetch_sub(&hooking, 1);
    errno = saved;
}

/* ---- the hook ---- */

static bool past_deadline(void) {
    struct timespec now;
    if (!has_deadline || clock_gettime(CLOCK_MONOTONIC, &now) != 0) return false;
    return now.tv_sec > deadline.tv_sec ||
           (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

/* Is the script to stop? Notes a budget run out. */
static bool asked_to_stop(void) {
    if (!stop_signal && !timed_out && past_deadline()) timed_out = 1;
    return stop_signal || timed_out;
}

/* Raise the stop. What is raised matters little: the runner reports the
 * stop from what the handlers noted, whatever the script made of the error
 * on its way out. */
static int raise_stop(lua_State *L) {
    int sig = stop_signal;
    const char *name = sig ? sigabbrev_np(sig) : NULL;
    if (sig) return luaL_error(L, "the policy script was interrupted (SIG%s)", name ? name : "?");
    return luaL_error(L, "the policy script ran past its time budget");
}

static void hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    /* A handler that read the target just before lcsb__stop_unhook may set
     * the hook just after it: the script is over, and it takes itself off. */
    if (!atomic_load(&hook_target)) {
        lua_sethook(L, NULL, 0, 0);
        return;
    }
    if (!asked_to_stop()) return;
    /* From here on every instruction raises. */
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    raise_stop(L);
}

/* coroutine.create and coroutine.wrap while a script runs. A coroutine
 * takes its hook from the thread that makes it, and a handler sets the hook
 * on the main thread only, to which a loop inside a coroutine never returns:
 * the first coroutine made puts the clock-asking hook on its maker, and
 * every coroutine made after inherits it, as when that hook ran all along.
 * A thread with a hook already (a stop raising) keeps it. */
static int make_coroutine(lua_State *L) {
    if (atomic_load(&hook_target) && !lua_gethook(L))
        lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_COUNT);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static void wrap_coroutines(lua_State *L) {
    static const char *const makers[] = {"create", "wrap"};
    if (lua_getglobal(L, "coroutine") == LUA_TTABLE) {
        for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
            if (lua_getfield(L, -1, makers[i]) == LUA_TFUNCTION) {
                lua_pushcclosure(L, make_coroutine, 1);
                lua_setfield(L, -2, makers[i]);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    lua_pop(L, 1);
}

/* ---- arming ---- */

void lcsb__stop_arm(lcsb__stop *stop, lua_State *L, double budget) {
    memset(stop, 0, sizeof *stop);
    stop_signal = timed_out = grace_started = 0;
    has_deadline = budget > 0;
    if (has_deadline) {
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        double whole = (double)(time_t)budget;
        deadline.tv_sec += (time_t)budget;
        deadline.tv_nsec += (long)((budget - whole) * 1e9);
        if (deadline.tv_nsec >= 1000000000L) deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
    }
    struct itimerval running;
    timer_ours = getitimer(ITIMER_REAL, &running) == 0 && !timerisset(&running.it_value);
    atomic_store(&hook_target, L);

    size_t n;
    const int *relayed = lcsb_relayed_signals(&n);
    for (size_t i = 0; i < n && stop->n < LCSB__STOP_SIGNALS_MAX - 1; i++)
        stop->signals[stop->n++] = relayed[i];
    if (timer_ours) stop->signals[stop->n++] = SIGALRM;
    /* A signal the caller ignores (nohup's SIGHUP) stays ignored: each
     * disposition read before any is set, since one replaced and put back
     * could reach the handler meanwhile from a thread of the host's. */
    for (size_t i = 0; i < stop->n; i++) {
        struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};
        sigemptyset(&sa.sa_mask);
        if (sigaction(stop->signals[i], NULL, &stop->old[i]) != 0) continue;
        if (stop->signals[i] != SIGALRM && lcsb__ignores(&stop->old[i])) continue;
        stop->replaced[i] = sigaction(stop->signals[i], &sa, NULL) == 0;
    }
    sigset_t was;
    pthread_sigmask(SIG_SETMASK, NULL, &was);
    bool alarm_set = false;
    if (timer_ours && has_deadline) {
        struct itimerval t = {{0, 0}, {(time_t)budget, 0}};
        t.it_value.tv_usec = (suseconds_t)((budget - (double)(time_t)budget) * 1e6);
        if (!timerisset(&t.it_value)) t.it_value.tv_usec = 1;
        alarm_set = setitimer(ITIMER_REAL, &t, NULL) == 0;
    }
    /* A budget no SIGALRM of lcsb's will tell (none set, or this thread
     * blocks it): the hook asks the clock. */
    if (sigismember(&was, SIGALRM)) alarm_set = false;
    if (has_deadline && !alarm_set) lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_COUNT);
}

int lcsb__stop_signal(void) { return stop_signal; }

bool lcsb__stop_timed_out(void) { return timed_out; }

void lcsb__stop_unhook(lua_State *L) {
    atomic_store(&hook_target, NULL);
    /* A handler interrupting this thread runs to its end before the loop
     * goes on; one on another thread that read the state before the store
     * is waited for. */
    while (atomic_load(&hooking)) sched_yield();
    lua_sethook(L, NULL, 0, 0);
}

void lcsb__stop_disarm(lcsb__stop *stop) {
    if (timer_ours) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
    for (size_t i = 0; i < stop->n; i++)
        if (stop->replaced[i]) sigaction(stop->signals[i], &stop->old[i], NULL);
    int sig = stop_signal;
    stop_signal = timed_out = grace_started = timer_ours = 0;
    has_deadline = false;
    if (sig) raise(sig);
}

/* ---- the commands a script runs ---- */

static void block_stops(sigset_t *old) {
    sigset_t stops;
    size_t n;
    const int *relayed = lcsb_relayed_signals(&n);
    sigemptyset(&stops);
    for (size_t i = 0; i < n; i++) sigaddset(&stops, relayed[i]);
    sigaddset(&stops, SIGALRM);
    sigprocmask(SIG_BLOCK, &stops, old);
}

/* Start `sh -c COMMAND`, with FD (when >= 0) as its descriptor ONTO, and
 * note its pid before any handler can look: a stop that comes in between is
 * held until then, and reaches it. 0 or an errno. */
static int spawn_shell(const char *command, int fd, int onto, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t old;
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    if (posix_spawn_file_actions_init(&actions)) return ENOMEM;
    if (posix_spawnattr_init(&attr)) {
        posix_spawn_file_actions_destroy(&actions);
        return ENOMEM;
    }
    block_stops(&old);
    size_t slot = 0;
    while (slot < COMMANDS_MAX && commands[slot] != 0) slot++;
    int rc = slot == COMMANDS_MAX ? EAGAIN : 0;
    /* The shell starts with the caller's mask, not the one held here. */
    if (!rc && (posix_spawnattr_setsigmask(&attr, &old) ||
                posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK) ||
                (fd >= 0 && posix_spawn_file_actions_adddup2(&actions, fd, onto))))
        rc = ENOMEM;
    if (!rc) lcsb__children_hold();
    if (!rc && (rc = posix_spawn(pid, SHELL, &actions, &attr, argv, environ)) != 0)
        lcsb__children_release();
    if (!rc) commands[slot] = *pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/* Wait for the shell PID to end, and reap it: *STATUS as waitpid gives it.
 * 0, or -1 with errno. Its pid is forgotten before it is reaped, so that no
 * handler signals a pid the system has given to someone else. */
static int wait_shell(pid_t pid, int *status) {
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    sigset_t old;
    block_stops(&old);
    for (size_t i = 0; i < COMMANDS_MAX; i++)
        if (commands[i] == pid) commands[i] = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    return lcsb__children_reap(pid, status) == pid ? 0 : -1;
}

/* os.execute([command]) -> true | fail, "exit" | "signal", code, as Lua's */
static int l_execute(lua_State *L) {
    const char *command = luaL_optstring(L, 1, NULL);
    if (!command) {
        lua_pushboolean(L, access(SHELL, X_OK) == 0);
        return 1;
    }
    if (asked_to_stop()) return raise_stop(L);
    pid_t pid;
    int status, rc = spawn_shell(command, -1, -1, &pid);
    if (rc) {
        errno = rc;
        return luaL_fileresult(L, 0, NULL);
    }
    if (wait_shell(pid, &status) != 0) return luaL_fileresult(L, 0, NULL);
    /* Ended by the stop, most likely: the script goes no further. */
    if (asked_to_stop()) return raise_stop(L);
    errno = 0;
    return luaL_execresult(L, status);
}

/* A file liolib reads and writes, whose closing waits for its shell. */
typedef struct command_stream {
    luaL_Stream stream; /* first: liolib sees a file */
    pid_t pid;
} command_stream;

static int close_command_stream(lua_State *L) {
    command_stream *c = (command_stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    int status;
    fclose(c->stream.f);
    if (wait_shell(c->pid, &status) != 0) return luaL_fileresult(L, 0, NULL);
    errno = 0;
    return luaL_execresult(L, status);
}

/* io.popen(command [, mode]) -> file | fail, message, errno, as Lua's */
static int l_popen(lua_State *L) {
    const char *command = luaL_checkstring(L, 1);
    const char *mode = luaL_optstring(L, 2, "r");
    luaL_argcheck(L, (mode[0] == 'r' || mode[0] == 'w') && mode[1] == '\0', 2, "invalid mode");
    if (asked_to_stop()) return raise_stop(L);
    /* Closed until it is whole, as liolib makes its files: an error on the
     * way leaves nothing for __gc to close. */
    command_stream *c = lua_newuserdatauv(L, sizeof *c, 0);
    c->stream.f = NULL;
    c->stream.closef = NULL;
    luaL_setmetatable(L, LUA_FILEHANDLE);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return luaL_fileresult(L, 0, command);
    bool reading = mode[0] == 'r';
    int mine = reading ? fds[0] : fds[1], theirs = reading ? fds[1] : fds[0];
    int rc = spawn_shell(command, theirs, reading ? STDOUT_FILENO : STDIN_FILENO, &c->pid);
    close(theirs);
    FILE *f = rc ? NULL : fdopen(mine, mode);
    if (!f) {
        int saved = rc ? rc : errno, status;
        close(mine);
        if (!rc) wait_shell(c->pid, &status);
        errno = saved;
        return luaL_fileresult(L, 0, command);
    }
    c->stream.f = f;
    c->stream.closef = close_command_stream;
    return 1;
}

void lcsb__stop_open_commands(lua_State *L) {
    lua_getglobal(L, "os");
    lua_pushcfunction(L, l_execute);
    lua_setfield(L, -2, "execute");
    lua_getglobal(L, "io");
    lua_pushcfunction(L, l_popen);
    lua_setfield(L, -2, "popen");
    lua_pop(L, 2);
    wrap_coroutines(L);
}
