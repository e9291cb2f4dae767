/* A runner: each command's world made while the one before ran, and the
 * guess a CLI's single run starts its world from (lcsb_runner_*, docs/c-api.md).
 * Each run is lcsb_run's (run.c) but for when its world is made. */
#include "run.h"

#include "backend.h"
#include "child.h"
#include "path.h"
#include "plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    int rc = lcsb__run_take_options(b, opts, &(*out)->opts, err);
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
        lcsb__run_signalled_before(result, signalled);
        return 0;
    }
    size_t n = count_words((const char *const *)r->last), words = count_words(argv);
    const char **final = calloc(n + words + 1, sizeof *final);
    if (!final) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    memcpy(final, r->last, n * sizeof *final);
    memcpy(final + n, argv, words * sizeof *final);
    rc = lcsb__run_spawn_and_wait(
        r->backend, r->policy, final, true,
        lcsb__run_recording_shim(&r->opts, &result->attestation, (char *const *) final), &r->opts,
        NULL, result, err);
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
    lcsb__run_after(argv[0], &r->opts, result);
    return 0;
}
