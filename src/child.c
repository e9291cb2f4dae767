/* A run's child started and waited for: its descriptors, its environment,
 * the signals relayed to it, the stderr relay and the refusals recorded
 * while it runs (child.h). */
#include "child.h"

#include "backend.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The environment variables naming the descriptors on which the shim
 * reports a setup failure, hands over the proxy's listening socket, and
 * waits for a command made ahead of (docs/wire-format.md). */
#define LCSB__REPORT_ENV "LCSB_EXEC_REPORT_FD"
#define LCSB__PROXY_ENV "LCSB_EXEC_PROXY_FD"
#define LCSB__COMMAND_ENV "LCSB_EXEC_COMMAND_FD"
/* And the recorder's pipe and library, which the shim hands the command. */
#define LCSB__RECORD_ENV "LCSB_EXEC_RECORD_FD"
#define LCSB__RECORDER_ENV "LCSB_EXEC_RECORDER"
/* The recorder sits beside the shim, in a build tree as in an install. */
#define LCSB__RECORDER_NAME "liblcsb-record.so"
/* The value a terminal's stop carries when lcsb passes on one it held
 * (sigqueue): the shim gives it to the init, which counts it before its
 * command starts and never passes it to one that runs (wire-format.md). */
#define LCSB__TERMINAL_STOP 0x6c637362

static const int relayed_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define RELAYED (sizeof relayed_signals / sizeof relayed_signals[0])

const int *lcsb_relayed_signals(size_t *count) {
    *count = RELAYED;
    return relayed_signals;
}

/* The child being waited for; read by the signal handler. One run at a time
 * per process: signal dispositions are process-wide anyway. */
static volatile sig_atomic_t running_child;
/* The last signal relayed to it. */
static volatile sig_atomic_t relayed_last;

static void relay(int sig, siginfo_t *info, void *context) {
    (void)context;
    relayed_last = sig;
    /* A terminal's ^C already reached the whole foreground process group,
     * the command included; only relay what was sent to lcsb alone. Its
     * hangup reaches only the session's leader, which lcsb may be (a tmux
     * pane's command, ssh -t): passed on. */
    if (info && info->si_code == SI_KERNEL && sig != SIGHUP) return;
    if (running_child > 0) kill((pid_t)running_child, sig);
}

/* Is SIG ignored here? One lcsb's caller ignored (nohup's SIGHUP, a
 * background job's INT and QUIT) stays so for lcsb and for the command, as
 * an exec keeps it: it is neither relayed nor put back to its default. */
static bool ignored_now(int sig) {
    struct sigaction sa;
    return sigaction(sig, NULL, &sa) == 0 && lcsb__ignores(&sa);
}

static sigset_t relayed_set(void) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < RELAYED; i++) sigaddset(&set, relayed_signals[i]);
    return set;
}

/* Held until the child's pid is known (lcsb__relay_to), so none is lost. */
void lcsb__relay_begin(lcsb__relay *r) {
    sigset_t relayed = relayed_set();
    sigprocmask(SIG_BLOCK, &relayed, &r->old_mask);
    relayed_last = 0;
    for (size_t i = 0; i < RELAYED; i++) {
        struct sigaction sa = {.sa_sigaction = relay, .sa_flags = SA_SIGINFO | SA_RESTART};
        sigemptyset(&sa.sa_mask);
        /* Read first: replaced and put back, an ignored one could reach the
         * handler from a thread of the host's that does not hold it. */
        sigaction(relayed_signals[i], NULL, &r->old[i]);
        if (!lcsb__ignores(&r->old[i])) sigaction(relayed_signals[i], &sa, NULL);
    }
}

/* Each held relayed signal taken (unblocking it later delivers nothing),
 * and passed to PID when there is one: one sent to lcsb alone as it came,
 * a terminal's marked as such; the last, or 0. */
