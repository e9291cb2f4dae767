/* A run's interception (intercept.h): the authority and its bundle, the
 * secrets with their values and placeholders, the values withheld. */
#include "intercept.h"

#include "netname.h"
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

bool lcsb__interception_needed(const lcsb_policy *policy) {
    if (policy->secrets.n) return true;
    for (size_t i = 0; i < policy->domains.n; i++) {
        lcsb__domain d;
        char why[8];
        if (lcsb__domain_parse(policy->domains.v[i], &d, why, sizeof why) == 0 &&
            lcsb__domain_has_rule(&d))
            return true;
    }
    return false;
}

/* A place for one more of IC's secrets: NULL out of memory. */
static lcsb__secret *new_secret(lcsb__interception *ic) {
    if (ic->secrets_n == ic->secrets_cap) {
        size_t cap = ic->secrets_cap ? 2 * ic->secrets_cap : 8;
        lcsb__secret *v = realloc(ic->secrets, cap * sizeof *v);
        if (!v) return NULL;
        ic->secrets = v;
        ic->secrets_cap = cap;
    }
    lcsb__secret *s = &ic->secrets[ic->secrets_n++];
    memset(s, 0, sizeof *s);
    return s;
}

#define BUNDLE_PREFIX "lcsb-tls-"
#define BUNDLE_FILE "certificates.pem"
#define TRUSTSTORE_FILE "truststore.jks"
/* How old a directory of certificates no run holds must be to go: a run
 * locks its own as it makes it, and an lcsb from before the locks held
 * none, so only a directory this old can be a dead run's for sure. */
#define BUNDLE_DEAD_AFTER (60 * 60)

/* The run's two files, removed in the directory open at FD. */
static void remove_certificates(int fd) {
    (void)unlinkat(fd, BUNDLE_FILE, 0);
    (void)unlinkat(fd, TRUSTSTORE_FILE, 0);
}

/* Is the directory at FD (one of lcsb's, by its name) a dead run's, whole:
 * nothing in it but the bundle and the truststore, each a file of the
 * user's? Anything else there, and it is not lcsb's to remove. */
static bool only_certificates(int fd) {
    int again = dup(fd);
    DIR *d = again >= 0 ? fdopendir(again) : NULL;
    if (!d) {
        if (again >= 0) close(again);
        return false;
    }
    bool only = true;
    struct dirent *e;
    while (only && (e = readdir(d)) != NULL) {
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        only = (strcmp(e->d_name, BUNDLE_FILE) == 0 || strcmp(e->d_name, TRUSTSTORE_FILE) == 0) &&
               fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
               st.st_uid == geteuid();
    }
    closedir(d);
    return only;
}

/* The directories of certificates dead runs left in TMP (an lcsb killed by
 * SIGKILL removes nothing): the user's, no run's lock on them, older than
 * BUNDLE_DEAD_AFTER, and holding nothing but what a run writes there.
 * Certificates only (the authority's key is never on disk), but they would
 * pile up. */
static void sweep_dead_bundles(const char *tmp) {
    DIR *d = opendir(tmp);
    if (!d) return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, BUNDLE_PREFIX, strlen(BUNDLE_PREFIX)) != 0 ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid() || now - st.st_mtime < BUNDLE_DEAD_AFTER)
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && only_certificates(fd)) {
            remove_certificates(fd);
            (void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        }
        close(fd);
    }
    closedir(d);
}

/* The run's authority, and the bundle the command's clients trust with the
 * same certificates for Java, in a directory of lcsb's own under TMPDIR
 * (or /tmp), which the command reads; locked while the run lasts, so that
 * a later run can tell it from a dead run's. */
