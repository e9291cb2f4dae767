/* Running a prepared argv: spawn, relay signals, wait, map the status, write
 * the trailer. The impure half of the seam. */
#include "backend.h"
#include "capture.h"
#include "child.h"
#include "escape.h"
#include "intercept.h"
#include "netns.h"
#include "path.h"
#include "plan.h"
#include "private.h"
#include "proxy.h"
#include "refusals.h"
#include "sys.h"

#include <arpa/inet.h>
#include <dirent.h>
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
typedef struct net_serve {
    int channel[2]; /* ours, the shim's; -1s when the shim listens on none */
    int listener;
    lcsb__netns netns; /* a container's network, when lcsb made one */
    lcsb__proxy *proxy;
    lcsb__interception ic;     /* where a rule or a secret has the proxy read requests */
    const lcsb_policy *policy; /* what the proxy serves */
} net_serve;

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
static void signalled_before(lcsb_run_result *result, int sig) {
    result->status = 128 + sig;
    result->not_executed = true;
    snprintf(result->note, sizeof result->note, LCSB__NOT_STARTED_NOTE, sig);
}

/* FINAL spawned and waited for, its signals relayed meanwhile; NET the
 * proxy to serve while the command runs (NULL: none). */
static int spawn_and_wait(const lcsb_backend *b, const lcsb_policy *policy,
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
            signalled_before(result, early);
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
static int take_options(const lcsb_backend *b, const lcsb_run_options *opts,
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
static void after_run(const char *command, const lcsb_run_options *opts,
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
    int rc = take_options(b, opts, &given, err);
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
        rc = spawn_and_wait(b, told ? told : policy, (const char *const *) final,
                            starts_with_mechanism(b, opts->prefix),
                            recording_shim(opts, &result->attestation, final), opts,
                            served ? &net : NULL, result, err);
    close_net(&net, &result->attestation);
    lcsb_policy_free(told);
    lcsb_argv_free(final);
    if (rc) return rc;
    after_run(argv[0], opts, result);
    return 0;
}

/* ---- a runner: each command's world made while the one before ran ---- */

struct lcsb_runner {
    const lcsb_backend *backend; /* NULL until bound (lcsb_runner_bind) */
    lcsb_policy *policy;         /* the runner's own copy */
    char **verified;             /* what it lends the copy: as the original had (policy.h) */
    lcsb_run_options opts;
    lcsb__spawned ahead; /* a shim waiting for its command; pid 0: none */
    lcsb__spawned gone;  /* one let go of, ending on its own, reaped later */
    char **prefix;       /* the argv it was spawned with */
    char *cwd;           /* and where */
    char here[PATH_MAX]; /* a policy naming no directory: where the caller was last */
    bool once;           /* one command: no world made for a next */
    char **last;         /* the argv the last command's shim had, the command left out */
    lcsb__buf key;       /* lcsb_runner_start's: where the guess is kept */
    char *guess;         /* what was kept there (LEN bytes), or NULL */
    size_t guess_len;
    int guess_held; /* the lock on it while the run lasts, or -1 */
    lcsb__buf next; /* the guess to keep for the next run, when KEPT */
    bool kept;
    char **names;      /* the private HOME and TMPDIR it names */
    lcsb_hold **holds; /* the placeholders held before its shim started */
    size_t holds_n;
};

static size_t count_words(const char *const *v) {
    size_t n = 0;
    while (v[n]) n++;
    return n;
}

/* The first N words of V, as a new lcsb argv; NULL when out of memory. */
static char **copy_words(const char *const *v, size_t n) {
    char **copy = calloc(n + 1, sizeof *copy);
    for (size_t i = 0; copy && i < n; i++)
        if (!(copy[i] = strdup(v[i]))) {
            lcsb_argv_free(copy);
            copy = NULL;
        }
    return copy;
}

/* All of V, as a new lcsb argv; NULL when out of memory. */
static char **copy_all(const char *const *v) { return copy_words(v, count_words(v)); }

static int runner_alloc(const lcsb_backend *b, const lcsb_run_options *opts, lcsb_runner **out,
                        lcsb_error *err) {
    *out = calloc(1, sizeof **out);
    if (!*out) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    (*out)->guess_held = -1;
    int rc = take_options(b, opts, &(*out)->opts, err);
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int lcsb_runner_bind(lcsb_runner *r, const lcsb_backend *b, const lcsb_policy *policy,
                     lcsb_error *err) {
    lcsb_policy_free(r->policy);
    lcsb_argv_free(r->verified);
    r->backend = NULL;
    r->verified = NULL;
    /* The paths its composition found real, as lcsb_run takes them from
     * the original: a copy borrows none (policy.h), and checked again one
     * by one they cost a warm run two hundred system calls. */
    if (!(r->policy = lcsb_policy_copy(policy)) ||
        (policy->verified_n && !(r->verified = copy_words(policy->verified, policy->verified_n))))
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    r->policy->verified = (const char *const *)r->verified;
    r->policy->verified_n = r->verified ? policy->verified_n : 0;
    r->backend = b;
    return 0;
}

int lcsb_runner_new(const lcsb_backend *b, const lcsb_policy *policy, const lcsb_run_options *opts,
                    lcsb_runner **out, lcsb_error *err) {
    int rc = runner_alloc(b, opts, out, err);
    if (!rc && (rc = lcsb_runner_bind(*out, b, policy, err)) != 0) {
        lcsb_runner_free(*out);
        *out = NULL;
    }
    return rc;
}

static void drop_ahead(lcsb_runner *r) {
    lcsb__spawn_close(&r->ahead);
    memset(&r->ahead, 0, sizeof r->ahead);
    lcsb_argv_free(r->prefix);
    free(r->cwd);
    r->prefix = NULL;
    r->cwd = NULL;
}

/* The shim made ahead, taken out of R for a command: R has none after. */
static lcsb__spawned take_ahead(lcsb_runner *r) {
    lcsb__spawned taken = r->ahead;
    memset(&r->ahead, 0, sizeof r->ahead);
    drop_ahead(r);
    return taken;
}

/* Where R's commands run: the policy's directory, or, for one that names
 * none, where the caller is now, which a world made ahead must have been
 * made in to fit. */
static const char *run_cwd(lcsb_runner *r) {
    if (r->policy->cwd) return r->policy->cwd;
    if (!getcwd(r->here, sizeof r->here)) r->here[0] = '\0';
    return r->here;
}

/* The shim made ahead let go of without waiting for it: told its world will
 * not be used (the end of its socket), it ends once made, while the run
 * goes on; reaped at the next run or at the end. */
static void let_go(lcsb_runner *r) {
    lcsb__spawn_close(&r->gone);
    if (r->ahead.open && r->ahead.pid > 0 && r->ahead.command[0] >= 0) {
        close(r->ahead.command[0]);
        r->ahead.command[0] = -1;
        r->gone = r->ahead;
        memset(&r->ahead, 0, sizeof r->ahead);
    }
    drop_ahead(r);
}

void lcsb_runner_free(lcsb_runner *r) {
    if (!r) return;
    drop_ahead(r);
    lcsb__spawn_close(&r->gone);
    lcsb_argv_free(r->last);
    lcsb_policy_free(r->policy);
    lcsb_argv_free(r->verified);
    /* Only now, the run's private directories gone with its script (the
     * caller frees the runner after lcsb_script_close): the names it gives
     * on are no longer any run's. A guess that still holds stays as it is;
     * either way the lock on the one taken goes. */
    bool same = r->kept && r->guess && r->next.len == r->guess_len &&
                memcmp(r->next.p, r->guess, r->guess_len) == 0;
    if (r->key.len && r->kept && !same)
        (void)lcsb__plan_guess_keep(r->key.p, r->key.len, r->next.p, r->next.len);
    if (r->guess_held >= 0) close(r->guess_held);
    lcsb__buf_free(&r->next);
    lcsb__buf_free(&r->key);
    free(r->guess);
    /* Last: the run's own hold on each is gone by now, and the last to let
     * go removes it. */
    for (size_t i = 0; i < r->holds_n; i++) (void)lcsb_hold_release(r->holds[i], NULL);
    free(r->holds);
    lcsb_argv_free(r->names);
    free(r);
}

/* What keeps the command of a run with OPTS from having its world made
 * ahead (NULL: nothing). Only where stderr is relayed through lcsb
 * (nothing the shim says before its command is lost) and nothing but the
 * shim comes first or goes along (a launcher, a kept descriptor), with the
 * caller's stdin and stdout open to hand over. */
static const char *ahead_barred(const lcsb_run_options *o) {
    if (!o->capture_stderr) return "stderr is not captured (capture_stderr)";
    if (o->prefix) return "a launcher comes before the shim (prefix)";
    if (o->keep_fds_count) return "descriptors are kept for the command (keep_fds)";
    if (o->judge) return "the run is judged (learning)";
    if (fcntl(STDIN_FILENO, F_GETFD) < 0 || fcntl(STDOUT_FILENO, F_GETFD) < 0)
        return "the caller's stdin or stdout is closed";
    return NULL;
}

static bool ahead_allowed(const lcsb_run_options *o) { return !ahead_barred(o); }

/* What keeps R's runs from having their world made ahead, as far as its
 * options and policy tell (NULL: nothing): only a mechanism's shim makes
 * one, alone (no proxy to serve, no time limit counting from the shim's
 * start). */
static const char *runner_barred(const lcsb_runner *r) {
    const char *why = ahead_barred(&r->opts);
    if (why || !r->backend) return why;
    if (strcmp(r->backend->ops->name, "landlock") != 0)
        return "only Landlock's shim makes a world ahead";
    if (!r->backend->ops->makes_private(r->backend, r->policy))
        return "the command gets no world of its own here";
    if (r->policy->net == LCSB_NET_DOMAINS) return "the policy's network is served by a proxy";
    if (r->policy->limits[LCSB_LIMIT_TIME]) return "the policy has a time limit (limits.time)";
    return NULL;
}

static bool ahead_possible(const lcsb_runner *r) { return !runner_barred(r); }

bool lcsb_runner_ahead(const lcsb_runner *r, const char **why) {
    const char *barred = r ? runner_barred(r) : "no runner";
    if (why) *why = barred;
    return !barred;
}

/* Of a run ahead_possible allows, how many words of FINAL come before
 * ARGV's, which it ends with when the run can be made ahead; 0 when it
 * cannot: only a Landlock world of its own. */
static size_t ahead_prefix(const lcsb_attestation *att, const char *const *final,
                           const char *const *argv) {
    if (att->backend != LCSB_MECHANISM_LANDLOCK || att->world != LCSB_HELD_OWN) return 0;
    size_t n = count_words(final), words = count_words(argv);
    if (n <= words + 1) return 0;
    for (size_t i = 0; i < words; i++)
        if (strcmp(final[n - words + i], argv[i]) != 0) return 0;
    return n - words;
}

/* The shim for PREFIX (taken) spawned in CWD to wait for its command. */
static int spawn_ahead(lcsb_runner *r, char **prefix, const char *cwd, lcsb_error *err) {
    /* A world made for this one command, while this process composes it,
     * is compared with what this process's status says; one made for a
     * later command, with all it inherits (a host may change anything in
     * between). */
    int rc = lcsb__ahead_open(&r->ahead, prefix[0], &r->opts, !r->once, err);
    if (!rc && !(r->cwd = strdup(cwd))) rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    int spawned =
        rc ? 0 : lcsb__spawn_start(&r->ahead, (const char *const *)prefix, cwd, &r->opts, NULL);
    if (spawned)
        rc = lcsb__fail(err, LCSB_ESYS, "cannot start %s: %s", prefix[0], strerror(spawned));
    r->prefix = prefix;
    if (rc) drop_ahead(r);
    return rc;
}

static void add_word(lcsb__buf *out, const char *word) {
    lcsb__buf_add(out, word, strlen(word) + 1);
}

/* Is PATH the empty .git a run holds where there is no repository
 * (lcsb_hold_acquire: exec_policy makes one for every such project)? */
static bool placeholder_git(const char *path) {
    const char *slash = strrchr(path, '/');
    DIR *d = slash && strcmp(slash, "/.git") == 0 ? opendir(path) : NULL;
    struct dirent *e;
    bool empty = d != NULL;
    while (d && empty && (e = readdir(d)) != NULL)
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    if (d) closedir(d);
    return empty;
}

/* What a guess holds: the directory; the private HOME and TMPDIR (how
 * many, then each); the placeholders to hold before its shim starts (how
 * many, then each); then the shim's words; each with its NUL. */
static void guess_bytes(lcsb_runner *r, lcsb__buf *out) {
    const lcsb_policy *p = r->policy;
    add_word(out, run_cwd(r));
    lcsb__buf_addf(out, "%zu", p->priv_n);
    lcsb__buf_add(out, "", 1);
    for (size_t i = 0; i < p->priv_n; i++) add_word(out, p->priv[i].path);
    lcsb__buf held = {0};
    size_t n = 0;
    for (size_t i = 0; i < p->protect.n; i++)
        if (placeholder_git(p->protect.v[i])) {
            add_word(&held, p->protect.v[i]);
            n++;
        }
    lcsb__buf_addf(out, "%zu", n);
    lcsb__buf_add(out, "", 1);
    if (held.len) lcsb__buf_add(out, held.p, held.len);
    if (held.oom) out->oom = true;
    lcsb__buf_free(&held);
    for (size_t i = 0; r->last && r->last[i]; i++) add_word(out, r->last[i]);
}

/* R's guess read into its words (NULL-terminated, pointing into it); NULL
 * when it is no guess's form or out of memory. */
static const char **guess_words(const lcsb_runner *r) {
    size_t n = 0;
    for (size_t i = 0; i < r->guess_len; i++) n += r->guess[i] == '\0';
    if (n < 2 || r->guess[r->guess_len - 1] != '\0') return NULL;
    const char **words = calloc(n + 1, sizeof *words);
    for (size_t at = 0, k = 0; words && at < r->guess_len; at += strlen(r->guess + at) + 1)
        words[k++] = r->guess + at;
    return words;
}

/* The placeholders WORDS names (N of them) held, where none is: the
 * policy script of the run makes each again and holds it too, but only
 * after the shim started from the guess made its world, which would then
 * have nothing to cover (the init sees it appear, and the world goes
 * unused). Held from before, it is covered like any protected path. */
static void hold_placeholders(lcsb_runner *r, const char *cwd, const char *const *words, size_t n) {
    r->holds = calloc(n ? n : 1, sizeof *r->holds);
    for (size_t i = 0; r->holds && i < n; i++) {
        struct stat st;
        lcsb_error ignored;
        /* Only a .git in the run's directory or below, as exec_policy holds
         * them: a guess names nothing else to make. */
        const char *slash = strrchr(words[i], '/');
        if (words[i][0] == '/' && slash && strcmp(slash, "/.git") == 0 &&
            lcsb__path_within(words[i], cwd) && lstat(words[i], &st) != 0 && errno == ENOENT &&
            lcsb_hold_acquire(words[i], &r->holds[r->holds_n], NULL, &ignored) == 0)
            r->holds_n++;
    }
}

/* WORDS[AT] (of N) read as how many of the words after it are a list's,
 * at most eight, into *COUNT: false when it is no such number. */
static bool count_at(const char *const *words, size_t n, size_t at, size_t *count) {
    char *end;
    if (at >= n) return false;
    unsigned long v = strtoul(words[at], &end, 10);
    *count = v;
    return end != words[at] && *end == '\0' && v <= 8 && at + 1 + v <= n;
}

int lcsb_runner_start(const void *key, size_t key_len, const lcsb_run_options *opts,
                      lcsb_runner **out, lcsb_error *err) {
    int rc = runner_alloc(NULL, opts, out, err);
    if (rc) return rc;
    lcsb_runner *r = *out;
    r->once = true;
    lcsb__buf_add(&r->key, key, key_len);
    if (r->key.oom) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (!ahead_allowed(&r->opts) ||
        lcsb__plan_guess_take(r->key.p, r->key.len, &r->guess, &r->guess_len, &r->guess_held) != 0)
        return 0;
    const char **words = guess_words(r);
    size_t n = 0, names, held;
    while (words && words[n]) n++;
    /* The directory, the names, the placeholders, and the shim with a word
     * of the policy's. */
    if (!words || !count_at(words, n, 1, &names) || !count_at(words, n, 2 + names, &held) ||
        n < 3 + names + held + 2 || words[3 + names + held][0] != '/') {
        free(words);
        return 0;
    }
    size_t at = 3 + names + held;
    char **prefix = copy_words(words + at, n - at);
    r->names = copy_words(words + 2, names);
    const char *cwd = words[0];
    if (prefix && r->names) hold_placeholders(r, cwd, words + 3 + names, held);
    free(words);
    if (!prefix || !r->names) {
        lcsb_argv_free(prefix);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    /* A guess that cannot be started costs the run nothing but the try. */
    lcsb_error ignored;
    (void)spawn_ahead(r, prefix, cwd, &ignored);
    return 0;
}

const char *const *lcsb_runner_private_names(const lcsb_runner *r) {
    return r ? (const char *const *)r->names : NULL;
}

/* The guess to keep for the runs after R's, made now that its policy gave
 * the shim its argv: written when R is freed. */
static void keep_guess(lcsb_runner *r) {
    lcsb__buf_free(&r->next);
    guess_bytes(r, &r->next);
    r->kept = !r->next.oom;
}

/* Is the shim made ahead one for PREFIX (N words) in CWD, still waiting,
 * spawned by a caller that was what it is now? */
static bool ahead_fits(lcsb_runner *r, const char *const *prefix, size_t n, const char *cwd) {
    if (r->ahead.pid <= 0 || count_words((const char *const *)r->prefix) != n ||
        strcmp(r->cwd, cwd) != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(r->prefix[i], prefix[i]) != 0) return false;
    return lcsb__ahead_fits(&r->ahead);
}

/* NOW's shim handed ARGV and waited for. 0 when it ran the command (or
 * failed to: RESULT says); 1 when it took none of it, or its world changed
 * while it waited (the host replaced a file it covered): nothing ran.
 * *SIGNALLED: the last signal relayed to it meanwhile, or 0. */
static int hand_and_wait(lcsb_runner *r, lcsb__spawned *now, const char *const *argv,
                         bool spawn_next, int *signalled, lcsb_run_result *result,
                         lcsb_error *err) {
    lcsb__relay relay;
    lcsb__relay_begin(&relay);
    int early = lcsb__relay_pending();
    if (early) {
        lcsb__relay_to(NULL, &relay);
        lcsb__relay_end(&relay);
        lcsb__spawn_close(now);
        *signalled = early;
        return 1;
    }
    int rc = lcsb__ahead_take(now, r->backend, r->policy, &r->opts, argv, err);
    lcsb__relay_to(now, &relay);
    /* The next command's world is made while this one runs. */
    lcsb_error later = {0};
    char **next = spawn_next ? copy_all((const char *const *)r->last) : NULL;
    if (next) (void)spawn_ahead(r, next, run_cwd(r), &later);
    if (rc == 0) rc = lcsb__spawn_wait(now, r->last[0], &r->opts, NULL, result, err);
    lcsb__relay_end(&relay);
    *signalled = relay.relayed;
    if (rc == 0 && now->stale) rc = 1;
    if (rc == 0) lcsb__spawn_refusals(now, &r->opts, true, result);
    lcsb__spawn_close(now);
    return rc;
}

/* The run of ARGV in the world made ahead for it (NOW); where that world
 * ran nothing (the host changed what it covers while it waited, or it could
 * not look), in one made at the call, as lcsb_run makes it: that shim puts
 * its covers again on what the host left while it made its world, and has
 * no wait after. */
static int run_ahead(lcsb_runner *r, lcsb__spawned *now, const char *const *argv,
                     lcsb_run_result *result, lcsb_error *err) {
    int signalled;
    int rc = hand_and_wait(r, now, argv, !r->once, &signalled, result, err);
    if (rc != 1) return rc;
    result->status = 0;
    result->note[0] = '\0';
    result->setup_failed = result->not_executed = false;
    result->stderr_tail_len = 0;
    result->attestation.execs_seen = false;
    /* A signal meant to stop the command came while the world that went
     * unused had it: the command is not started again without it. */
    if (signalled) {
        signalled_before(result, signalled);
        return 0;
    }
    size_t n = count_words((const char *const *)r->last), words = count_words(argv);
    const char **final = calloc(n + words + 1, sizeof *final);
    if (!final) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    memcpy(final, r->last, n * sizeof *final);
    memcpy(final + n, argv, words * sizeof *final);
    rc = spawn_and_wait(r->backend, r->policy, final, true,
                        recording_shim(&r->opts, &result->attestation, (char *const *) final),
                        &r->opts, NULL, result, err);
    free(final);
    return rc;
}

int lcsb_runner_run(lcsb_runner *r, const char *const *argv, lcsb_run_result *result,
                    lcsb_error *err) {
    memset(result, 0, sizeof *result);
    if (!r->backend) return lcsb__fail(err, LCSB_EINVAL, "run: the runner has no policy yet");
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command given");
    char **final = NULL;
    size_t n = 0;
    int rc = 0;
    /* A run that cannot be made ahead is lcsb_run's, which prepares it. */
    if (ahead_possible(r)) {
        rc = lcsb_prepare(r->backend, r->policy, NULL, argv, &final, &result->attestation, err);
        if (rc) return rc;
        n = ahead_prefix(&result->attestation, (const char *const *) final, argv);
    }
    const char *cwd = run_cwd(r);
    if (!n || !ahead_fits(r, (const char *const *) final, n, cwd)) let_go(r);
    lcsb_argv_free(r->last);
    r->last = n ? copy_words((const char *const *) final, n) : NULL;
    lcsb_argv_free(final);
    if (!n) {
        /* Kept, as a guess made ahead is, only once the run was made. */
        rc = lcsb_run(r->backend, r->policy, argv, &r->opts, result, err);
        if (!rc && r->key.len) keep_guess(r);
        return rc;
    }
    if (!r->last) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    if (r->ahead.pid <= 0) {
        char **prefix = copy_words((const char *const *)r->last, n);
        if (!prefix) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        if ((rc = spawn_ahead(r, prefix, cwd, err)) != 0) return rc;
        /* Made now, for this command: a stop held in it is this one's. */
        r->ahead.for_it = true;
    }
    lcsb__spawned now = take_ahead(r);
    rc = run_ahead(r, &now, argv, result, err);
    if (rc) return rc;
    if (r->key.len) keep_guess(r);
    after_run(argv[0], &r->opts, result);
    return 0;
}