static int take_held(pid_t pid) {
    sigset_t pending;
    int last = 0;
    if (sigpending(&pending) != 0) return 0;
    for (size_t i = 0; i < RELAYED; i++) {
        /* Held while ignored (the kernel queues a blocked one whatever its
         * disposition): dropped as it is unblocked. */
        if (!sigismember(&pending, relayed_signals[i]) || ignored_now(relayed_signals[i])) continue;
        sigset_t one;
        siginfo_t info;
        sigemptyset(&one);
        sigaddset(&one, relayed_signals[i]);
        struct timespec now = {0, 0};
        if (sigtimedwait(&one, &info, &now) != relayed_signals[i]) continue;
        last = relayed_signals[i];
        bool terminal = info.si_code == SI_KERNEL && last != SIGHUP;
        if (pid > 0 && !terminal) kill(pid, last);
        if (pid > 0 && terminal)
            sigqueue(pid, last, (union sigval){.sival_int = LCSB__TERMINAL_STOP});
    }
    return last;
}

int lcsb__relay_pending(void) { return take_held(0); }

/* Unblocked even if the caller held them. One that arrived before is
 * passed on now: a terminal's marked, since it may have come before the
 * shim's processes existed to get it, or after, when the command has its
 * own. (To no one when S was not spawned.) */
void lcsb__relay_to(const lcsb__spawned *s, lcsb__relay *r) {
    if (s && s->pid > 0) running_child = s->pid;
    int held = take_held(s && s->pid > 0 ? s->pid : 0);
    if (held) relayed_last = held;
    sigset_t unblocked = r->old_mask;
    for (size_t i = 0; i < RELAYED; i++) sigdelset(&unblocked, relayed_signals[i]);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);
}

void lcsb__relay_end(lcsb__relay *r) {
    sigset_t relayed = relayed_set();
    sigprocmask(SIG_BLOCK, &relayed, NULL);
    running_child = 0;
    r->relayed = relayed_last;
    sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
    for (size_t i = 0; i < RELAYED; i++) sigaction(relayed_signals[i], &r->old[i], NULL);
}

/* lcsb's own descriptors for the shim: its report pipe, the proxy's
 * channel, the recorder's pipe, the command's socket; -1 where none. */
#define SHIM_FDS 4

static void shim_fds(const lcsb__spawned *s, const lcsb__spawn_net *net, int out[SHIM_FDS]) {
    out[0] = s->report[1];
    out[1] = net ? net->channel : -1;
    out[2] = s->record[1];
    out[3] = s->command[1];
}

static const char *const shim_names[SHIM_FDS + 1] = {
    LCSB__REPORT_ENV, LCSB__PROXY_ENV, LCSB__RECORD_ENV, LCSB__COMMAND_ENV, LCSB__RECORDER_ENV};

/* The descriptors the child keeps above 2: the caller's, and lcsb's own
 * for the shim (EXTRA). */
static bool kept(const lcsb_run_options *opts, const int extra[SHIM_FDS], int fd) {
    for (size_t i = 0; i < opts->keep_fds_count; i++)
        if (opts->keep_fds[i] == fd) return true;
    for (int i = 0; i < SHIM_FDS; i++)
        if (fd == extra[i]) return true;
    return false;
}

/* Nothing lcsb or its host holds open (a policy script's files, a harness's
 * pipes) reaches the command but stdin, stdout, stderr and what the caller
 * passes on purpose. Closing a descriptor that is not open is no error. */
