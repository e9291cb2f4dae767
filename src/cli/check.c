/* lcsb check: what a policy holds, as the chosen backend would enforce it
 * for this very command, told section by section (the tiers, home, world,
 * network, memory, caps, environment). Apart from cli.c, which runs the
 * subcommands, because it is most of the CLI's lines and only renders: it
 * changes nothing, and reads the policy through <lcsb.h> alone. */
#include "cli.h"

#include <lcsb.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* TEXT (LEN bytes) escaped for the terminal, in a buffer the caller frees;
 * NULL on ENOMEM. */
static char *escaped(const char *text, size_t len) {
    size_t need = lcsb_escape(NULL, 0, text, len);
    char *out = malloc(need + 1);
    if (out) lcsb_escape(out, need + 1, text, len);
    return out;
}

/* One line of a section, "  MARK      TEXT NOTE", TEXT (LEN bytes) escaped:
 * a path, a name or a value is the policy's or the caller's to choose,
 * control bytes and all. */
static void print_item(const char *mark, const char *text, size_t len, const char *note) {
    char *shown = escaped(text, len);
    printf("  %-9s %s%s\n", mark, shown ? shown : "(out of memory)", note);
    free(shown);
}

/* The length of PATH's directory part, its last slash included. */
static size_t dir_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Exec entry I, when its directory holds many of the allowlist's files
 * (a preset's /usr/bin): one group for all of them, printed where the first
 * comes, names wrapped, instead of a line each. True when I belongs to a
 * group, printed here or before. */
static bool print_exec_group(const lcsb_policy *p, size_t i, const char *mark) {
    enum { GROUP_MIN = 4, WIDTH = 100 };
    size_t n = lcsb_policy_count(p, LCSB_TIER_EXEC), members = 0;
    const char *path = lcsb_policy_path(p, LCSB_TIER_EXEC, i);
    size_t len = dir_len(path);
    bool first = true;
    for (size_t k = 0; k < n; k++) {
        const char *other = lcsb_policy_path(p, LCSB_TIER_EXEC, k);
        if (dir_len(other) == len && strncmp(other, path, len) == 0) {
            members++;
            first &= k >= i;
        }
    }
    if (members < GROUP_MIN) return false;
    if (!first) return true;
    char *dir = escaped(path, len);
    printf("  %-9s %s (%zu files):\n   ", mark, dir ? dir : "(out of memory)", members);
    free(dir);
    size_t column = 3;
    for (size_t k = i; k < n; k++) {
        const char *other = lcsb_policy_path(p, LCSB_TIER_EXEC, k);
        if (dir_len(other) != len || strncmp(other, path, len) != 0) continue;
        char *name = escaped(other + len, strlen(other + len));
        size_t width = name ? strlen(name) + 1 : 0;
        if (column + width > WIDTH) {
            printf("\n   ");
            column = 3;
        }
        printf(" %s", name ? name : "?");
        column += width;
        free(name);
    }
    printf("\n");
    return true;
}

/* PATH is DIR or lies inside it. */
static bool within(const char *path, const char *dir) {
    size_t len = strlen(dir);
    return strncmp(path, dir, len) == 0 &&
           (path[len] == '\0' || path[len] == '/' || strcmp(dir, "/") == 0);
}

/* The read tier grants PATH (ANY: or something inside it). */
static bool read_grants(const lcsb_policy *p, const char *path, bool any) {
    for (size_t i = 0; i < lcsb_policy_count(p, LCSB_TIER_READ); i++) {
        const char *granted = lcsb_policy_path(p, LCSB_TIER_READ, i);
        if (within(path, granted) || (any && within(granted, path))) return true;
    }
    return false;
}

typedef struct name_list {
    char **v;
    size_t n;
    bool lost; /* to ENOMEM: the count would lie, so it says so */
} name_list;

static void names_add(name_list *list, const char *name) {
    char **v = realloc(list->v, (list->n + 1) * sizeof *v);
    if (v) list->v = v;
    if (v && (v[list->n] = strdup(name)))
        list->n++;
    else
        list->lost = true;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What of DIR, inside ETC, the read tier leaves out, relative to ETC: each
 * entry that leads somewhere (a dangling symlink has nothing to read) and is
 * granted neither where it is nor where it leads. exec_policy grants a
 * directory that holds a secret entry by entry, so such a directory is gone
 * into rather than named; only a real one, so no symlink loops. */
static void etc_left_out(const lcsb_policy *p, const char *etc, const char *dir, name_list *out) {
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[PATH_MAX], real[PATH_MAX];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            !realpath(path, real) || read_grants(p, path, false) || read_grants(p, real, false))
            continue;
        if (strcmp(real, path) == 0 && read_grants(p, path, true))
            etc_left_out(p, etc, path, out);
        else
            names_add(out, path + strlen(etc) + 1);
    }
    if (d) closedir(d);
}