static int open_authority(lcsb__interception *ic, lcsb_error *err) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || strlen(tmp) > sizeof ic->bundle_dir - 32) tmp = "/tmp";
    sweep_dead_bundles(tmp);
    snprintf(ic->bundle_dir, sizeof ic->bundle_dir, "%s/" BUNDLE_PREFIX "XXXXXX", tmp);
    if (!mkdtemp(ic->bundle_dir)) {
        int e = errno;
        ic->bundle_dir[0] = '\0';
        return lcsb__fail(err, LCSB_ESYS, "cannot make a directory for the run's certificates: %s",
                          strerror(e));
    }
    /* Held open to the end: what is removed then is removed in it, wherever
     * its name has come to lead (the command may rename where it writes). */
    int fd = open(ic->bundle_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    /* Still the one mkdtemp made (the user's, 0700), not one put in its
     * place since by whoever else writes in TMPDIR. */
    if (fd >= 0 &&
        (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)) {
        close(fd);
        fd = -1;
        errno = EEXIST;
    }
    if (fd < 0) {
        int e = errno;
        (void)rmdir(ic->bundle_dir);
        ic->bundle_dir[0] = '\0';
        return lcsb__fail(err, LCSB_ESYS,
                          "cannot open the directory for the run's certificates: %s", strerror(e));
    }
    ic->bundle_fd = fd + 1;
    /* Unlocked (a file system without flock), it stands until it is an
     * hour old, which is as long as an older lcsb's did. */
    (void)flock(fd, LOCK_EX | LOCK_NB);
    snprintf(ic->bundle, sizeof ic->bundle, "%s/" BUNDLE_FILE, ic->bundle_dir);
    snprintf(ic->truststore, sizeof ic->truststore, "%s/" TRUSTSTORE_FILE, ic->bundle_dir);
    int rc = lcsb__tls_new(&ic->tls, err);
    if (!rc && (rc = lcsb__tls_write_trust(ic->tls, ic->bundle_fd - 1, ic->bundle, ic->truststore,
                                           err)) != 0)
        ic->bundle[0] = ic->truststore[0] = '\0';
    return rc;
}

/* The value in S's file: its bytes but a last line's end, into *VALUE
 * (caller frees): 0, or why not. */
static int read_value(const lcsb__secret *s, char **value, lcsb_error *err) {
    size_t len;
    struct stat st;
    if (lcsb__read_regular(s->from, 64 * 1024, true, value, &len, NULL, NULL) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "secrets.%s: cannot read its value from %s: %s",
                          s->name, s->from,
                          errno == ELOOP ? "a symlink (name the file itself)" : strerror(errno));
    /* The command is kept from this name alone: another (a hard link) in a
     * tree it reads would hand it the value. */
    if (lstat(s->from, &st) != 0 || st.st_nlink != 1)
        return lcsb__fail(err, LCSB_EINVAL,
                          "secrets.%s: %s has other names (hard links), which lcsb cannot hide "
                          "from the command; keep the value in a file with one name",
                          s->name, s->from);
    if (len && (*value)[len - 1] == '\n') (*value)[--len] = '\0';
    if (len && (*value)[len - 1] == '\r') (*value)[--len] = '\0';
    if (strlen(*value) != len)
        return lcsb__fail(err, LCSB_EINVAL, "secrets.%s: %s holds a NUL byte", s->name, s->from);
    return 0;
}

#define COMMAND_MS (30 * 1000) /* for a secret's command to print it */
#define VALUE_MAX (64 * 1024)

/* The value S's command prints, as it is run as the user, outside the
 * sandbox (the policy that names it is trusted as a whole), stdin /dev/null
 * and stderr lcsb's: into *VALUE (caller frees), a last line's end dropped.
 * 0, or why not (it could not start, failed, printed too much, or took
 * longer than COMMAND_MS). */