static int add_fd_actions(posix_spawn_file_actions_t *actions, const lcsb_run_options *opts,
                          const int extra[SHIM_FDS]) {
    int highest = 2;
    for (int i = 0; i < SHIM_FDS; i++)
        if (extra[i] > highest) highest = extra[i];
    for (size_t i = 0; i < opts->keep_fds_count; i++)
        if (opts->keep_fds[i] > highest) highest = opts->keep_fds[i];
    for (int fd = 3; fd < highest; fd++)
        if (!kept(opts, extra, fd) && posix_spawn_file_actions_addclose(actions, fd)) return -1;
    /* A dup2 onto itself clears close-on-exec. */
    for (size_t i = 0; i < opts->keep_fds_count; i++)
        if (posix_spawn_file_actions_adddup2(actions, opts->keep_fds[i], opts->keep_fds[i]))
            return -1;
    for (int i = 0; i < SHIM_FDS; i++)
        if (extra[i] > 2 && posix_spawn_file_actions_adddup2(actions, extra[i], extra[i]))
            return -1;
    return posix_spawn_file_actions_addclosefrom_np(actions, highest + 1);
}

/* Is ENTRY one of the variables lcsb tells the shim with? */
static bool names_shim_fd(const char *entry) {
    for (int i = 0; i < SHIM_FDS + 1; i++) {
        size_t len = strlen(shim_names[i]);
        if (strncmp(entry, shim_names[i], len) == 0 && entry[len] == '=') return true;
    }
    return false;
}

/* NAME=VALUE onto ENV at *K; false when out of memory. */
static bool tell(char **env, size_t *k, const char *name, const char *value) {
    size_t len = strlen(name) + strlen(value) + 2;
    char *entry = malloc(len);
    if (!entry) return false;
    snprintf(entry, len, "%s=%s", name, value);
    env[(*k)++] = entry;
    return true;
}

/* The command's environment: the seam's (lcsb_env_block: the allowlist
 * under a host mechanism, the caller's whole under a container's engine),
 * with none of the caller's variables that tell the shim something, nor
 * what NET withholds; ROOM entries more left free, *N the count. */
static int command_environ(const lcsb_backend *b, const lcsb_policy *policy,
                           const lcsb__spawn_net *net, size_t room, char ***out, size_t *n,
                           lcsb_error *err) {
    char **block = NULL;
    int rc = lcsb_env_block(b, policy, NULL, &block, err);
    if (rc) return rc;
    size_t all = 0, k = 0;
    while (block[all]) all++;
    char **env = calloc(all + room + 1, sizeof *env);
    if (!env) {
        lcsb_argv_free(block);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < all; i++)
        if (names_shim_fd(block[i]) || (net && net->withhold && net->withhold(net->ctx, block[i])))
            free(block[i]);
        else
            env[k++] = block[i];
    free(block);
    *out = env;
    *n = k;
    return 0;
}

/* What lcsb tells the shim, appended to S->env at *K: S's descriptors and
 * the recorder's library. */
static int tell_shim(lcsb__spawned *s, const lcsb__spawn_net *net, size_t k, lcsb_error *err) {
    int fds[SHIM_FDS];
    shim_fds(s, net, fds);
    bool told = true;
    for (int i = 0; i < SHIM_FDS; i++) {
        char number[16];
        snprintf(number, sizeof number, "%d", fds[i]);
        if (fds[i] >= 0) told = told && tell(s->env, &k, shim_names[i], number);
    }
    if (s->record[1] >= 0) told = told && tell(s->env, &k, LCSB__RECORDER_ENV, s->recorder);
    return told ? 0 : lcsb__fail(err, LCSB_ENOMEM, "out of memory");
}

