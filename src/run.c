/* Running a prepared argv: spawn, relay signals, wait, map the status, write
 * the trailer. The impure half of the seam. */
#include "backend.h"
#include "capture.h"
#include "escape.h"
#include "intercept.h"
#include "netns.h"
#include "private.h"
#include "proxy.h"
#include "refusals.h"
#include "sys.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The environment variables naming the descriptors on which the shim
 * reports a setup failure, and hands over the proxy's listening socket
 * (docs/wire-format.md). */
#define LCSB__REPORT_ENV "LCSB_EXEC_REPORT_FD"
#define LCSB__PROXY_ENV "LCSB_EXEC_PROXY_FD"
/* And the recorder's pipe and library, which the shim hands the command. */
#define LCSB__RECORD_ENV "LCSB_EXEC_RECORD_FD"
#define LCSB__RECORDER_ENV "LCSB_EXEC_RECORDER"
/* The recorder sits beside the shim, in a build tree as in an install. */
#define LCSB__RECORDER_NAME "liblcsb-record.so"

/* lcsb's proxy for a run under net.domains: served from a socket the shim
 * listens on in the command's own network and hands over CHANNEL, or from
 * one lcsb listens on itself, on the host's loopback (LISTENER). */
typedef struct net_serve {
    int channel[2]; /* ours, the shim's; -1s when the shim listens on none */
    int listener;
    lcsb__netns netns; /* a container's network, when lcsb made one */
    lcsb__proxy *proxy;
    lcsb__interception ic; /* where a rule or a secret has the proxy read requests */
} net_serve;

static const int relayed_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define RELAYED (sizeof relayed_signals / sizeof relayed_signals[0])

const int *lcsb_relayed_signals(size_t *count) {
    *count = RELAYED;
    return relayed_signals;
}

/* The child being waited for; read by the signal handler. One run at a time
 * per process: signal dispositions are process-wide anyway. */
static volatile sig_atomic_t running_child;

static void relay(int sig, siginfo_t *info, void *context) {
    (void)context;
    /* A terminal's ^C already reached the whole foreground process group,
     * the command included; only relay what was sent to lcsb alone. */
    if (info && info->si_code == SI_KERNEL) return;
    if (running_child > 0) kill((pid_t)running_child, sig);
}

void lcsb_run_options_init(lcsb_run_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->trailer_fd = STDERR_FILENO;
    opts->relay_fd = STDERR_FILENO;
    opts->record_refusals = true;
}

static void write_all(int fd, const char *s) { (void)lcsb__write_all(fd, s, strlen(s)); }

/* lcsb's own descriptors for the shim: its report pipe, the proxy's
 * channel, the recorder's pipe; -1 where there is none. */
#define SHIM_FDS 3

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

static const char *const shim_names[SHIM_FDS + 1] = {LCSB__REPORT_ENV, LCSB__PROXY_ENV,
                                                     LCSB__RECORD_ENV, LCSB__RECORDER_ENV};

/* Is ENTRY one of the variables lcsb tells the shim with? */
static bool names_shim_fd(const char *entry) {
    for (int i = 0; i < SHIM_FDS + 1; i++) {
        size_t len = strlen(shim_names[i]);
        if (strncmp(entry, shim_names[i], len) == 0 && entry[len] == '=') return true;
    }
    return false;
}

/* What lcsb hands the shim beside the argv (docs/wire-format.md): the pipe
 * on which it reports a failed setup, and the recorder's pipe and library
 * (-1s and "" where there are none). */
typedef struct plumbing {
    int report[2];
    int record[2];
    char recorder[PATH_MAX];
} plumbing;

/* NAME=VALUE onto ENV at *K; false when out of memory. */
static bool tell(char **env, size_t *k, const char *name, const char *value) {
    size_t len = strlen(name) + strlen(value) + 2;
    char *entry = malloc(len);
    if (!entry) return false;
    snprintf(entry, len, "%s=%s", name, value);
    env[(*k)++] = entry;
    return true;
}