/* The read tier's hold on /etc. With a world of its own the command reads
 * /etc whole and the secrets in it are hidden; elsewhere Landlock cannot take
 * a path back, so exec_policy grants /etc's entries one by one and leaves the
 * secrets out: a hundred lines that buried the rest of the tier. */
typedef struct etc_hold {
    char dir[PATH_MAX]; /* /etc as exec_policy names it: by its real path */
    bool whole;
    size_t entries;
    name_list out; /* hidden in it (whole), or left out (entries), sorted */
} etc_hold;

/* Whether the read tier is better told as /etc and what it lacks: when it
 * holds /etc whole, or more of its entries than it leaves out (a policy that
 * reads /etc/hosts alone keeps its one line). */
static bool etc_collapses(const lcsb_policy *p, etc_hold *etc) {
    memset(etc, 0, sizeof *etc);
    if (!realpath("/etc", etc->dir)) snprintf(etc->dir, sizeof etc->dir, "/etc");
    for (size_t i = 0; i < lcsb_policy_count(p, LCSB_TIER_READ); i++) {
        const char *path = lcsb_policy_path(p, LCSB_TIER_READ, i);
        etc->whole |= strcmp(path, etc->dir) == 0;
        etc->entries += strcmp(path, etc->dir) != 0 && within(path, etc->dir);
    }
    if (etc->whole) {
        for (size_t i = 0; i < lcsb_policy_count(p, LCSB_TIER_HIDE); i++) {
            const char *path = lcsb_policy_path(p, LCSB_TIER_HIDE, i);
            if (strcmp(path, etc->dir) != 0 && within(path, etc->dir))
                names_add(&etc->out, path + strlen(etc->dir) + 1);
        }
    } else if (etc->entries) {
        etc_left_out(p, etc->dir, etc->dir, &etc->out);
    }
    if (etc->out.n) qsort(etc->out.v, etc->out.n, sizeof *etc->out.v, by_name);
    return etc->whole || (etc->entries && etc->out.n < etc->entries);
}

static void names_free(name_list *list);

/* LIST's names, escaped, comma-separated. */
static void print_names(const name_list *list) {
    for (size_t i = 0; i < list->n; i++) {
        char *shown = escaped(list->v[i], strlen(list->v[i]));
        printf("%s%s", i ? ", " : "", shown ? shown : "(out of memory)");
        free(shown);
    }
}

/* May others read what ST describes (and search it, a directory)? */
static bool theirs_to_read(const struct stat *st) {
    mode_t others = S_ISDIR(st->st_mode) ? S_IROTH | S_IXOTH : S_IROTH;
    return (st->st_mode & others) == others;
}

/* Is NAME (relative to /etc) one of OUT's, or inside one? */
static bool among(const name_list *out, const char *name) {
    for (size_t i = 0; i < out->n; i++) {
        size_t len = strlen(out->v[i]);
        if (strncmp(name, out->v[i], len) == 0 && (name[len] == '\0' || name[len] == '/'))
            return true;
    }
    return false;
}