/* The recorder beside SHIM (an absolute path) into S, when it is there. */
static bool find_recorder(const char *shim, lcsb__spawned *s) {
    const char *slash = strrchr(shim, '/');
    struct stat st;
    int n = slash ? snprintf(s->recorder, sizeof s->recorder, "%.*s/%s", (int)(slash - shim), shim,
                             LCSB__RECORDER_NAME)
                  : -1;
    return n > 0 && (size_t)n < sizeof s->recorder && stat(s->recorder, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* The recorder's pipe, for a run under SHIM (NULL: no mechanism that takes
 * one). Its write end never blocks: a record the pipe has no room for is
 * lost, and the command never waits on lcsb. */
static void open_record(const char *shim, lcsb__spawned *s) {
    if (!shim || !find_recorder(shim, s) || pipe2(s->record, O_CLOEXEC | O_NONBLOCK) != 0) {
        s->record[0] = s->record[1] = -1;
        s->recorder[0] = '\0';
        return;
    }
    (void)fcntl(s->record[0], F_SETPIPE_SZ, 1 << 20); /* a burst fits; the default if not */
}

/* S empty, with the report pipe when IS_MECHANISM: the shim says "setup
 * failed" on a pipe of its own, so that an exit status of 97, which the
 * command can give too, is never taken for that alone. */
static int open_report(lcsb__spawned *s, bool is_mechanism, lcsb_error *err) {
    memset(s, 0, sizeof *s);
    s->open = true;
    s->pidfd = -1;
    s->report[0] = s->report[1] = s->record[0] = s->record[1] = -1;
    s->command[0] = s->command[1] = -1;
    if (is_mechanism && pipe2(s->report, O_CLOEXEC) != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot make the shim's report pipe: %s",
                          strerror(errno));
    return 0;
}

/* The refusals read from S's record pipe, judged against POLICY (or what
 * OPTS judges by); none when it has no pipe. */
static void watch_refusals(lcsb__spawned *s, const lcsb_policy *policy,
                           const lcsb_run_options *opts) {
    if (s->record[0] >= 0) s->refusals = lcsb__refusals_new(opts->judge ? opts->judge : policy);
    if (s->refusals && s->captured) lcsb__capture_watch(&s->capture, s->record[0], s->refusals);
}

/* The resources one spawn needs: the report pipe, the recorder's pipe
 * under a SHIM that takes it, the stderr relay when it is asked for, and
 * the environment. */
int lcsb__spawn_open(lcsb__spawned *s, const lcsb_backend *b, const lcsb_policy *policy,
                     bool is_mechanism, const char *shim, const lcsb_run_options *opts,
                     const lcsb__spawn_net *net, lcsb_error *err) {
    int rc = open_report(s, is_mechanism, err);
    if (rc) return rc;
    open_record(shim, s);
    size_t k;
    if ((rc = command_environ(b, policy, net, SHIM_FDS + 1, &s->env, &k, err))) return rc;
    /* What the command was not given, no request the proxy reads may carry. */
    if (net && net->note_withheld && (rc = net->note_withheld(net->ctx, s->env, err)) != 0)
        return rc;
    if ((rc = tell_shim(s, net, k, err))) return rc;
    if (opts->capture_stderr || s->record[0] >= 0) {
        if ((rc = lcsb__capture_open(&s->capture, opts->capture_stderr, err))) return rc;
        s->captured = true;
    }
    watch_refusals(s, policy, opts);
    return 0;
}

/* Of /proc/self/status, the lines a child inherits, which a shim made
 * ahead would carry over from an earlier caller (and SigIgn, read apart). */
// clang-format off
static const char *const inherited[] = {
    "Umask:", "Uid:", "Gid:", "Groups:", "NoNewPrivs:", "Seccomp:", "Seccomp_filters:",
    "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "Cpus_allowed_list:",
    "Mems_allowed_list:", NULL};
// clang-format on

/* The signals a spawn sets back to their defaults: the relayed ones and
 * SIGPIPE, which lcsb handles or ignores for itself (SIGPIPE while it relays
 * stderr), but not one the caller ignores, which the command keeps ignored. */
static sigset_t spawn_resets(void) {
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < RELAYED; i++)
        if (!ignored_now(relayed_signals[i])) sigaddset(&set, relayed_signals[i]);
    if (!lcsb__capture_caller_ignores_pipe()) sigaddset(&set, SIGPIPE);
    return set;
}

/* What of this process's ignored signals a spawn puts back, as /proc's
 * masks write them (signal N at bit N-1): SIGPIPE, when lcsb ignores it
 * for itself; SIGCHLD, which lcsb holds at its default while it has a child
 * and the shim sets so (sys.h); a relayed signal it ignores is the
 * caller's. */
