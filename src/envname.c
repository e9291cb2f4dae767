/* The names of environment variables, judged without looking at a value:
 * the base set every command gets, the sensitive names a pattern never
 * passes, and the '*' patterns themselves. */
#include "envname.h"

#include <ctype.h>
#include <string.h>

/* Locale, terminal and who the user is: what programs need to print and
 * behave as the user expects, and nothing that reaches anything. HOME and
 * TMPDIR are not here: exec_policy sets private ones. */
/* The locale categories by name, not LC_*: a pattern would pass any
 * LC_-named variable a caller keeps, a secret included. */
const char *const lcsb__env_base[] = {
    "PATH",           "LANG",       "LANGUAGE",    "LC_ALL",
    "LC_CTYPE",       "LC_COLLATE", "LC_MESSAGES", "LC_MONETARY",
    "LC_NUMERIC",     "LC_TIME",    "LC_ADDRESS",  "LC_IDENTIFICATION",
    "LC_MEASUREMENT", "LC_NAME",    "LC_PAPER",    "LC_TELEPHONE",
    "TERM",           "COLORTERM",  "NO_COLOR",    "TZ",
    "USER",           "LOGNAME",    "SHELL",       "COLUMNS",
    "LINES",
    /* Trust anchors: which certificate authorities TLS accepts, on a host
     * whose own CA tools would otherwise not know (names of files, no secret). */
    "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "PIP_CERT", NULL};

bool lcsb__env_match(const char *pattern, const char *name) {
    /* The last '*' seen and where in NAME it took over: on a mismatch it
     * takes one byte more. Linear enough for names. */
    const char *star = NULL, *resume = NULL;
    while (*name) {
        if (*pattern == '*') {
            star = pattern++;
            resume = name;
        } else if (*pattern == *name) {
            pattern++;
            name++;
        } else if (star) {
            pattern = star + 1;
            name = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*') pattern++;
    return *pattern == '\0';
}

bool lcsb__env_is_pattern(const char *pattern) { return strchr(pattern, '*') != NULL; }

bool lcsb__env_valid_entry(const char *name) { return name[0] && !strchr(name, '='); }

/* NAME in upper case into OUT (SIZE bytes); false when it does not fit. */
static bool upper(const char *name, char *out, size_t size) {
    size_t len = strlen(name);
    if (len >= size) return false;
    for (size_t i = 0; i <= len; i++) out[i] = (char)toupper((unsigned char)name[i]);
    return true;
}

/* Does one of NAME's '_'-separated words satisfy WORD_IS? */
static bool any_word(const char *name, bool (*word_is)(const char *word, size_t len)) {
    for (const char *w = name; *w;) {
        size_t len = strcspn(w, "_");
        if (len && word_is(w, len)) return true;
        w += len;
        if (*w) w++;
    }
    return false;
}

static bool word_eq(const char *word, size_t len, const char *what) {
    return len == strlen(what) && memcmp(word, what, len) == 0;
}

static bool ends_with(const char *word, size_t len, const char *end) {
    size_t n = strlen(end);
    return len >= n && memcmp(word + len - n, end, n) == 0;
}

/* KEY, KEYS and words ending in KEY (APIKEY) or holding KEYFILE; PASS and
 * words ending in it (PGPASS, ASKPASS) or in PASSFILE; PW and PWD after
 * another word (DB_PWD, LDAP_BIND_PW; PWD alone is the working directory);
 * PAT (a personal access token); DSN (a connection string, password
 * included); SESSION after BW or OP (a password manager's unlocked vault). */
static bool secret_word(const char *word, size_t len) {
    return word_eq(word, len, "KEYS") || word_eq(word, len, "PAT") || word_eq(word, len, "DSN") ||
           ends_with(word, len, "KEY") || ends_with(word, len, "PASS") ||
           ends_with(word, len, "PASSFILE") || ends_with(word, len, "KEYFILE");
}

/* A word of NAME past its first that says password: DB_PWD, LDAP_BIND_PW. */
static bool password_suffix(const char *up) {
    const char *last = strrchr(up, '_');
    return last && last != up && (strcmp(last, "_PW") == 0 || strcmp(last, "_PWD") == 0);
}

/* AUTH anywhere in a word but AUTHOR (GIT_AUTHOR_NAME). */
static bool auth_word(const char *word, size_t len) {
    if (word_eq(word, len, "AUTHOR")) return false;
    for (size_t i = 0; i + 4 <= len; i++)
        if (memcmp(word + i, "AUTH", 4) == 0) return true;
    return false;
}

bool lcsb_env_sensitive(const char *name) {
    /* Parts of a name that say it holds a secret. */
    static const char *const within[] = {"TOKEN",   "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL",
                                         "PRIVATE", "COOKIE", "JWT",   "WEBHOOK",    NULL};
    /* Families whose every variable is a key or points at one; OP_SESSION_
     * and BW_SESSION unlock a password manager's vault. */
    static const char *const prefixes[] = {"AWS_",   "AZURE_",         "SSH_",        "GPG_",
                                           "VAULT_", "GNOME_KEYRING_", "OP_SESSION_", NULL};
    /* Names that grant access to something outside: a display, a session
     * bus, an agent, a container engine, a cluster, a ticket cache, a file
     * of credentials, the directory of the user's sockets. */
    static const char *const names[] = {"DISPLAY",
                                        "WAYLAND_DISPLAY",
                                        "XAUTHORITY",
                                        "DBUS_SESSION_BUS_ADDRESS",
                                        "DBUS_SYSTEM_BUS_ADDRESS",
                                        "XDG_RUNTIME_DIR",
                                        "DOCKER_HOST",
                                        "CONTAINER_HOST",
                                        "KUBECONFIG",
                                        "KRB5CCNAME",
                                        "NETRC",
                                        "MYSQL_PWD",
                                        "DATABASE_URL",
                                        "BW_SESSION",
                                        NULL};
    char up[4096];
    /* A name too long to judge is judged sensitive. */
    if (!upper(name, up, sizeof up)) return true;
    for (size_t i = 0; within[i]; i++)
        if (strstr(up, within[i])) return true;
    for (size_t i = 0; prefixes[i]; i++)
        if (strncmp(up, prefixes[i], strlen(prefixes[i])) == 0) return true;
    for (size_t i = 0; names[i]; i++)
        if (strcmp(up, names[i]) == 0) return true;
    return password_suffix(up) || any_word(up, secret_word) || any_word(up, auth_word);
}