/* What in DIR (ETC's, or below) others may not read but the caller may,
 * and the command with it, unless hidden or left out (ETC's OUT): a root-only
 * file the secrets' list does not name, for a caller that is root. Into
 * FOUND, relative to /etc; a directory whole. Granted entry by entry, a
 * symlink grants what it leads to, wherever that is: named with it. */
static void readable_as_caller(const etc_hold *etc, const char *dir, name_list *found) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[PATH_MAX];
        struct stat st;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        const char *name = path + strlen(etc->dir) + 1;
        if (among(&etc->out, name) || lstat(path, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            char real[PATH_MAX], shown[2 * PATH_MAX + 8];
            if (etc->whole || stat(path, &st) != 0 || !realpath(path, real)) continue;
            if (!theirs_to_read(&st) && faccessat(AT_FDCWD, real, R_OK, AT_EACCESS) == 0) {
                snprintf(shown, sizeof shown, "%s -> %s", name, real);
                names_add(found, shown);
            }
            continue;
        }
        bool theirs = theirs_to_read(&st);
        if (!theirs && faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) == 0)
            names_add(found, name);
        else if (theirs && S_ISDIR(st.st_mode))
            readable_as_caller(etc, path, found);
    }
    if (d) closedir(d);
}

static void print_etc(const char *mark, const etc_hold *etc) {
    printf("  %-9s %s (", mark, etc->dir);
    if (etc->whole)
        printf("whole");
    else
        printf("%zu entries, one by one", etc->entries);
    if (etc->out.n || etc->out.lost)
        printf("; %zu%s %s: ", etc->out.n, etc->out.lost ? " or more" : "",
               etc->whole ? "hidden in it" : "left out");
    print_names(&etc->out);
    printf(")\n");
    name_list found = {0};
    readable_as_caller(etc, etc->dir, &found);
    if (found.n || found.lost) {
        qsort(found.v, found.n, sizeof *found.v, by_name);
        printf("  %-9s %zu%s in %s that others may not read, the command reads as you may: ",
               "warning", found.n, found.lost ? " or more" : "", etc->dir);
        print_names(&found);
        printf(etc->whole ? " (name a secret among them in hide = { ... })\n"
                          : " (no world of its own here, where hide could take them away)\n");
    }
    names_free(&found);
}

static void names_free(name_list *list) {
    for (size_t i = 0; i < list->n; i++) free(list->v[i]);
    free(list->v);
}

/* TIER's rules, each marked enforced (or only requested, under none), then
 * what the script asked for in TIER and was left out, with why. */
static void print_tier(const lcsb_policy *p, lcsb_tier tier, bool enforced,
                       const lcsb_script *script) {
    const lcsb_left_out *left_out;
    size_t n = lcsb_policy_count(p, tier), left_n = lcsb_script_left_out(script, &left_out);
    const char *mark = enforced ? "enforced" : "requested";
    etc_hold etc;
    bool collapse = tier == LCSB_TIER_READ && etc_collapses(p, &etc), etc_shown = false;
    size_t shown = 0;
    printf("%s:\n", lcsb_tier_name(tier));
    for (size_t i = 0; i < n; i++, shown++) {
        const char *path = lcsb_policy_path(p, tier, i);
        if (tier == LCSB_TIER_EXEC && print_exec_group(p, i, mark)) continue;
        if (!collapse || !within(path, etc.dir))
            print_item(mark, path, strlen(path), "");
        else if (!etc_shown) {
            print_etc(mark, &etc);
            etc_shown = true;
        }
    }
    for (size_t i = 0; i < left_n; i++) {
        if (left_out[i].tier != tier) continue;
        char why[512];
        snprintf(why, sizeof why, " (%s)", left_out[i].why);
        print_item("dropped", left_out[i].path, strlen(left_out[i].path), why);
        shown++;
    }
    if (shown == 0) printf("  (none)\n");
    if (tier == LCSB_TIER_READ) names_free(&etc.out);
}