/* The environment the child is spawned with: the seam's (lcsb_env_block:
 * the allowlist under a host mechanism, the caller's whole under a
 * container's engine), with none of the caller's variables that tell the
 * shim something; for a child that is the mechanism, lcsb's own: PL's
 * descriptors and library, and NET's channel for the proxy's socket. */
static int child_environ(const lcsb_backend *b, const lcsb_policy *policy, const plumbing *pl,
                         net_serve *net, char ***out, lcsb_error *err) {
    char **block = NULL;
    int rc = lcsb_env_block(b, policy, NULL, &block, err);
    if (rc) return rc;
    size_t n = 0, k = 0;
    while (block[n]) n++;
    char **env = calloc(n + SHIM_FDS + 2, sizeof *env);
    if (!env) {
        lcsb_argv_free(block);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (names_shim_fd(block[i]) || (net && lcsb__interception_names_secret(&net->ic, block[i])))
            free(block[i]);
        else
            env[k++] = block[i];
    free(block);
    /* What the command was not given, no request the proxy reads may carry. */
    if (net && net->ic.tls && lcsb__interception_note_withheld(&net->ic, env) != 0) {
        lcsb_argv_free(env);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    int fds[SHIM_FDS] = {pl->report[1], net ? net->channel[1] : -1, pl->record[1]};
    bool told = true;
    for (int i = 0; i < SHIM_FDS; i++) {
        char number[16];
        snprintf(number, sizeof number, "%d", fds[i]);
        if (fds[i] >= 0) told = told && tell(env, &k, shim_names[i], number);
    }
    if (pl->record[1] >= 0) told = told && tell(env, &k, LCSB__RECORDER_ENV, pl->recorder);
    if (!told) {
        lcsb_argv_free(env);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    *out = env;
    return 0;
}

static int check_keep_fds(const lcsb_run_options *opts, lcsb_error *err) {
    if (opts->keep_fds_count && !opts->keep_fds)
        return lcsb__fail(err, LCSB_EINVAL, "run: keep_fds is NULL");
    for (size_t i = 0; i < opts->keep_fds_count; i++) {
        int fd = opts->keep_fds[i];
        if (fd < 3 || fd >= LCSB_KEEP_FD_MAX)
            return lcsb__fail(err, LCSB_EINVAL,
                              "keep fd %d: only descriptors from 3 to %d can be kept (0, 1 and 2 "
                              "always are)",
                              fd, LCSB_KEEP_FD_MAX - 1);
        if (fcntl(fd, F_GETFD) < 0)
            return lcsb__fail(err, LCSB_EINVAL, "keep fd %d: not open in lcsb", fd);
    }
    return 0;
}

/* What the shim said on its report pipe (docs/wire-format.md): a failed
 * setup, why its init ended every process of the command, or that it saw
 * every exec. */
static void reported(const char *said, size_t n, lcsb_run_result *result) {
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        char grace[128];
        if (said[i] == 'F' && result->status == LCSB_EXIT_SETUP) result->setup_failed = true;
        if (said[i] == 'X') result->attestation.execs_seen = true;
        if (said[i] == 'E' &&
            (result->status == LCSB_EXIT_NOEXEC || result->status == LCSB_EXIT_NOTFOUND))
            result->not_executed = true;
        if (said[i] == 'T')
            why = "the time limit (limits.time) was reached: every process of the command was "
                  "killed";
        if (said[i] == 'G') {
            snprintf(grace, sizeof grace,
                     "the command did not stop within %d s of being asked to: every process of "
                     "it was killed",
                     LCSB_GRACE_SECONDS);
            why = grace;
        }
        if (said[i] == 'S') why = "TMPDIR was full when the command ended (limits.tmp)";
        if (said[i] == 'M')
            why = "the memory limit (limits.memory) was reached: the kernel killed a process of "
                  "the command";
        size_t used = strlen(result->note);
        if (why)
            snprintf(result->note + used, sizeof result->note - used, "%s%s", used ? "; " : "",
                     why);
    }
}

/* The listening socket the shim sends on CHANNEL once the command's own
 * network exists; -1 when none came (the shim failed first, and says so). */
static int receive_listener(int channel) {
    unsigned char byte;
    int fd = lcsb__recv_fd(channel, &byte), listening = 0;
    socklen_t len = sizeof listening;
    if (fd >= 0 &&
        (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Serve the proxy once the child is spawned: on the socket the shim hands
 * over, or the one lcsb listens on. 0 when the shim failed before it had
 * one to hand (its report says why); else the proxy serves, or -1. */
static int serve_net(net_serve *net, const lcsb_policy *policy, lcsb_error *err) {
    if (net->channel[0] >= 0) {
        net->listener = receive_listener(net->channel[0]);
        if (net->listener < 0) return 0;
    }
    int fd = net->listener;
    net->listener = -1;
    lcsb__intercept with = {net->ic.tls, net->ic.secrets, net->ic.secrets_n};
    return lcsb__proxy_start(policy, fd, &with, &net->proxy, err);
}

/* The child's start: the relayed signals (RELAYED) and SIGPIPE at their
 * defaults and nothing blocked; stderr onto CAPTURE's pipe, CWD, and the
 * descriptors it keeps (EXTRA, the shim's). Both destroyed on failure. */
static int spawn_prepare(posix_spawnattr_t *attr, posix_spawn_file_actions_t *actions,
                         const sigset_t *relayed, const char *cwd, const lcsb_run_options *opts,
                         const int *extra, const lcsb__capture *capture, lcsb_error *err) {
    sigset_t none;
    sigemptyset(&none);
    /* The command starts with these at their defaults, SIGPIPE included,
     * which lcsb may be ignoring while it relays stderr. */
    sigset_t defaults = *relayed;
    sigaddset(&defaults, SIGPIPE);
    if (posix_spawnattr_init(attr)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (posix_spawn_file_actions_init(actions)) {
        posix_spawnattr_destroy(attr);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    posix_spawnattr_setsigdefault(attr, &defaults);
    posix_spawnattr_setsigmask(attr, &none);
    posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    /* stderr onto the pipe before everything else above 2 is closed. */
    if ((capture && capture->out[1] >= 0 &&
         posix_spawn_file_actions_adddup2(actions, capture->out[1], STDERR_FILENO)) ||
        (cwd && posix_spawn_file_actions_addchdir_np(actions, cwd)) ||
        add_fd_actions(actions, opts, extra)) {
        posix_spawn_file_actions_destroy(actions);
        posix_spawnattr_destroy(attr);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

/* Only the child writes into these now: the write ends of the report and
 * record pipes and of NET's channel, closed in lcsb. */
static void close_child_ends(plumbing *pl, net_serve *net) {
    for (int *end = pl->report + 1; end; end = end == pl->report + 1 ? pl->record + 1 : NULL) {
        if (*end >= 0) close(*end);
        *end = -1;
    }
    if (net && net->channel[1] >= 0) close(net->channel[1]);
    if (net) net->channel[1] = -1;
}

/* PROGRAM could not be spawned (SPAWN_ERRNO): RESULT says so. */
static void spawn_failed(lcsb_run_result *result, const char *program, int spawn_errno,
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

/* The command spawned as PID (PROGRAM), its proxy served while it runs,
 * waited for: RESULT's status and what the shim reported. */
static int wait_command(pid_t pid, const char *program, const lcsb_policy *policy,
                        const lcsb_run_options *opts, plumbing *pl, net_serve *net,
                        lcsb__capture *capture, lcsb_run_result *result, lcsb_error *err) {
    int wstatus;
    pid_t waited = pid;
    /* A command that would run without its proxy is stopped: nothing of it
     * may run without the whole policy, and it would find no way out. */
    lcsb_error served = {0};
    if (net && serve_net(net, policy, &served) != 0) {
        kill(pid, SIGKILL);
        result->setup_failed = true;
        snprintf(result->note, sizeof result->note, "cannot serve the network's proxy: %.400s",
                 served.message);
    }
    if (capture) {
        lcsb__capture_spawned(capture);
        if (lcsb__capture_wait(capture, pid, opts->relay_fd, &wstatus, result) != 0) waited = -1;
    } else {
        while ((waited = waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {
        }
    }
    if (waited < 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot wait for %s: %s", program, strerror(errno));
    result->status = result->setup_failed ? LCSB_EXIT_SETUP
                     : WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
                                          : 128 + WTERMSIG(wstatus);
    /* The pipe's write ends are gone with the shim and its init (the command
     * never had one): what they said is all there. */
    char said[8];
    ssize_t n = pl->report[0] >= 0 ? read(pl->report[0], said, sizeof said) : -1;
    if (n > 0) reported(said, (size_t)n, result);
    return 0;
}

/* REPORT is the shim's report pipe (-1s when the child is no mechanism),
 * ENV the environment that names its write end, NET the proxy to serve
 * while the command runs (NULL: none), CAPTURE the stderr relay (NULL: the
 * command writes to the caller's stderr itself). */
static int spawn_and_wait_with(const char *const *final, const lcsb_policy *policy,
                               bool is_mechanism, const lcsb_run_options *opts, plumbing *pl,
                               net_serve *net, char **env, lcsb__capture *capture,
                               lcsb_run_result *result, lcsb_error *err) {
    int extra[SHIM_FDS] = {pl->report[1], net ? net->channel[1] : -1, pl->record[1]};
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    sigset_t relayed, old_mask;
    struct sigaction old[RELAYED];

    sigemptyset(&relayed);
    for (size_t i = 0; i < RELAYED; i++) sigaddset(&relayed, relayed_signals[i]);
    int rc = spawn_prepare(&attr, &actions, &relayed, policy->cwd, opts, extra, capture, err);
    if (rc) return rc;

    /* Hold the relayed signals until the child's pid is known, so none is lost. */
    sigprocmask(SIG_BLOCK, &relayed, &old_mask);
    for (size_t i = 0; i < RELAYED; i++) {
        struct sigaction sa = {.sa_sigaction = relay, .sa_flags = SA_SIGINFO | SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(relayed_signals[i], &sa, &old[i]);
    }
    pid_t pid;
    int spawn_errno = posix_spawnp(&pid, final[0], &actions, &attr, (char *const *) final, env);
    close_child_ends(pl, net);
    if (spawn_errno == 0) running_child = pid;
    /* Unblock the relayed signals even if the caller held them: one that
     * arrived before the spawn is delivered now, and relayed. */
    sigset_t unblocked = old_mask;
    for (size_t i = 0; i < RELAYED; i++) sigdelset(&unblocked, relayed_signals[i]);
    sigprocmask(SIG_SETMASK, &unblocked, NULL);

    if (spawn_errno != 0)
        spawn_failed(result, final[0], spawn_errno, is_mechanism);
    else
        rc = wait_command(pid, final[0], policy, opts, pl, net, capture, result, err);
    sigprocmask(SIG_BLOCK, &relayed, NULL);
    running_child = 0;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    for (size_t i = 0; i < RELAYED; i++) sigaction(relayed_signals[i], &old[i], NULL);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* The recorder beside SHIM (an absolute path) into PL, when it is there. */
static bool find_recorder(const char *shim, plumbing *pl) {
    const char *slash = strrchr(shim, '/');
    struct stat st;
    int n = slash ? snprintf(pl->recorder, sizeof pl->recorder, "%.*s/%s", (int)(slash - shim),
                             shim, LCSB__RECORDER_NAME)
                  : -1;
    return n > 0 && (size_t)n < sizeof pl->recorder && stat(pl->recorder, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* The recorder's pipe, for a run under SHIM (NULL: no mechanism that takes
 * one). Its write end never blocks: a record the pipe has no room for is
 * lost, and the command never waits on lcsb. */
static void open_record(const char *shim, plumbing *pl) {
    if (!shim || !find_recorder(shim, pl) || pipe2(pl->record, O_CLOEXEC | O_NONBLOCK) != 0) {
        pl->record[0] = pl->record[1] = -1;
        pl->recorder[0] = '\0';
        return;
    }
    (void)fcntl(pl->record[0], F_SETPIPE_SZ, 1 << 20); /* a burst fits; the default if not */
}

/* The resources one spawn needs, made and released here: the shim says
 * "setup failed" on a pipe of its own, so that an exit status of 97, which
 * the command can give too, is never taken for that alone; the recorder's
 * pipe under a SHIM that takes it (NULL: none); the stderr relay when it is
 * asked for. */
static int spawn_and_wait(const lcsb_backend *b, const lcsb_policy *policy,
                          const char *const *final, bool is_mechanism, const char *shim,
                          const lcsb_run_options *opts, net_serve *net, lcsb_run_result *result,
                          lcsb_error *err) {
    plumbing pl = {{-1, -1}, {-1, -1}, ""};
    char **env = NULL;
    if (is_mechanism && pipe2(pl.report, O_CLOEXEC) != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot make the shim's report pipe: %s",
                          strerror(errno));
    lcsb__refusals *refusals = shim ? lcsb__refusals_new(opts->judge ? opts->judge : policy) : NULL;
    if (refusals) open_record(shim, &pl);
    if (refusals && pl.record[0] < 0) {
        lcsb__refusals_free(refusals);
        refusals = NULL;
    }
    int rc = child_environ(b, policy, &pl, net, &env, err);
    lcsb__capture capture;
    bool captured = !rc && (opts->capture_stderr || refusals);
    if (captured) rc = lcsb__capture_open(&capture, opts->capture_stderr, err);
    if (captured && !rc && refusals) lcsb__capture_watch(&capture, pl.record[0], refusals);
    if (!rc)
        rc = spawn_and_wait_with(final, policy, is_mechanism, opts, &pl, net, env,
                                 captured ? &capture : NULL, result, err);
    if (captured) lcsb__capture_close(&capture);
    if (refusals) {
        result->attestation.recorded = true;
        /* Learning, an exec only seen is one the judged policy refuses,
         * whatever became of the run under the wider one. */
        if (opts->judge)
            lcsb__refusals_finish_learning(refusals, &result->attestation);
        else
            lcsb__refusals_finish(refusals, rc == 0 && result->status != 0, &result->attestation);
        lcsb__refusals_free(refusals);
    }
    for (int i = 0; i < 2; i++) {
        if (pl.report[i] >= 0) close(pl.report[i]);
        if (pl.record[i] >= 0) close(pl.record[i]);
    }
    lcsb_argv_free(env);
    return rc;
}

/* Where the proxy will serve a run under net.domains: for a container, a
 * network namespace lcsb makes, which the engine is then told to join
 * (*TOLD_NETNS); a channel on which the shim hands over the socket it
 * listens on in the command's own network (ATT says so: held by a
 * namespace); else a socket lcsb listens on, on the host's loopback
 * (Seatbelt, or the net part dropped), whose port the command is then told
 * (*TOLD_PORT). */
static int open_net(const lcsb_backend *b, const lcsb_attestation *att, net_serve *net,
                    uint16_t *told_port, const char **told_netns, lcsb_error *err) {
    if (b->ops->contains_prefix) {
        int rc = lcsb__netns_hold(LCSB__PROXY_PORT, &net->netns, &net->listener, err);
        if (!rc) *told_netns = net->netns.path;
        return rc;
    }
    if (att->net == LCSB_NET_DOMAINS && att->net_by == LCSB_NET_BY_NAMESPACE) {
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, net->channel) != 0)
            return lcsb__fail(err, LCSB_ESYS, "cannot make the proxy's channel: %s",
                              strerror(errno));
        return 0;
    }
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    net->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (net->listener < 0 || bind(net->listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(net->listener, 512) != 0 ||
        getsockname(net->listener, (struct sockaddr *)&addr, &len) != 0)
        return lcsb__fail(err, LCSB_ESYS, "cannot listen on the host's loopback for the proxy: %s",
                          strerror(errno));
    *told_port = ntohs(addr.sin_port);
    return 0;
}

static void close_net(net_serve *net, lcsb_attestation *att) {
    for (int i = 0; i < 2; i++)
        if (net->channel[i] >= 0) close(net->channel[i]);
    if (net->listener >= 0) close(net->listener);
    if (net->proxy)
        lcsb__proxy_stop(net->proxy, att->net_refused, LCSB_NET_REFUSALS_MAX,
                         &att->net_refused_count);
    lcsb__netns_release(&net->netns);
    lcsb__interception_close(&net->ic);
}

/* Prepare POLICY's run, and where it goes through lcsb's proxy, the proxy:
 * without a network of its own, the command is told the port lcsb listens
 * on, and prepared again with it; where a rule reads requests, it is told
 * the bundle of certificates to trust (and Java the truststore), and reads
 * it. */
static int prepare_run(const lcsb_backend *b, const lcsb_policy *policy,
                       const lcsb_run_options *opts, const char *const *argv, char ***final,
                       net_serve *net, lcsb_policy **told, lcsb_run_result *result,
                       lcsb_error *err) {
    int rc = lcsb_prepare(b, policy, opts->prefix, argv, final, &result->attestation, err);
    if (rc || policy->net != LCSB_NET_DOMAINS || !b->ops->is_mechanism) return rc;
    uint16_t port = 0;
    const char *netns = NULL;
    rc = open_net(b, &result->attestation, net, &port, &netns, err);
    bool intercept = lcsb__interception_needed(policy);
    if (rc || (!port && !netns && !intercept)) return rc;
    if (!(*told = lcsb_policy_copy(policy)) || (netns && !((*told)->netns = strdup(netns))))
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    (*told)->proxy_port = port;
    if (intercept && (rc = lcsb__interception_open(&net->ic, policy, *told, err)) != 0) return rc;
    lcsb_argv_free(*final);
    *final = NULL;
    return lcsb_prepare(b, *told, opts->prefix, argv, final, &result->attestation, err);
}

/* Does the final argv start with the mechanism itself? Then failing to start
 * it is a setup failure (97); a launcher in front is a program like any other. */
static bool starts_with_mechanism(const lcsb_backend *b, const char *const *prefix) {
    bool launcher_first = prefix && prefix[0] && !b->ops->contains_prefix;
    return b->ops->is_mechanism && !launcher_first;
}

/* The shim in FINAL when the run records refusals: Landlock's, which
 * follows the launcher prefix (a container's engine hands on no pipe, and
 * its world has its own C library). NULL otherwise. */
static const char *recording_shim(const lcsb_run_options *opts, const lcsb_attestation *att,
                                  char *const *final) {
    if (!opts->record_refusals || att->backend != LCSB_MECHANISM_LANDLOCK) return NULL;
    size_t at = 0;
    while (opts->prefix && opts->prefix[at]) at++;
    return final[at] && final[at][0] == '/' ? final[at] : NULL;
}

/* The command's name is the caller's to choose, control bytes and all: it
 * reaches the terminal escaped. */
static void trailer(const char *command, int status, bool setup_failed, bool not_executed,
                    const lcsb_attestation *att, char *buf, size_t size) {
    char summary[256], shown[1024];
    char how[64] = "";
    if (!command) command = "command";
    lcsb_escape(shown, sizeof shown, command, strlen(command));
    lcsb_attestation_summary(att, summary, sizeof summary);
    if (status > 128 && status < 128 + 65) {
        const char *name = sigabbrev_np(status - 128);
        snprintf(how, sizeof how, " (signal %s%s)", name ? "SIG" : "", name ? name : "?");
    } else if (setup_failed) {
        snprintf(how, sizeof how, " (sandbox setup failed; the command did not run)");
    } else if (status == LCSB_EXIT_NOEXEC && not_executed) {
        snprintf(how, sizeof how, " (could not be executed)");
    } else if (status == LCSB_EXIT_NOTFOUND && not_executed) {
        snprintf(how, sizeof how, " (not found)");
    }
    snprintf(buf, size, "lcsb: %s exited %d%s under %s (%s)\n", shown, status, how,
             lcsb_attestation_value(att, "backend"), summary);
}

void lcsb_trailer(const char *command, int status, const lcsb_attestation *att, char *buf,
                  size_t size) {
    /* Whose 126 it is, only the run knows: under a shim, the shim says. */
    trailer(command, status, status == LCSB_EXIT_SETUP, att->backend != LCSB_MECHANISM_LANDLOCK,
            att, buf, size);
}

int lcsb_run(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
             const lcsb_run_options *opts, lcsb_run_result *result, lcsb_error *err) {
    /* A caller built against an older, shorter struct gets defaults for the rest. */
    lcsb_run_options given;
    lcsb_run_options_init(&given);
    if (opts && (opts->size < sizeof(size_t) || opts->size > sizeof *opts))
        return lcsb__fail(err, LCSB_EINVAL, "run: options of unknown size %zu", opts->size);
    if (opts) memcpy(&given, opts, opts->size);
    opts = &given;
    memset(result, 0, sizeof *result);

    int rc = check_keep_fds(opts, err);
    /* A container's command gets the engine's descriptors, not lcsb's. */
    if (!rc && opts->keep_fds_count && b->ops->contains_prefix)
        rc = lcsb__fail(err, LCSB_EINVAL,
                        "%s: a descriptor cannot be passed into a container "
                        "(--keep-fd)",
                        b->ops->name);
    if (rc) return rc;
    /* A command is needed here: lcsb_prepare would run a probe in its place. */
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command given");
    char **final = NULL;
    net_serve net = {{-1, -1}, -1, {0, -1, ""}, NULL, {0}};
    lcsb_policy *told = NULL;
    bool served = policy->net == LCSB_NET_DOMAINS && b->ops->is_mechanism;
    /* Where the mechanism gives the command no world of its own to make
     * them in, the private HOME and TMPDIR are the host's, made now. */
    if (policy->priv_n && !(b->ops->makes_private && b->ops->makes_private(b, policy)) &&
        (rc = lcsb__private_make(policy, err)) != 0)
        return rc;
    rc = prepare_run(b, policy, opts, argv, &final, &net, &told, result, err);
    if (!rc)
        rc = spawn_and_wait(b, told ? told : policy, (const char *const *) final,
                            starts_with_mechanism(b, opts->prefix),
                            recording_shim(opts, &result->attestation, final), opts,
                            served ? &net : NULL, result, err);
    close_net(&net, &result->attestation);
    lcsb_policy_free(told);
    lcsb_argv_free(final);
    if (rc) return rc;

    if (result->status != 0 && opts->trailer_fd >= 0) {
        char line[2048], note[sizeof line - 8];
        /* lcsb's lines start a line of their own, in the terminal's plain
         * colours: the command's stderr may end mid-line, or in an escape
         * that hides what follows (SGR 8) under lines it forged. */
        if (isatty(opts->trailer_fd)) write_all(opts->trailer_fd, "\x1b[0m");
        if (result->stderr_tail_len > 0 && result->stderr_tail[result->stderr_tail_len - 1] != '\n')
            write_all(opts->trailer_fd, "\n");
        if (result->note[0]) {
            lcsb_escape(note, sizeof note, result->note, strlen(result->note));
            snprintf(line, sizeof line, "lcsb: %s\n", note);
            write_all(opts->trailer_fd, line);
        }
        trailer(argv[0], result->status, result->setup_failed,
                result->not_executed || result->attestation.backend != LCSB_MECHANISM_LANDLOCK,
                &result->attestation, line, sizeof line);
        write_all(opts->trailer_fd, line);
    }
    return 0;
}
