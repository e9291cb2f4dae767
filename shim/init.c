/* The shim outside the pid namespace, and the init inside (init.h).
 *
 *     lcsb -> lcsb-exec (outside) -> init (pid 1) -> COMMAND -> ...
 *
 * Each dies with its parent (PR_SET_PDEATHSIG), and when the init exits the
 * kernel kills every process left in its namespace: nothing the command
 * starts outlives lcsb, however it forks, re-parents or hides.
 *
 * Signals travel down the chain: each one passes on what was sent to it
 * alone. A terminal's ^C reached the whole foreground process group, the
 * command included, and is not sent twice; one held in the init before the
 * command started, in a world made for it, starts none (run_command). The
 * command's exit status travels up: the init writes its wait status on a
 * pipe, and the outer shim exits with it, or dies of the same signal.
 *
 * The time limit and the grace period are the outer shim's: it is outside
 * the pid namespace, so the command cannot name it, slow it or stop it, and
 * killing the init ends every process in the namespace.
 *
 * When the command has exited and nothing else is left in the namespace,
 * the init says so with the status, and the outer shim exits at once: the
 * init's own exit tears the command's mount namespace down (its mounts put,
 * an RCU grace period waited for: some 0.1 ms), and nothing waits on that.
 * The init, still exiting, is then its caller's reaper's to reap (lcsb's CLI
 * is a subreaper and does); when the outer shim's parent is its pid
 * namespace's init, the reaper would be that parent itself, which may be a
 * program that never reaps what it did not start (a container's only
 * process), so there the outer shim waits, as it does where something is
 * left (then the init's exit is the kernel killing what is left) and where
 * a memory cgroup holds the command (it goes once its last process has). */
#define _GNU_SOURCE
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