/* A section of LINES under TITLE, when there are any; frees LINES. */
static void print_lines(const char *title, char **lines) {
    if (lines && lines[0]) printf("%s\n", title);
    for (size_t i = 0; lines && lines[i]; i++) printf("  %s\n", lines[i]);
    lcsb_argv_free(lines);
}

/* Whether the script left out anything of TIER: its section shows why. */
static bool left_out_any(const lcsb_script *script, lcsb_tier tier) {
    const lcsb_left_out *left_out;
    size_t left_n = lcsb_script_left_out(script, &left_out);
    for (size_t i = 0; i < left_n; i++)
        if (left_out[i].tier == tier) return true;
    return false;
}

/* The network's lists, each under the policy's own key, and only those it
 * has. Under an open network the ports mean nothing, so they are not shown. */
static void print_net(const lcsb_policy *p, const lcsb_attestation *att) {
    size_t n = lcsb_policy_domain_count(p);
    if (n) printf("domains:\n");
    for (size_t i = 0; i < n; i++) {
        const char *entry = lcsb_policy_domain(p, i);
        bool deny = entry[0] == '!';
        print_item(deny ? "denied" : "allowed", entry + deny, strlen(entry + deny), "");
    }
    n = lcsb_policy_lan_count(p);
    if (n) printf("lan:\n");
    for (size_t i = 0; i < n; i++) {
        const char *range = lcsb_policy_lan(p, i);
        print_item("allowed", range, strlen(range), " (a listed name may lead there)");
    }
    lcsb_net net = lcsb_policy_net(p);
    if (net != LCSB_NET_PORTS && net != LCSB_NET_DOMAINS) return;
    /* In a network of its own the ports are its own loopback's. */
    const char *note = att->net == LCSB_NET_DOMAINS ? " (its own loopback)" : "";
    static const struct {
        lcsb_port_kind kind;
        const char *key;
    } lists[] = {{LCSB_PORT_CONNECT, "connect"}, {LCSB_PORT_BIND, "bind"}};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
        n = lcsb_policy_port_count(p, lists[k].kind);
        if (n) printf("%s:\n", lists[k].key);
        for (size_t i = 0; i < n; i++) {
            char port[8];
            snprintf(port, sizeof port, "%u", lcsb_policy_port(p, lists[k].kind, i));
            print_item("allowed", port, strlen(port), note);
        }
    }
}

typedef struct overlay_entry {
    const char *name;
    const char *value; /* NULL: unset */
} overlay_entry;

static int by_entry_name(const void *a, const void *b) {
    return strcmp(((const overlay_entry *)a)->name, ((const overlay_entry *)b)->name);
}

/* "NAME=VALUE" of ENTRY sets NAME. */
static bool sets(const char *entry, const char *name) {
    size_t len = strlen(name);
    return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

/* The proxy's variables, as lcsb_env_argv puts them on the command's argv
 * after the policy's own SET_N (/usr/bin/env -u K -- K=V ... COMMAND):
 * "NAME=VALUE" each, in ARGV (an lcsb argv, freed by the caller) from *FIRST
 * on, up to the last, the command. */
static char **proxy_env(const lcsb_policy *p, size_t set_n, size_t *first) {
    static const char *const probe[] = {"true", NULL};
    char **argv = NULL;
    if (lcsb_env_argv(p, probe, &argv, NULL)) return NULL;
    size_t at = 0;
    while (argv[at] && strcmp(argv[at], "--") != 0) at++;
    for (size_t k = 0; argv[at] && k <= set_n; k++) at++;
    *first = at;
    return argv;
}

/* ENTRY with the port lcsb_env_argv put in it, wherever it follows
 * "127.0.0.1:" (a URL) or "proxyPort=" (Java's option), shown as PORT, into
 * SHOWN (SIZE bytes): true, or false when it holds none. */
static bool port_as_word(const char *entry, char *shown, size_t size) {
    static const char *const marks[] = {"127.0.0.1:", "proxyPort="};
    size_t used = 0;
    bool found = false;
    const char *rest = entry;
    for (;;) {
        const char *at = NULL, *port = NULL;
        for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
            const char *hit = strstr(rest, marks[m]);
            if (hit && (!at || hit < at)) {
                at = hit;
                port = hit + strlen(marks[m]);
            }
        }
        if (!at) break;
        size_t digits = strspn(port, "0123456789");
        used += (size_t)snprintf(shown + used, size - used, "%.*s%s", (int)(port - rest), rest,
                                 digits ? "PORT" : "");
        if (used >= size) return false;
        rest = port + digits;
        found = found || digits;
    }
    snprintf(shown + used, size - used, "%s", rest);
    return found && used + strlen(rest) < size;
}