static int run_value(const lcsb__secret *s, char **value, lcsb_error *err) {
    char words[LCSB__SECRET_FROM_MAX], *argv[32];
    if (!lcsb__secret_command(s, words, sizeof words, argv, 32))
        return lcsb__fail(err, LCSB_EINVAL, "secrets.%s: no command", s->name);
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return lcsb__fail(err, LCSB_ESYS, "secrets.%s: cannot make a pipe: %s", s->name,
                          strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    /* None of lcsb's descriptors, and none of the signals it holds. */
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    lcsb__children_hold();
    int e = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(out[1]);
    if (e) {
        lcsb__children_release();
        close(out[0]);
        return lcsb__fail(err, LCSB_EINVAL, "secrets.%s: cannot run %s: %s", s->name, argv[0],
                          strerror(e));
    }
    lcsb__buf got = {0};
    long long deadline = lcsb__now_ms() + COMMAND_MS;
    bool late = false;
    for (;;) {
        struct pollfd pf = {.fd = out[0], .events = POLLIN};
        long long left = deadline - lcsb__now_ms();
        if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
            late = true;
            break;
        }
        char chunk[4096];
        ssize_t n = read(out[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        lcsb__buf_add(&got, chunk, (size_t)n);
        if (got.len > VALUE_MAX) break;
    }
    close(out[0]);
    if (late || got.len > VALUE_MAX) kill(pid, SIGKILL);
    int status = 0, waited = lcsb__children_reap(pid, &status) == pid;
    int rc = 0;
    if (late)
        rc = lcsb__fail(err, LCSB_EINVAL, "secrets.%s: %s printed no value within %d s", s->name,
                        argv[0], COMMAND_MS / 1000);
    else if (got.oom || got.len > VALUE_MAX)
        rc = lcsb__fail(err, LCSB_EINVAL, "secrets.%s: %s printed more than a value (64 KiB)",
                        s->name, argv[0]);
    else if (!waited || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        rc = lcsb__fail(err, LCSB_EINVAL, "secrets.%s: %s failed (%s %d), so there is no value",
                        s->name, argv[0], WIFEXITED(status) ? "exit status" : "signal",
                        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    if (!rc) {
        size_t len = got.len;
        if (len && got.p[len - 1] == '\n') len--;
        if (len && got.p[len - 1] == '\r') len--;
        if (!(*value = malloc(len + 1))) rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        if (!rc) {
            if (len) memcpy(*value, got.p, len);
            (*value)[len] = '\0';
            if (strlen(*value) != len)
                rc = lcsb__fail(err, LCSB_EINVAL, "secrets.%s: %s printed a NUL byte", s->name,
                                argv[0]);
        }
    }
    if (got.p) explicit_bzero(got.p, got.len);
    lcsb__buf_free(&got);
    return rc;
}

/* S's value, from lcsb's own environment, the file it names or the command
 * that prints it, and a placeholder for the command to hold in its place:
 * 0, or why not. */
static int fill_secret(lcsb__secret *s, lcsb_error *err) {
    char *owned = NULL;
    if (s->from[0] || s->command[0]) {
        int rc = s->from[0] ? read_value(s, &owned, err) : run_value(s, &owned, err);
        if (rc) {
            free(owned);
            return rc;
        }
    }
    const char *value = s->from[0] || s->command[0] ? owned : getenv(s->name);
    if (!value || !*value) {
        free(owned);
        return s->from[0] || s->command[0]
                   ? lcsb__fail(err, LCSB_EINVAL, "secrets.%s: %s gave an empty value", s->name,
                                s->from[0] ? s->from : "its command")
                   : lcsb__fail(err, LCSB_EINVAL,
                                "secrets.%s: %s is not set in lcsb's environment; lcsb puts its "
                                "value into requests to the secret's hosts, in place of the "
                                "placeholder the command gets",
                                s->name, s->name);
    }
    size_t len = strlen(value);
    int rc = len < LCSB__SECRET_VALUE_MIN
                 ? lcsb__fail(err, LCSB_EINVAL,
                              "secrets.%s: its value is %zu bytes; lcsb takes %d or more (a "
                              "shorter one's Base64 in an answer is too short to be told from "
                              "other data, so a server that echoes it could hand it to the "
                              "command)",
                              s->name, len, LCSB__SECRET_VALUE_MIN)
             : len > LCSB__SECRET_FORMS_VALUE_MAX
                 ? lcsb__fail(err, LCSB_EINVAL,
                              "secrets.%s: its value is %zu bytes; lcsb takes %d at most (the "
                              "forms a longer one takes in an echo are not looked for)",
                              s->name, len, LCSB__SECRET_FORMS_VALUE_MAX)
                 : 0;
    for (const char *c = value; *c && !rc; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            rc = lcsb__fail(err, LCSB_EINVAL,
                            "secrets.%s: the value holds a control character, which no request "
                            "header can carry",
                            s->name);
    unsigned char random[16];
    if (!rc && getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
        rc = lcsb__fail(err, LCSB_ESYS, "cannot make a placeholder: %s", strerror(errno));
    if (!rc) {
        int n = snprintf(s->placeholder, sizeof s->placeholder, "lcsb-placeholder-");
        for (size_t i = 0; i < sizeof random; i++)
            n += snprintf(s->placeholder + n, sizeof s->placeholder - (size_t)n, "%02x", random[i]);
        if (lcsb__secret_set_value(s, value, strlen(value)))
            rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    if (owned) {
        explicit_bzero(owned, strlen(owned));
        free(owned);
    }
    return rc;
}

int lcsb__interception_open(lcsb__interception *ic, const lcsb_policy *policy, lcsb_policy *told,
                            lcsb_error *err) {
    int was = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
    if (was >= 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0) ic->dumpable = was + 1;
    int rc = open_authority(ic, err);
    /* The command reads the bundle and the truststore, and its clients are
     * told where they are. */
    if (!rc) rc = lcsb_policy_add_read(told, ic->bundle, err);
    if (!rc) rc = lcsb_policy_add_read(told, ic->truststore, err);
    if (!rc && (!(told->ca_bundle = strdup(ic->bundle)) ||
                !(told->java_truststore = strdup(ic->truststore))))
        rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < policy->secrets.n; i++) {
        lcsb__secret *s = new_secret(ic);
        char why[300];
        if (!s) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        if (lcsb__secret_parse(policy->secrets.v[i], NULL, s, why, sizeof why) != 0)
            return lcsb__fail(err, LCSB_EINVAL, "%s", why);
        rc = fill_secret(s, err);
        if (!rc) rc = lcsb_policy_set_env(told, s->name, s->placeholder, err);
        /* The file is lcsb's to read, not the command's, whatever tree of
         * the policy holds it. */
        if (!rc && s->from[0]) rc = lcsb_policy_add_hide(told, s->from, err);
    }
    return rc;
}

bool lcsb__interception_names_secret(const lcsb__interception *ic, const char *entry) {
    for (size_t i = 0; i < ic->secrets_n; i++) {
        size_t len = strlen(ic->secrets[i].name);
        if (ic->secrets[i].hosts_n && strncmp(entry, ic->secrets[i].name, len) == 0 &&
            entry[len] == '=')
            return true;
    }
    return false;
}

/* The first of IC's secrets (one with hosts, whose placeholder the
 * command gets) whose value TEXT holds: its name, or NULL. */
static const char *secret_in(const lcsb__interception *ic, const char *text) {
    for (size_t k = 0; text && k < ic->secrets_n; k++) {
        const lcsb__secret *s = &ic->secrets[k];
        if (s->hosts_n && s->value_len && strstr(text, s->value)) return s->name;
    }
    return NULL;
}

/* Why a run whose command was handed a secret's value (WHERE says how,
 * SHELL when it may be a shell's doing) is not made. */
static int given_value(const char *name, const char *where, bool shell, lcsb_error *err) {
    char how[2 * LCSB__SECRET_NAME_MAX + 100] = "";
    if (shell)
        snprintf(how, sizeof how,
                 " (a shell expands \"$%s\" before lcsb runs: write '$%s', and the command "
                 "gets the placeholder)",
                 name, name);
    return lcsb__fail(err, LCSB_EINVAL,
                      "%s holds the value of the secret %s, which the command must never have: "
                      "lcsb puts it in place of the placeholder, in requests to the secret's hosts "
                      "alone%s",
                      where, name, how);
}

int lcsb__interception_check_given(const lcsb__interception *ic, const char *const *argv,
                                   char *const *final, lcsb_error *err) {
    const char *name = NULL;
    for (size_t i = 0; argv && argv[i] && !name; i++) name = secret_in(ic, argv[i]);
    if (name) return given_value(name, "an argument of the command's", true, err);
    for (size_t i = 0; final && final[i]; i++) {
        if (!(name = secret_in(ic, final[i]))) continue;
        /* A variable's NAME=value in the words of the env hop, most likely. */
        size_t n = strcspn(final[i], "=");
        char where[LCSB__SECRET_NAME_MAX + 64] = "a word of the argv that runs the command";
        if (final[i][n] == '=' && n < LCSB__SECRET_NAME_MAX)
            snprintf(where, sizeof where, "%.*s, a variable the policy sets for the command (env),",
                     (int)n, final[i]);
        return given_value(name, where, false, err);
    }
    return 0;
}

int lcsb__interception_note_withheld(lcsb__interception *ic, char *const *block, lcsb_error *err) {
    for (size_t i = 0; block[i]; i++) {
        const char *eq = strchr(block[i], '='), *name = eq ? secret_in(ic, eq + 1) : NULL;
        if (!name) continue;
        char where[LCSB__SECRET_NAME_MAX + 64];
        snprintf(where, sizeof where, "%.*s, a variable the command is given (env.pass),",
                 (int)(eq - block[i]) < LCSB__SECRET_NAME_MAX ? (int)(eq - block[i]) : 0, block[i]);
        return given_value(name, where, false, err);
    }
    for (size_t i = 0; environ && environ[i]; i++) {
        const char *eq = strchr(environ[i], '=');
        /* Short values would turn up in ordinary requests, and a path
         * (AWS_CA_BUNDLE's) is no secret. */
        if (!eq || strlen(eq + 1) < 8 || eq[1] == '/' ||
            (size_t)(eq - environ[i]) >= LCSB__SECRET_NAME_MAX)
            continue;
        char name[LCSB__SECRET_NAME_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(eq - environ[i]), environ[i]);
        bool given = false, secret = false;
        for (size_t k = 0; block[k] && !given; k++) given = strcmp(block[k], environ[i]) == 0;
        for (size_t k = 0; k < ic->secrets_n && !secret; k++)
            secret = strcmp(ic->secrets[k].name, name) == 0;
        if (given || secret || !lcsb_env_sensitive(name)) continue;
        /* A run keeps LCSB__RUN_SECRETS_MAX at most: past them, the rest of
         * an environment's is not looked for (docs/policy.md says so). */
        if (ic->secrets_n >= LCSB__RUN_SECRETS_MAX) break;
        lcsb__secret *s = new_secret(ic);
        if (!s || lcsb__secret_set_value(s, eq + 1, strlen(eq + 1)))
            return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        snprintf(s->name, sizeof s->name, "%s", name);
    }
    return 0;
}

/* The run's directory of certificates, open at FD, emptied and gone: its
 * files removed in it, never through its name; then its name removed where
 * that still names it (the command may have put a symlink or another
 * directory there). */
static void remove_bundle(int fd, const char *dir) {
    struct stat held, named;
    remove_certificates(fd);
    if (fstat(fd, &held) == 0 && lstat(dir, &named) == 0 && S_ISDIR(named.st_mode) &&
        named.st_dev == held.st_dev && named.st_ino == held.st_ino)
        (void)rmdir(dir);
    close(fd);
}

void lcsb__interception_close(lcsb__interception *ic) {
    lcsb__tls_free(ic->tls);
    ic->tls = NULL;
    for (size_t i = 0; i < ic->secrets_n; i++) lcsb__secret_clear(&ic->secrets[i]);
    free(ic->secrets);
    ic->secrets = NULL;
    ic->secrets_n = ic->secrets_cap = 0;
    if (ic->bundle_fd) remove_bundle(ic->bundle_fd - 1, ic->bundle_dir);
    ic->bundle_fd = 0;
    ic->bundle[0] = ic->truststore[0] = ic->bundle_dir[0] = '\0';
    /* The values are wiped: the process may be dumped again as before. */
    if (ic->dumpable) (void)prctl(PR_SET_DUMPABLE, ic->dumpable - 1, 0, 0, 0);
    ic->dumpable = 0;
}