static const int passed_on[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
/* The init writes the command's wait status here. */
static int status_fd = -1;

/* What the init writes, in one write. */
struct ended {
    int ws;    /* the command's wait status */
    int alone; /* nothing is left in the namespace but the init */
};

/* The signals the shim's processes wait for. One lcsb's caller ignored
 * (nohup's SIGHUP, a background job's INT and QUIT) came down the chain
 * ignored, and the command keeps it ignored, as an exec does: no process
 * here waits for it, so the kernel drops it as it comes (one blocked it
 * would hold, whatever its disposition). */
static void waited_signals(sigset_t *set) {
    /* Asked once, before the init is forked; neither process changes it. */
    static sigset_t waited;
    static bool known;
    struct sigaction sa;

    if (!known) {
        sigemptyset(&waited);
        for (size_t i = 0; i < sizeof passed_on / sizeof passed_on[0]; i++)
            if (sigaction(passed_on[i], NULL, &sa) != 0 || sa.sa_handler != SIG_IGN)
                sigaddset(&waited, passed_on[i]);
        sigaddset(&waited, SIGCHLD);
        known = true;
    }
    *set = waited;
}

/* Exit as the wait status WS says: with its code, or of its signal (without
 * a core file of our own; the command's, if any, is written). */
static void exit_as(int ws) {
    if (WIFSIGNALED(ws)) {
        int sig = WTERMSIG(ws);
        struct rlimit none = {0, 0};
        sigset_t only;
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigemptyset(&only);
        sigaddset(&only, sig);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 128);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool asks_to_stop(int sig) {
    return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

/* Kills the init, and with it the namespace, and says why once. */
static void end_all(pid_t init, char why, int report_fd, char *said) {
    kill(init, SIGKILL);
    if (*said == 0 && report_fd >= 0 && write(report_fd, &why, 1) == 1)
        *said = why;
}

/* Is INFO a terminal's stop held and passed on, marked, by the process
 * that may (FROM: to the outer shim, lcsb, its parent; to the init, the
 * outer shim, pid 0 from inside the namespace)? Anyone else's is plain. */
static bool marked(const siginfo_t *info, pid_t from) {
    return info->si_code == SI_QUEUE && info->si_value.sival_int == TERMINAL_STOP &&
           info->si_pid == from;
}

/* SIG, which came as INFO, passed on to the init: one sent to lcsb alone as
 * it is; a terminal's that lcsb held, or one held here from before the
 * init existed (FROM_BEFORE), marked; any other terminal's not at all (the
 * init got its own). Whether it starts a grace period, into *GRACE. */
static void pass_on(pid_t init, int sig, const siginfo_t *info, bool from_before, double *grace) {
    bool lcsb_held = marked(info, getppid());
    bool from_terminal = info->si_code == SI_KERNEL || lcsb_held;

    if (from_terminal && (from_before || lcsb_held))
        sigqueue(init, sig, (union sigval){.sival_int = TERMINAL_STOP});
    else if (!from_terminal)
        kill(init, sig);
    if (!*grace && asks_to_stop(sig) && (!from_terminal || sig == SIGHUP))
        *grace = now() + GRACE_SECONDS;
}

/* A grace period starts with TERM, INT, HUP or QUIT sent to lcsb (and
 * passed on here), or with the terminal's hangup; not with a ^C at the
 * terminal, which is the command's to handle (a REPL stops a computation). */
static void outer(pid_t init, int from_init, uint64_t time_limit, int report_fd,
                  struct cgroup *cg) {
    double deadline = time_limit ? now() + (double)time_limit : 0, grace = 0;
    char said = 0;
    sigset_t set;
    siginfo_t info;
    int ws = 0;
    struct ended ended;
    /* A memory cgroup is removed, and what the kernel killed for it said,
     * only once the init, the last of its processes, is gone. */
    bool told = false, reaped_above = getppid() != 1 && cg->kind == CGROUP_NONE;

    waited_signals(&set);
    /* What came while this shim made the init came before the init
     * existed: a terminal's reached no one inside. */
    for (size_t i = 0; i < sizeof passed_on / sizeof passed_on[0]; i++) {
        sigset_t one;
        struct timespec zero = {0, 0};
        if (!sigismember(&set, passed_on[i]))
            continue;
        sigemptyset(&one);
        sigaddset(&one, passed_on[i]);
        if (sigtimedwait(&one, &info, &zero) == passed_on[i])
            pass_on(init, passed_on[i], &info, true, &grace);
    }
    /* FROM_INIT raises SIGIO when the init writes (start_init). */
    sigaddset(&set, SIGIO);
    for (;;) {
        double next = deadline && (!grace || deadline < grace) ? deadline : grace;
        struct timespec wait, *timeout = NULL;
        if (next) {
            double left = next - now();
            if (left < 0)
                left = 0;
            wait.tv_sec = (time_t)left;
            wait.tv_nsec = (long)((left - (double)wait.tv_sec) * 1e9);
            timeout = &wait;
        }
        int sig = sigtimedwait(&set, &info, timeout);
        if (deadline && now() >= deadline) {
            end_all(init, REPORT_TIME_LIMIT, report_fd, &said);
            deadline = 0;
        }
        if (grace && now() >= grace) {
            end_all(init, REPORT_GRACE_OVER, report_fd, &said);
            grace = 0;
        }
        if ((sig == SIGIO || sig == SIGCHLD) && !told)
            told = read(from_init, &ended, sizeof ended) == (ssize_t)sizeof ended;
        if (told && ended.alone && reaped_above)
            exit_as(ended.ws);
        if (sig == SIGCHLD) {
            pid_t got = waitpid(init, &ws, WNOHANG);
            if (got == init)
                break;
        } else if (sig > 0 && sig != SIGIO) {
            pass_on(init, sig, &info, false, &grace);
        }
    }
    /* Every process of the command is gone with the init: what the kernel
     * killed for the memory limit is said, and the cgroup goes. */
    if (cgroup_out_of_memory(cg) && report_fd >= 0)
        (void)!write(report_fd, (char[]){REPORT_OUT_OF_MEMORY}, 1);
    cgroup_remove(cg);
    /* No status: the init failed to set up (97, said already) or was killed. */
    if (!told)
        told = read(from_init, &ended, sizeof ended) == (ssize_t)sizeof ended;
    exit_as(told ? ended.ws : ws);
}

void hold_signals(sigset_t *entry) {
    sigset_t set;

    waited_signals(&set);
    sigaddset(&set, SIGIO);
    /* It fails only for a set that is not one. */
    sigprocmask(SIG_BLOCK, &set, entry);
}

void release_signals(const sigset_t *entry, int report_fd) {
    sigset_t pending;

    if (report_fd >= 0 && sigpending(&pending) == 0)
        for (size_t i = 0; i < sizeof passed_on / sizeof passed_on[0]; i++)
            /* One the shim came with blocked stays so for the command. */
            if (sigismember(&pending, passed_on[i]) && !sigismember(entry, passed_on[i])) {
                (void)!write(report_fd, (char[]){REPORT_INTERRUPTED}, 1);
                break;
            }
    sigprocmask(SIG_SETMASK, entry, NULL);
}

int start_init(uint64_t time_limit, int report_fd, struct cgroup *cg) {
    int status[2], alive[2];
    pid_t pid;

    /* Started with SIGCHLD ignored, the kernel would reap the init and the
     * command itself and send no SIGCHLD, which both wait for: it is the
     * default here, and the command's (whether an exec keeps it ignored,
     * POSIX leaves to the system). */
    signal(SIGCHLD, SIG_DFL);
    if (pipe2(status, O_CLOEXEC) != 0 || pipe2(alive, O_CLOEXEC) != 0)
        return fail("make a pipe: %s", strerror(errno));
    /* The status wakes the shim outside as it comes (SIGIO), and is read
     * without waiting. Set before the init exists, so none comes unseen. */
    if (fcntl(status[0], F_SETOWN, getpid()) != 0 ||
        fcntl(status[0], F_SETFL, O_ASYNC | O_NONBLOCK) != 0)
        return fail("watch the init's pipe: %s", strerror(errno));
    pid = fork();
    if (pid < 0)
        return fail("start the init: %s", strerror(errno));
    if (pid > 0) {
        close(status[1]);
        close(alive[0]);
        outer(pid, status[0], time_limit, report_fd, cg);
    }
    /* First, so that everything the init and the command bring in is the
     * cgroup's to hold. */
    if (cgroup_join(cg) != 0)
        return -1;
    close(status[0]);
    close(alive[1]);
    status_fd = status[1];
    /* The command is forked from here and shares its uid: dumpable, the
     * init could be traced, and with it the parent-death signal, the time
     * limit and the grace kill taken away. Not dumpable, its memory, its
     * descriptors and /proc/1 are out of the command's reach (the init's
     * memory belongs to the host's user namespace, where the command has
     * no capability). */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return fail("keep the init from being traced: %s", strerror(errno));
    /* Its parent's pid is 0 from inside the namespace; whether the parent is
     * still there shows in the pipe it holds open. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        return fail("ask to die with lcsb: %s", strerror(errno));
    struct pollfd p = {.fd = alive[0], .events = POLLIN};
    if (poll(&p, 1, 0) != 0)
        return fail("run the command: lcsb exited before it started");
    close(alive[0]);
    return 0;
}

/* Did the command fill its private tmp? A run that hit the limit may end
 * with any error of the command's own; the trailer names the limit. */
static void report_tmp(const struct limits *limits, int report_fd) {
    struct statvfs vfs;
    char full = REPORT_TMP_FULL;

    if (limits->tmp && report_fd >= 0 && statvfs(limits->tmpdir, &vfs) == 0 &&
        vfs.f_bavail == 0)
        (void)!write(report_fd, &full, 1);
}

/* Is the init the last process in its namespace? Every process the command
 * left comes to it (a subreaper of the command's own is one too), so none
 * is left when it has no child; reaping the zombies on the way. */
static bool alone(void) {
    pid_t got;

    while ((got = waitpid(-1, NULL, WNOHANG)) > 0) {
    }
    return got < 0 && errno == ECHILD;
}

/* The next signal the init waits for, its si_code into *CODE; meanwhile,
 * every exec W (NULL: none) is told of is seen and let go on. Under
 * watch, signals are read from SIGNALS (a signalfd), beside the listener. */
static int next_signal(const sigset_t *set, struct exec_watch *w, int signals, int *code,
                       bool *terminal_stop) {
    siginfo_t info;
    struct signalfd_siginfo si;

    if (w == NULL) {
        int sig = sigwaitinfo(set, &info);
        *code = info.si_code;
        *terminal_stop = marked(&info, 0);
        return sig;
    }
    for (;;) {
        struct pollfd p[2] = {{.fd = signals, .events = POLLIN},
                              {.fd = w->listener, .events = POLLIN}};
        if (poll(p, 2, -1) < 0)
            continue;
        if (p[1].revents & POLLIN)
            see_exec(w);
        /* Not while the init is a process the filter holds; but a listener
         * that can say nothing more must not wake the loop for ever. */
        else if (p[1].revents != 0)
            w->listener = -1;
        if ((p[0].revents & POLLIN) && read(signals, &si, sizeof si) == (ssize_t)sizeof si) {
            *code = si.ssi_code;
            *terminal_stop =
                si.ssi_code == SI_QUEUE && si.ssi_int == TERMINAL_STOP && si.ssi_pid == 0;
            return (int)si.ssi_signo;
        }
    }
}

/* A signal asking to stop that is held here, or 0. */
static int stop_held(void) {
    sigset_t held;

    if (sigpending(&held) != 0)
        return 0;
    for (size_t i = 0; i < sizeof passed_on / sizeof passed_on[0]; i++)
        if (asks_to_stop(passed_on[i]) && sigismember(&held, passed_on[i]))
            return passed_on[i];
    return 0;
}

/* The command's process, running IN_COMMAND(CTX) with OLD_MASK restored;
 * in it, this never returns. It shares the init's memory until its exec,
 * and the init waits meanwhile: no page table copied for a process that is
 * about to exec, and none of the faults that copying on write costs both
 * after. But an init that watches execs (W) must answer the command's own
 * first: it cannot wait for it, and forks; so does one whose command waits
 * for its word (GO, a pipe; -1: none), every signal still held, to exec, or
 * to end when none comes. */
static pid_t start_command(const sigset_t *old_mask, const struct exec_watch *w, int signals,
                           const int go[2], int (*in_command)(void *ctx), void *ctx) {
    pid_t command = w != NULL || go[0] >= 0 ? fork() : vfork();
    char word;

    if (command == 0) {
        close(status_fd);
        if (w != NULL) {
            close(w->listener);
            close(signals);
        }
        if (go[0] >= 0) {
            close(go[1]);
            if (read(go[0], &word, 1) != 1)
                _exit(0);
            close(go[0]);
        }
        sigprocmask(SIG_SETMASK, old_mask, NULL);
        _exit(in_command(ctx));
    }
    return command;
}

int run_command(const sigset_t *old_mask, const struct limits *limits, int report_fd,
                struct exec_watch *watch, bool for_it, int (*in_command)(void *ctx), void *ctx) {
    sigset_t set;
    int signals = -1, code, asked, go[2] = {-1, -1};
    bool terminal_stop;
    pid_t command;

    waited_signals(&set);
    if (watch != NULL && (signals = signalfd(-1, &set, SFD_CLOEXEC)) < 0)
        return fail("watch for signals: %s", strerror(errno));
    /* A terminal's ^C reaches its whole foreground group, this init
     * included, where it is held; lcsb passes on to it what came to lcsb
     * alone. One held here before the command exists reached no command:
     * the command, made and waiting, starts only once the init has looked,
     * and one that comes after that reaches the command itself (held in it
     * until its exec, and then its end). Not in a world made for a later
     * command, where one held may be for the command before. */
    if (for_it && pipe2(go, O_CLOEXEC) != 0)
        return fail("start the command: %s", strerror(errno));
    command = start_command(old_mask, watch, signals, go, in_command, ctx);
    if (command < 0)
        return fail("start the command: %s", strerror(errno));
    if (go[0] >= 0) {
        close(go[0]);
        if ((asked = stop_held()) != 0) {
            struct ended ended = {.ws = asked, .alone = 1};
            kill(command, SIGKILL);
            if (report_fd >= 0)
                (void)!write(report_fd, (char[]){REPORT_INTERRUPTED}, 1);
            (void)!write(status_fd, &ended, sizeof ended);
            _exit(0);
        }
        (void)!write(go[1], "g", 1);
        close(go[1]);
    }
    for (;;) {
        int sig = next_signal(&set, watch, signals, &code, &terminal_stop);
        if (sig == SIGCHLD) {
            int ws;
            pid_t got;
            while ((got = waitpid(-1, &ws, WNOHANG)) > 0) {
                if (got == command) {
                    struct ended ended = {.ws = ws, .alone = alone()};
                    report_tmp(limits, report_fd);
                    (void)!write(status_fd, &ended, sizeof ended);
                    _exit(0);
                }
            }
        } else if (sig > 0 && code != SI_KERNEL && !terminal_stop) {
            kill(command, sig);
        }
    }
}