/* The policy's overlay, by name (the order it is applied in changes
 * nothing: each name is set or unset once), then what lcsb's proxy adds
 * under net.domains, which comes after and wins. Without a network of its
 * own the proxy listens on a port of the host's loopback picked when the
 * command starts: not shown as a number it will not be. */
static void print_overlay(const lcsb_policy *p, char *const *proxy, bool port_known) {
    size_t n = lcsb_policy_env_count(p);
    overlay_entry *entries = n ? calloc(n, sizeof *entries) : NULL;
    if (n && !entries) {
        printf("  (the overlay: out of memory)\n");
        return;
    }
    for (size_t i = 0; i < n; i++) entries[i].name = lcsb_policy_env(p, i, &entries[i].value);
    if (n) qsort(entries, n, sizeof *entries, by_entry_name);
    for (size_t i = 0; i < n; i++) {
        const char *name = entries[i].name, *value = entries[i].value;
        bool overridden = false;
        for (size_t k = 0; proxy && proxy[k] && proxy[k + 1] && !overridden; k++)
            overridden = sets(proxy[k], name);
        /* Java's options are one variable: lcsb's go after the policy's. */
        const char *note = !overridden ? ""
                           : strcmp(name, "JAVA_TOOL_OPTIONS") == 0
                               ? " (lcsb's proxy puts its own options after these)"
                               : " (lcsb's proxy sets it after this, and wins)";
        if (!value) {
            print_item("unset", name, strlen(name), note);
            continue;
        }
        size_t len = strlen(name) + 1 + strlen(value);
        char *kv = malloc(len + 1);
        if (kv) snprintf(kv, len + 1, "%s=%s", name, value);
        print_item("set", kv ? kv : "(out of memory)", kv ? len : 15, note);
        free(kv);
    }
    bool picked = false;
    for (size_t k = 0; proxy && proxy[k] && proxy[k + 1]; k++) {
        char shown[4096];
        bool port_shown = !port_known && port_as_word(proxy[k], shown, sizeof shown);
        const char *item = port_shown ? shown : proxy[k];
        print_item("set", item, strlen(item), " (lcsb's proxy)");
        picked = picked || port_shown;
    }
    if (picked)
        printf("  (PORT: the proxy's, on the host's loopback, picked when the command starts)\n");
    free(entries);
}

/* How the overlay (the policy's, then PROXY's) replaces NAME, a variable
 * the caller passes: "" where it does not. */
static const char *replaced_note(const lcsb_policy *p, char *const *proxy, const char *name) {
    for (size_t k = 0; proxy && proxy[k] && proxy[k + 1]; k++)
        if (sets(proxy[k], name)) return " (not the caller's value: lcsb's proxy sets it, below)";
    for (size_t i = 0, n = lcsb_policy_env_count(p); i < n; i++) {
        const char *value;
        if (strcmp(lcsb_policy_env(p, i, &value), name) == 0)
            return value ? " (not the caller's value: the policy sets it, below)"
                         : " (not passed after all: the policy unsets it, below)";
    }
    return "";
}