static unsigned long long reset_mask(void) {
    unsigned long long chld = 1ULL << (SIGCHLD - 1);
    return chld | (lcsb__capture_ignores_pipe_itself() ? 1ULL << (SIGPIPE - 1) : 0);
}

/* PATH (a file of /proc about this process) appended to OUT, as far as it
 * reads; only the lines starting with one of ONLY when ONLY is not NULL. */
static void add_proc_file(lcsb__buf *out, const char *path, const char *const *only) {
    char text[16384];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text) : -1;
    if (fd >= 0) close(fd);
    lcsb__buf_addf(out, "%s\n", path);
    for (char *line = text, *end; n > 0 && line < text + n; line = end + 1) {
        if (!(end = memchr(line, '\n', (size_t)(text + n - line)))) end = text + n - 1;
        bool wanted = !only;
        for (size_t i = 0; only && only[i]; i++)
            wanted = wanted || strncmp(line, only[i], strlen(only[i])) == 0;
        if (wanted) lcsb__buf_add(out, line, (size_t)(end - line) + 1);
        /* The signals it ignores, which an exec keeps ignored; not those the
         * spawn puts back (what lcsb ignores for itself). */
        if (only && strncmp(line, "SigIgn:", 7) == 0)
            lcsb__buf_addf(out, "SigIgn: %llx\n", strtoull(line + 7, NULL, 16) & ~reset_mask());
    }
}

/* What a child of this process inherits from it and the world it is made
 * in: its status's lines above (its credentials, umask, capabilities,
 * no_new_privs, seccomp, ignored signals); and, WHOLE, its limits, its
 * namespaces, its cgroup, its security label, its scheduling priority and
 * personality. Landlock has no way to be read back; a process that
 * restricts itself sets NoNewPrivs or holds no capability to begin with,
 * which is seen. */
static void host_state(lcsb__buf *out, bool whole) {
    char path[64], link[256];
    static const char *const files[] = {"/proc/self/status", "/proc/self/limits",
                                        "/proc/self/cgroup", "/proc/self/attr/current"};
    for (size_t i = 0; i < (whole ? sizeof files / sizeof *files : 1); i++)
        add_proc_file(out, files[i], i == 0 ? inherited : NULL);
    if (!whole) return;
    static const char *const ns[] = {
        "cgroup", "ipc", "mnt", "net", "pid_for_children", "time_for_children", "user", "uts"};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        snprintf(path, sizeof path, "/proc/self/ns/%s", ns[i]);
        ssize_t n = readlink(path, link, sizeof link - 1);
        lcsb__buf_addf(out, "%s %.*s\n", ns[i], n > 0 ? (int)n : 0, link);
    }
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    lcsb__buf_addf(out, "nice %d personality %d\n", nice, personality(0xffffffff));
}

bool lcsb__ahead_fits(lcsb__spawned *s) {
    struct pollfd p = {.fd = s->pidfd, .events = POLLIN};
    /* Ended (or reaped by the caller): the descriptor says, whoever took
     * its pid since. */
    if (s->pid <= 0 || s->pidfd < 0 || poll(&p, 1, 0) != 0) return false;
    lcsb__buf now = {0};
    host_state(&now, s->whole_host);
    bool same = !now.oom && !s->host.oom && now.len == s->host.len &&
                memcmp(now.p, s->host.p, now.len) == 0;
    lcsb__buf_free(&now);
    return same;
}

int lcsb__ahead_open(lcsb__spawned *s, const char *shim, const lcsb_run_options *opts,
                     bool whole_host, lcsb_error *err) {
    int rc = open_report(s, true, err);
    if (rc) return rc;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s->command) != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot make the shim's command socket: %s",
                          strerror(errno));
    s->waiting = true;
    if (opts->record_refusals) open_record(shim, s);
    if (!(s->env = calloc(SHIM_FDS + 2, sizeof *s->env)))
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if ((rc = tell_shim(s, NULL, 0, err))) return rc;
    if ((rc = lcsb__capture_make(&s->capture, true, err))) return rc;
    s->captured = true;
    s->whole_host = whole_host;
    s->for_it = !whole_host;
    host_state(&s->host, whole_host);
    return s->host.oom ? lcsb__fail(err, LCSB_ENOMEM, "out of memory") : 0;
}

