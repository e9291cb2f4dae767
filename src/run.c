/* Running a prepared argv: spawn, relay signals, wait, map the status, write
 * the trailer. The impure half of the seam. */
#include "run.h"

#include "backend.h"
#include "capture.h"
#include "child.h"
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

/* lcsb's proxy for a run under net.domains: served from a socket the shim
 * listens on in the command's own network and hands over CHANNEL, or from
 * one lcsb listens on itself, on the host's loopback (LISTENER). */
struct net_serve {
    int channel[2]; /* ours, the shim's; -1s when the shim listens on none */
    int listener;
    lcsb__netns netns; /* a container's network, when lcsb made one */
    lcsb__proxy *proxy;
    lcsb__interception ic;     /* where a rule or a secret has the proxy read requests */
    const lcsb_policy *policy; /* what the proxy serves */
};

/* The host's stderr may be a pipe whose reader is gone: it is not to die of
 * SIGPIPE for lcsb's lines. */
static void write_all(int fd, const char *s) { (void)lcsb__write_all_unpiped(fd, s, strlen(s)); }

void lcsb_run_options_init(lcsb_run_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->size = sizeof *opts;
    opts->trailer_fd = STDERR_FILENO;
    opts->relay_fd = STDERR_FILENO;
    opts->record_refusals = true;
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

/* The proxy's part of a spawn (child.h): the secrets' variables withheld
 * and noted, the proxy served once the child runs. */
static bool net_withholds(void *ctx, const char *entry) {
    return lcsb__interception_names_secret(&((net_serve *)ctx)->ic, entry);
}

static int net_notes(void *ctx, char **env, lcsb_error *err) {
    net_serve *net = ctx;
    return net->ic.tls ? lcsb__interception_note_withheld(&net->ic, env, err) : 0;
}

static int net_serves(void *ctx, lcsb_error *err) {
    net_serve *net = ctx;
    return serve_net(net, net->policy, err);
}

/* RESULT of a run that a relayed signal stopped before its command
 * started (lcsb__relay_pending): nothing ran, and nothing will. */
void lcsb__run_signalled_before(lcsb_run_result *result, int sig) {
    result->status = 128 + sig;
    result->not_executed = true;
    snprintf(result->note, sizeof result->note, LCSB__NOT_STARTED_NOTE, sig);
}

/* FINAL spawned and waited for, its signals relayed meanwhile; NET the
 * proxy to serve while the command runs (NULL: none). */
int lcsb__run_spawn_and_wait(const lcsb_backend *b, const lcsb_policy *policy,
                             const char *const *final, bool is_mechanism, const char *shim,
                             const lcsb_run_options *opts, net_serve *net, lcsb_run_result *result,
                             lcsb_error *err) {
    lcsb__spawn_net with = {-1, net_withholds, net_notes, net_serves, net};
    if (net) {
        net->policy = policy;
        with.channel = net->channel[1];
    }
    lcsb__spawned s;
    int rc = lcsb__spawn_open(&s, b, policy, is_mechanism, shim, opts, net ? &with : NULL, err);
    if (!rc) {
        lcsb__relay relay;
        lcsb__relay_begin(&relay);
        int early = lcsb__relay_pending();
        int spawn_errno =
            early ? 0 : lcsb__spawn_start(&s, final, policy->cwd, opts, net ? &with : NULL);
        /* Only the child holds the channel's other end now. */
        if (net && net->channel[1] >= 0) close(net->channel[1]);
        if (net) net->channel[1] = -1;
        lcsb__relay_to(&s, &relay);
        if (early)
            lcsb__run_signalled_before(result, early);
        else if (spawn_errno)
            lcsb__spawn_failed(result, final[0], spawn_errno, is_mechanism);
        else
            rc = lcsb__spawn_wait(&s, final[0], opts, net ? &with : NULL, result, err);
        lcsb__relay_end(&relay);
        if (!early) lcsb__spawn_refusals(&s, opts, rc == 0, result);
    }
    lcsb__spawn_close(&s);
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
    rc = lcsb_prepare(b, *told, opts->prefix, argv, final, &result->attestation, err);
    return rc ? rc : lcsb__interception_check_given(&net->ic, argv, *final, err);
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
const char *lcsb__run_recording_shim(const lcsb_run_options *opts, const lcsb_attestation *att,
                                     char *const *final) {
    if (!opts->record_refusals || att->backend != LCSB_MECHANISM_LANDLOCK) return NULL;
    size_t at = 0;
    while (opts->prefix && opts->prefix[at]) at++;
    return final[at] && final[at][0] == '/' ? final[at] : NULL;
}

/* The command's name is the caller's to choose, control bytes and all: it
 * reaches the terminal escaped. */
static void trailer(const char *command, int status, bool setup_failed, bool not_executed,
                    bool not_started, const lcsb_attestation *att, char *buf, size_t size) {
    char summary[256], shown[1024];
    char how[64] = "";
    if (!command) command = "command";
    lcsb_escape(shown, sizeof shown, command, strlen(command));
    lcsb_attestation_summary(att, summary, sizeof summary);
    if (status > 128 && status < 128 + 65) {
        const char *name = sigabbrev_np(status - 128);
        snprintf(how, sizeof how, " (signal %s%s%s)", name ? "SIG" : "", name ? name : "?",
                 not_started ? "; it did not run" : "");
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
            false, att, buf, size);
}

/* OPTS (NULL: the defaults) into GIVEN, checked for B. */
int lcsb__run_take_options(const lcsb_backend *b, const lcsb_run_options *opts,
                           lcsb_run_options *given, lcsb_error *err) {
    /* A caller built against an older, shorter struct gets defaults for the rest. */
    lcsb_run_options_init(given);
    if (opts && (opts->size < sizeof(size_t) || opts->size > sizeof *opts))
        return lcsb__fail(err, LCSB_EINVAL, "run: options of unknown size %zu", opts->size);
    if (opts) memcpy(given, opts, opts->size);
    int rc = check_keep_fds(given, err);
    /* A container's command gets the engine's descriptors, not lcsb's. */
    if (!rc && given->keep_fds_count && b && b->ops->contains_prefix)
        rc = lcsb__fail(err, LCSB_EINVAL,
                        "%s: a descriptor cannot be passed into a container "
                        "(--keep-fd)",
                        b->ops->name);
    return rc;
}

/* On a nonzero exit, what lcsb says after the command's stderr: its note
 * and the trailer. */
void lcsb__run_after(const char *command, const lcsb_run_options *opts,
                     const lcsb_run_result *result) {
    if (result->status == 0 || opts->trailer_fd < 0) return;
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
    trailer(command, result->status, result->setup_failed,
            result->not_executed || result->attestation.backend != LCSB_MECHANISM_LANDLOCK,
            result->not_executed && result->status > 128, &result->attestation, line, sizeof line);
    write_all(opts->trailer_fd, line);
}

int lcsb_run(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
             const lcsb_run_options *opts, lcsb_run_result *result, lcsb_error *err) {
    lcsb_run_options given;
    memset(result, 0, sizeof *result);
    int rc = lcsb__run_take_options(b, opts, &given, err);
    if (rc) return rc;
    opts = &given;
    /* A command is needed here: lcsb_prepare would run a probe in its place. */
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command given");
    char **final = NULL;
    net_serve net = {{-1, -1}, -1, {0, -1, ""}, NULL, {0}, NULL};
    lcsb_policy *told = NULL;
    bool served = policy->net == LCSB_NET_DOMAINS && b->ops->is_mechanism;
    /* Where the mechanism gives the command no world of its own to make
     * them in, the private HOME and TMPDIR are the host's, made now. */
    if (policy->priv_n && !(b->ops->makes_private && b->ops->makes_private(b, policy)) &&
        (rc = lcsb__private_make(policy, err)) != 0)
        return rc;
    rc = prepare_run(b, policy, opts, argv, &final, &net, &told, result, err);
    if (!rc)
        rc = lcsb__run_spawn_and_wait(b, told ? told : policy, (const char *const *) final,
                                      starts_with_mechanism(b, opts->prefix),
                                      lcsb__run_recording_shim(opts, &result->attestation, final),
                                      opts, served ? &net : NULL, result, err);
    close_net(&net, &result->attestation);
    lcsb_policy_free(told);
    lcsb_argv_free(final);
    if (rc) return rc;
    lcsb__run_after(argv[0], opts, result);
    return 0;
}