/* Is NAME one of P's secrets? Its entry ("NAME host,host"), or NULL. */
static const char *secret_named(const lcsb_policy *p, const char *name) {
    size_t len = strlen(name);
    for (size_t i = 0, n = lcsb_policy_secret_count(p); i < n; i++) {
        const char *entry = lcsb_policy_secret(p, i);
        if (strncmp(entry, name, len) == 0 && entry[len] == ' ') return entry;
    }
    return NULL;
}

/* Does the proxy read P's requests anywhere (a secret, or an entry with a
 * rule: "HOST methods=GET"), so that the command gets the run's bundle
 * under the certificate authorities' variables? */
static bool reads_requests(const lcsb_policy *p) {
    for (size_t i = 0, n = lcsb_policy_domain_count(p); i < n; i++) {
        const char *entry = lcsb_policy_domain(p, i);
        if (strstr(entry, " methods=") || strstr(entry, " paths=")) return true;
    }
    return lcsb_policy_secret_count(p) > 0;
}

/* Where the run itself gives NAME, a variable the caller passes, another
 * value: a secret's placeholder, or the run's certificates (READS: the
 * proxy reads requests). NULL where it does not. */
static const char *run_gives(const lcsb_policy *p, const char *name, bool reads) {
    static const char *const bundles[] = {"SSL_CERT_FILE",
                                          "CURL_CA_BUNDLE",
                                          "GIT_SSL_CAINFO",
                                          "REQUESTS_CA_BUNDLE",
                                          "PIP_CERT",
                                          "NODE_EXTRA_CA_CERTS",
                                          NULL};
    if (secret_named(p, name)) return " (not the caller's value: the secret's placeholder, below)";
    for (size_t i = 0; reads && bundles[i]; i++)
        if (strcmp(name, bundles[i]) == 0)
            return i == 0 ? " (not the caller's value: the run's certificates, the system's taken "
                            "from the file it names, as the proxy reads requests)"
                          : " (not the caller's value: the run's certificates, as the proxy reads "
                            "requests)";
    return NULL;
}

/* Which of the caller's variables the command gets: names only, never a
 * value. The sensitive ones it does not get are named too, so that a
 * missing token is no mystery. Then the policy's own values, which are
 * policy content, not the caller's. */
static int print_env(const lcsb_backend *b, const lcsb_policy *p, const lcsb_attestation *att) {
    extern char **environ;
    char **names = NULL;
    lcsb_error err;
    if (lcsb_env_passed(b, p, NULL, &names, &err)) {
        cli_say("%s", err.message);
        return -1;
    }
    printf("env: %s\n", lcsb_policy_env_inherit(p)
                            ? "the caller's whole environment (inherit), then the policy's overlay"
                            : "allow-listed: the base set and env.pass, then the policy's overlay "
                              "(set, unset)");
    /* Under none nothing serves net.domains, and no proxy is named. */
    bool proxied =
        strcmp(lcsb_backend_name(b), "none") != 0 && lcsb_policy_net(p) == LCSB_NET_DOMAINS;
    size_t set_n = 0, first = 0;
    for (size_t i = 0, n = lcsb_policy_env_count(p); i < n; i++) {
        const char *value;
        (void)lcsb_policy_env(p, i, &value);
        set_n += value != NULL;
    }
    char **argv = proxied ? proxy_env(p, set_n, &first) : NULL,
         **proxy = argv ? argv + first : NULL;
    bool reads = proxied && reads_requests(p);
    for (size_t i = 0; names[i]; i++) {
        const char *given = proxied ? run_gives(p, names[i], reads) : NULL;
        print_item("passed", names[i], strlen(names[i]),
                   given ? given : replaced_note(p, proxy, names[i]));
    }
    for (size_t i = 0; environ[i]; i++) {
        const char *eq = strchr(environ[i], '=');
        if (!eq || eq == environ[i]) continue;
        char name[256];
        size_t len = (size_t)(eq - environ[i]);
        snprintf(name, sizeof name, "%.*s", (int)len, environ[i]);
        bool passed = false;
        for (size_t k = 0; names[k] && !passed; k++) passed = strcmp(names[k], name) == 0;
        if (!passed && len < sizeof name && lcsb_env_sensitive(name) && !secret_named(p, name))
            print_item("held back", name, len,
                       " (looks sensitive: env = { pass = { NAME } } passes it, a pattern never)");
    }
    print_overlay(p, proxy, att->net_by == LCSB_NET_BY_NAMESPACE);
    for (size_t i = 0, n = proxied ? lcsb_policy_secret_count(p) : 0; i < n; i++) {
        const char *entry = lcsb_policy_secret(p, i), *space = strchr(entry, ' ');
        char note[600];
        snprintf(note, sizeof note,
                 " (a placeholder; lcsb's proxy puts the caller's value in its "
                 "place in requests to %.500s)",
                 space ? space + 1 : "its hosts");
        print_item("secret", entry, space ? (size_t)(space - entry) : strlen(entry), note);
    }
    if (!names[0] && !lcsb_policy_env_count(p) && !proxied) printf("  (none)\n");
    lcsb_argv_free(argv);
    lcsb_argv_free(names);
    return 0;
}