/* ARGV and ENV handed to the shim made ahead (handover.c in the shim): the
 * caller's stdin and stdout, then how many words the command and its
 * environment have, then the words, each with its NUL, then the end. */
static int hand_over(int sock, bool for_it, const char *const *argv, char *const *env) {
    static const int fds[2] = {STDIN_FILENO, STDOUT_FILENO};
    ssize_t n = lcsb__send_fds(sock, for_it ? 'N' : 'C', fds, 2) == 0 ? 1 : -1;
    size_t words = 0, vars = 0;
    while (argv[words]) words++;
    while (env[vars]) vars++;
    /* The rest in one buffer, sent in as few calls as the socket takes. */
    lcsb__buf b = {0};
    lcsb__buf_addf(&b, "%zu %zu", words, vars);
    lcsb__buf_add(&b, "", 1);
    for (size_t i = 0; i < words; i++) lcsb__buf_add(&b, argv[i], strlen(argv[i]) + 1);
    for (size_t i = 0; i < vars; i++) lcsb__buf_add(&b, env[i], strlen(env[i]) + 1);
    if (b.oom) n = -1;
    for (size_t at = 0; n > 0 && at < b.len; at += (size_t)n)
        while ((n = send(sock, b.p + at, b.len - at, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
        }
    if (n > 0) n = 1;
    lcsb__buf_free(&b);
    return n == 1 ? 0 : -1;
}

int lcsb__ahead_take(lcsb__spawned *s, const lcsb_backend *b, const lcsb_policy *policy,
                     const lcsb_run_options *opts, const char *const *argv, lcsb_error *err) {
    char **env = NULL;
    size_t k;
    int rc = command_environ(b, policy, NULL, 0, &env, &k, err);
    if (rc) return rc;
    watch_refusals(s, policy, opts);
    lcsb__capture_listen(&s->capture);
    /* A shim that ended before it took its command (a failed setup) says
     * why in its report and on stderr, which the wait relays. */
    s->waiting = false;
    rc = hand_over(s->command[0], s->for_it, argv, env) == 0 ? 0 : 1;
    close(s->command[0]);
    s->command[0] = -1;
    lcsb_argv_free(env);
    return rc;
}

/* The child's start: the relayed signals and SIGPIPE as the caller has
 * them, and nothing blocked; stderr onto the capture's pipe, stdin and
 * stdout the null device when the command comes later, CWD, and the
 * descriptors it keeps (EXTRA, the shim's). Both destroyed on failure. */
static int spawn_prepare(posix_spawnattr_t *attr, posix_spawn_file_actions_t *actions,
                         const lcsb__spawned *s, const char *cwd, const lcsb_run_options *opts,
                         const int *extra) {
    sigset_t none, defaults = spawn_resets();
    sigemptyset(&none);
    if (posix_spawnattr_init(attr)) return ENOMEM;
    if (posix_spawn_file_actions_init(actions)) {
        posix_spawnattr_destroy(attr);
        return ENOMEM;
    }
    posix_spawnattr_setsigdefault(attr, &defaults);
    posix_spawnattr_setsigmask(attr, &none);
    posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    /* A shim made ahead holds none of the caller's standard descriptors
     * open: the command's come with it (handover.c in the shim). */
    bool later = s->command[1] >= 0;
    /* stderr onto the pipe before everything else above 2 is closed. */
    if ((s->captured && s->capture.out[1] >= 0 &&
         posix_spawn_file_actions_adddup2(actions, s->capture.out[1], STDERR_FILENO)) ||
        (later &&
         (posix_spawn_file_actions_addopen(actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0) ||
          posix_spawn_file_actions_addopen(actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0))) ||
        (cwd && *cwd && posix_spawn_file_actions_addchdir_np(actions, cwd)) ||
        add_fd_actions(actions, opts, extra)) {
        posix_spawn_file_actions_destroy(actions);
        posix_spawnattr_destroy(attr);
        return ENOMEM;
    }
    return 0;
}

int lcsb__spawn_start(lcsb__spawned *s, const char *const *final, const char *cwd,
                      const lcsb_run_options *opts, const lcsb__spawn_net *net) {
    int extra[SHIM_FDS];
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    shim_fds(s, net, extra);
    int rc = spawn_prepare(&attr, &actions, s, cwd, opts, extra);
    if (rc) return rc;
    if (!s->holds_chld) lcsb__children_hold();
    s->holds_chld = true;
    pid_t pid;
    rc = posix_spawnp(&pid, final[0], &actions, &attr, (char *const *) final, s->env);
    if (rc == 0) s->pid = pid;
    /* A shim made ahead waits while the caller does what it likes, reaping
     * included: it is known from then on by a descriptor, not its pid. */
    if (rc == 0 && s->command[1] >= 0) s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    /* Only the child writes into these now. */
    for (int *end = s->report + 1; end; end = end == s->report + 1 ? s->record + 1 : NULL) {
        if (*end >= 0) close(*end);
        *end = -1;
    }
    if (s->command[1] >= 0) close(s->command[1]);
    s->command[1] = -1;
    if (s->captured) lcsb__capture_spawned(&s->capture);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* What the shim said on its report pipe (docs/wire-format.md): a failed
 * setup, why its init ended every process of the command, or that it saw
 * every exec. */
static void reported(const char *said, size_t n, lcsb_run_result *result) {
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        char text[128];
        if (said[i] == 'F' && result->status == LCSB_EXIT_SETUP) result->setup_failed = true;
        if (said[i] == 'X') result->attestation.execs_seen = true;
        if (said[i] == 'E' &&
            (result->status == LCSB_EXIT_NOEXEC || result->status == LCSB_EXIT_NOTFOUND))
            result->not_executed = true;
        if (said[i] == 'T')
            why = "the time limit (limits.time) was reached: every process of the command was "
                  "killed";
        if (said[i] == 'G') {
            snprintf(text, sizeof text,
                     "the command did not stop within %d s of being asked to: every process of "
                     "it was killed",
                     LCSB_GRACE_SECONDS);
            why = text;
        }
        if (said[i] == 'S') why = "TMPDIR was full when the command ended (limits.tmp)";
        if (said[i] == 'I' && result->status > 128) {
            result->not_executed = true;
            snprintf(text, sizeof text, LCSB__NOT_STARTED_NOTE, result->status - 128);
            why = text;
        }
        if (said[i] == 'M')
            why = "the memory limit (limits.memory) was reached: the kernel killed a process of "
                  "the command";
        size_t used = strlen(result->note);
        if (why)
            snprintf(result->note + used, sizeof result->note - used, "%s%s", used ? "; " : "",
                     why);
    }
}

void lcsb__spawn_failed(lcsb_run_result *result, const char *program, int spawn_errno,
                        bool is_mechanism) {
    /* Behind a mechanism, failing to start it is a setup failure: nothing ran. */
    result->status = is_mechanism                                        ? LCSB_EXIT_SETUP
                     : (spawn_errno == ENOENT || spawn_errno == ENOTDIR) ? LCSB_EXIT_NOTFOUND
                                                                         : LCSB_EXIT_NOEXEC;
    result->setup_failed = is_mechanism;
    result->not_executed = !is_mechanism;
    snprintf(result->note, sizeof result->note, "cannot execute %s: %s", program,
             strerror(spawn_errno));
}

/* The child spawned, its proxy served while it runs, waited for: RESULT's
 * status, what the shim reported and what the command was refused. */
int lcsb__spawn_wait(lcsb__spawned *s, const char *program, const lcsb_run_options *opts,
                     const lcsb__spawn_net *net, lcsb_run_result *result, lcsb_error *err) {
    int wstatus, rc = 0;
    pid_t waited = s->pid;
    /* A command that would run without its proxy is stopped: nothing of it
     * may run without the whole policy, and it would find no way out. */
    lcsb_error served = {0};
    if (net && net->serve && net->serve(net->ctx, &served) != 0) {
        kill(s->pid, SIGKILL);
        result->setup_failed = true;
        snprintf(result->note, sizeof result->note, "cannot serve the network's proxy: %.400s",
                 served.message);
    }
    if (s->captured) {
        if (lcsb__capture_wait(&s->capture, s->pid, opts->relay_fd, &wstatus, result) != 0)
            waited = -1;
    } else {
        while ((waited = waitpid(s->pid, &wstatus, 0)) < 0 && errno == EINTR) {
        }
    }
    if (waited < 0) {
        rc = lcsb__fail(err, LCSB_ESYS, "cannot wait for %s: %s", program, strerror(errno));
    } else {
        s->pid = 0;
        result->status = result->setup_failed ? LCSB_EXIT_SETUP
                         : WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
                                              : 128 + WTERMSIG(wstatus);
        /* The pipe's write ends are gone with the shim and its init (the
         * command never had one): what they said is all there. */
        char said[8];
        ssize_t n = s->report[0] >= 0 ? read(s->report[0], said, sizeof said) : -1;
        if (n > 0) reported(said, (size_t)n, result);
        s->stale = n > 0 && memchr(said, 'R', (size_t)n) != NULL;
    }
    return rc;
}

void lcsb__spawn_refusals(const lcsb__spawned *s, const lcsb_run_options *opts, bool waited,
                          lcsb_run_result *result) {
    if (!s->refusals) return;
    result->attestation.recorded = true;
    /* Learning, an exec only seen is one the judged policy refuses,
     * whatever became of the run under the wider one. */
    if (opts->judge)
        lcsb__refusals_finish_learning(s->refusals, &result->attestation);
    else
        lcsb__refusals_finish(s->refusals, waited && result->status != 0, &result->attestation);
}

void lcsb__spawn_close(lcsb__spawned *s) {
    if (!s->open) return;
    s->open = false;
    if (s->pid > 0) {
        /* A shim made ahead that was handed no command is let go of: at the
         * end of its socket its init ends, and the shim with it, having
         * removed what it made (a memory cgroup). Any other is killed. */
        if (s->waiting) {
            if (s->command[0] >= 0) close(s->command[0]);
            s->command[0] = -1;
        } else {
            kill(s->pid, SIGKILL);
        }
        siginfo_t info;
        if (s->pidfd >= 0)
            while (waitid(P_PIDFD, (id_t)s->pidfd, &info, WEXITED) < 0 && errno == EINTR) {
            }
        else
            while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {
            }
        s->pid = 0;
    }
    if (s->pidfd >= 0) close(s->pidfd);
    s->pidfd = -1;
    lcsb__buf_free(&s->host);
    if (s->captured) lcsb__capture_close(&s->capture);
    /* After the capture, which puts back what it found (SIGCHLD held). */
    if (s->holds_chld) lcsb__children_release();
    s->holds_chld = false;
    s->captured = false;
    if (s->refusals) lcsb__refusals_free(s->refusals);
    s->refusals = NULL;
    for (int i = 0; i < 2; i++) {
        if (s->report[i] >= 0) close(s->report[i]);
        if (s->record[i] >= 0) close(s->record[i]);
        if (s->command[i] >= 0) close(s->command[i]);
        s->report[i] = s->record[i] = s->command[i] = -1;
    }
    lcsb_argv_free(s->env);
    s->env = NULL;
}