/* What the private HOME shows of the caller's real one (home, cache): the
 * paths are in the read and write tiers above; this says where the command
 * sees them. */
static void print_home(const lcsb_script *script) {
    const lcsb_home_entry *home;
    size_t n = lcsb_script_home(script, &home);
    if (n == 0) return;
    printf("home: the private HOME holds, at the same place as in yours\n");
    for (size_t i = 0; i < n; i++)
        printf("  %-9s %s -> %s%s\n", home[i].cache ? "cache" : "read-only", home[i].name,
               home[i].path, home[i].cache ? " (this project's, kept between its runs)" : "");
}

/* What a refused run's hints can draw on: the recorder, preloaded into
 * dynamically linked programs, and in a world of its own the init, which
 * sees every exec when the kernel can tell it (CAP). */
static void print_evidence(const cli_args *args, const lcsb_capability *cap,
                           const lcsb_attestation *att) {
    if (args->no_record)
        printf("evidence: none recorded (--no-record): hints come from the command's stderr\n");
    else if (att->world != LCSB_HELD_OWN)
        printf("evidence: the recorder, in dynamically linked programs only (a static "
               "program's refusals are not seen in the host's world)\n");
    else if (cap->seccomp_notify)
        printf("evidence: the recorder, in dynamically linked programs; and every exec, "
               "static programs' too, seen by the init (seccomp user notification)\n");
    else
        printf("evidence: the recorder, in dynamically linked programs only (no seccomp user "
               "notification here: a static program's refused exec is not seen)\n");
}

int cli_check(const cli_args *args, const lcsb_capability *cap, const lcsb_backend *b,
              const lcsb_policy *p, const lcsb_attestation *att, const lcsb_script *script) {
    char summary[256];
    bool enforced = strcmp(lcsb_backend_name(b), "none") != 0;
    lcsb_attestation_summary(att, summary, sizeof summary);
    printf("policy:  %s\nbackend: %s\nenforced: %s\n", args->policy, lcsb_backend_name(b), summary);
    static const char *const trust[] = {
        [LCSB_TRUST_CHECK] = "as you trusted it (lcsb trust), with every file it read",
        [LCSB_TRUST_SKIP] = "not checked (--no-trust-check)"};
    bool located = strcmp(lcsb_script_trusted(script), "location") == 0;
    printf("trusted: %s\n",
           located ? "where it is (lcsb's config directory)" : trust[args->no_trust_check]);
    if (!enforced)
        printf(
            "(the rules below are what the policy asks; under none, none of them is enforced)\n");
    print_tier(p, LCSB_TIER_READ, enforced, script);
    print_tier(p, LCSB_TIER_WRITE, enforced, script);
    if (lcsb_policy_exec_open(p))
        printf("exec: any (no allowlist)\n");
    else
        print_tier(p, LCSB_TIER_EXEC, enforced && att->exec == LCSB_EXEC_ALLOWLIST, script);
    print_lines("tools:", lcsb_script_tools(script));
    print_lines("plan:", lcsb_script_plan(script));
    print_lines("warnings:", lcsb_script_warnings(script));
    if (enforced && !lcsb_policy_exec_open(p) && att->exec != LCSB_EXEC_ALLOWLIST)
        printf("(%s holds no exec allowlist: anything the command can read, it can run)\n",
               lcsb_backend_name(b));
    if (lcsb_policy_count(p, LCSB_TIER_PROTECT) || left_out_any(script, LCSB_TIER_PROTECT))
        print_tier(p, LCSB_TIER_PROTECT, enforced && att->protected_paths == LCSB_HELD_READONLY,
                   script);
    /* Which of them are the defaults, and what became of each: a default
     * that is not there is not in the tier, and the user must see that too. */
    print_lines("protected by default (protect = { \"!NAME\" } lets one go):",
                lcsb_script_defaults(script));
    if (lcsb_policy_count(p, LCSB_TIER_HIDE) || left_out_any(script, LCSB_TIER_HIDE))
        print_tier(p, LCSB_TIER_HIDE, enforced && att->world == LCSB_HELD_OWN, script);
    print_home(script);
    printf("world: %s\n",
           !enforced                     ? "the host's (nothing is enforced)"
           : att->world == LCSB_HELD_OWN ? "its own (namespaces; only the policy's paths exist)"
           : att->backend == LCSB_MECHANISM_SEATBELT ? "the host's, held by the profile"
                                                     : "the host's processes, IPC and sockets");
    if (enforced && att->backend == LCSB_MECHANISM_LANDLOCK) print_evidence(args, cap, att);
    static const char *const net[] = {"denied", "ports", "open", "domains"};
    printf("net: %s%s\n", net[lcsb_policy_net(p)],
           enforced && att->net == LCSB_NET_OPEN && lcsb_policy_net(p) != LCSB_NET_OPEN
               ? " (requested; dropped here: see degrade)"
           : enforced && lcsb_policy_net(p) == LCSB_NET_DOMAINS && att->net != LCSB_NET_DOMAINS
               ? " (through lcsb's proxy on the host's loopback: no network of its own here)"
           : att->net == LCSB_NET_DOMAINS
               ? " (a network of its own, loopback only; lcsb's proxy the way out)"
               : "");
    print_net(p, att);
    static const char *const memory_by[] = {
        [LCSB_MEMORY_BY_RLIMIT] = "held per process (RLIMIT_AS), and SysV IPC by the IPC "
                                  "namespace's limits; no memory cgroup here, so not the "
                                  "processes together, nor memfds and tmpfs files",
        [LCSB_MEMORY_BY_CGROUP1] = "held for all the command's processes together and what "
                                   "they share (a cgroup v1 memory cgroup), and per process "
                                   "(RLIMIT_AS)",
        [LCSB_MEMORY_BY_CGROUP2] = "held for all the command's processes together and what "
                                   "they share (a cgroup v2 memory cgroup), and per process "
                                   "(RLIMIT_AS)"};
    if (enforced && att->memory_by != LCSB_MEMORY_BY_NOTHING)
        printf("memory: %llu bytes, %s\n", lcsb_policy_limit(p, LCSB_LIMIT_MEMORY),
               memory_by[att->memory_by]);
    for (unsigned part = 1; part <= LCSB_PARTS_ALL; part <<= 1)
        if (att->dropped & part)
            printf("dropped: %s (this host cannot enforce it, and the policy's degrade allows "
                   "that)\n",
                   lcsb_part_name(part));
    /* What the policy was held to, and by which files. */
    char **caps = lcsb_script_caps(script);
    for (size_t i = 0; caps && caps[i]; i++) printf("%s\n", caps[i]);
    lcsb_argv_free(caps);
    return print_env(b, p, att) ? LCSB_EXIT_USAGE : 0;
}
