/* The trust store: what the user approved a policy script with, and what
 * changed since. Records are written whole and renamed into place, so a
 * reader sees the old record or the new one, never half of one. */
#include "trust.h"

#include "escape.h"
#include "path.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LCSB_SYSCONFDIR
#define LCSB_SYSCONFDIR "/etc/lcsb"
#endif

/* Version 3 adds the files the script looked for and did not find ("- PATH"
 * lines); a record without any is written as version 2, which every lcsb
 * that reads records reads. */
#define RECORD_MAGIC "lcsb-trust 2\n"
#define RECORD_MAGIC_ABSENT "lcsb-trust 3\n"

int lcsb__trust_files_add(lcsb__trust_files *files, const char *path, const char *real,
                          const char *sha256) {
    if (files->n == files->cap) {
        size_t cap = files->cap ? files->cap * 2 : 8;
        lcsb__trust_file *v = realloc(files->v, cap * sizeof *v);
        if (!v) return LCSB_ENOMEM;
        files->v = v;
        files->cap = cap;
    }
    lcsb__trust_file *f = &files->v[files->n];
    if (!(f->path = strdup(path))) return LCSB_ENOMEM;
    if (!(f->real = strdup(real))) {
        free(f->path);
        return LCSB_ENOMEM;
    }
    snprintf(f->sha256, sizeof f->sha256, "%s", sha256);
    f->changed = 0;
    files->n++;
    return 0;
}

const lcsb__trust_file *lcsb__trust_files_find(const lcsb__trust_files *files, const char *path) {
    for (size_t i = 0; i < files->n; i++)
        if (strcmp(files->v[i].path, path) == 0) return &files->v[i];
    return NULL;
}

void lcsb__trust_files_clear(lcsb__trust_files *files) {
    for (size_t i = 0; i < files->n; i++) {
        free(files->v[i].path);
        free(files->v[i].real);
    }
    free(files->v);
    memset(files, 0, sizeof *files);
}

void lcsb__trust_record_clear(lcsb__trust_record *record) {
    lcsb__trust_files_clear(&record->files);
    lcsb__trust_files_clear(&record->absent);
    record->at = 0;
}

bool lcsb__trust_absolute(const char *path, char out[PATH_MAX]) {
    char joined[2 * PATH_MAX];
    char cwd[PATH_MAX];
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) return false;
    int n = path[0] == '/' ? snprintf(joined, sizeof joined, "%s", path)
                           : snprintf(joined, sizeof joined, "%s/%s", cwd, path);
    if (n < 0 || (size_t)n >= sizeof joined) return false;
    /* Component by component: "" and "." go, ".." takes the last one back. */
    size_t len = 0;
    for (char *part = joined; *part;) {
        char *end = strchr(part, '/');
        size_t plen = end ? (size_t)(end - part) : strlen(part);
        if (plen == 2 && part[0] == '.' && part[1] == '.') {
            while (len > 0 && out[len - 1] != '/') len--;
            if (len > 0) len--;
        } else if (plen > 0 && !(plen == 1 && part[0] == '.')) {
            if (len + 1 + plen >= PATH_MAX) return false;
            out[len++] = '/';
            memcpy(out + len, part, plen);
            len += plen;
        }
        part += plen + (end ? 1 : 0);
    }
    if (len == 0) out[len++] = '/';
    out[len] = '\0';
    return true;
}

static const char *home_dir(void) {
    const char *home = getenv("HOME");
    if (home && home[0] == '/') return home;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

/* $VAR/TAIL when VAR holds an absolute path, else ~/FALLBACK/TAIL, with
 * ".." taken as text, as the caps read the same variables: the store is
 * where the caps hold it. Read by the kernel, XDG_STATE_HOME=~/link/..
 * would lead through link, wherever it points (into the project, say). */
static bool xdg_dir(char *out, size_t size, const char *var, const char *fallback,
                    const char *tail) {
    const char *base = getenv(var);
    char joined[PATH_MAX], normal[PATH_MAX];
    int n;
    if (base && base[0] == '/') {
        n = snprintf(joined, sizeof joined, "%s/%s", base, tail);
    } else {
        const char *home = home_dir();
        if (!home) return false;
        n = snprintf(joined, sizeof joined, "%s/%s/%s", home, fallback, tail);
    }
    if (n <= 0 || (size_t)n >= sizeof joined || !lcsb__trust_absolute(joined, normal)) return false;
    n = snprintf(out, size, "%s", normal);
    return n > 0 && (size_t)n < size;
}

int lcsb__trust_store(char *out, size_t size, lcsb_error *err) {
    if (!xdg_dir(out, size, "XDG_STATE_HOME", ".local/state", "lcsb/trust"))
        return lcsb__fail(err, LCSB_EINVAL,
                          "no place for the trust store: neither XDG_STATE_HOME nor HOME names "
                          "an absolute directory");
    return 0;
}

/* Is the file named PATH (absolute, lexical), whose real path is REAL, in
 * DIR by its name and by where it really is? A symlink from elsewhere into
 * DIR is not: the command could have made it. */
static bool inside(const char *path, const char *real, const char *dir) {
    char named[PATH_MAX], dir_real[PATH_MAX];
    return lcsb__trust_absolute(dir, named) && lcsb__path_within(path, named) &&
           realpath(dir, dir_real) && lcsb__path_within(real, dir_real);
}

bool lcsb__trust_by_location(const char *path, const char *real) {
    char config[PATH_MAX];
    if (xdg_dir(config, sizeof config, "XDG_CONFIG_HOME", ".config", "lcsb") &&
        inside(path, real, config))
        return true;
    return inside(path, real, LCSB_SYSCONFDIR);
}

/* The record's file name: the digest of the script's real path. */
static int record_path(const char *script, char *out, size_t size, lcsb_error *err) {
    char store[PATH_MAX], name[LCSB__SHA256_HEX];
    int rc = lcsb__trust_store(store, sizeof store, err);
    if (rc) return rc;
    lcsb__sha256_of(script, strlen(script), name);
    int n = snprintf(out, size, "%s/%s", store, name);
    if (n < 0 || (size_t)n >= size)
        return lcsb__fail(err, LCSB_EINVAL, "the trust store's path is too long: %s", store);
    return 0;
}

int lcsb__trust_read(const char *path, char **data, size_t *len, char *real, lcsb__file_seen *seen,
                     char sha256[LCSB__SHA256_HEX], lcsb_error *err) {
    if (lcsb__read_regular(path, LCSB__TRUST_FILE_MAX, false, data, len, real, seen) != 0) {
        int saved = errno;
        if (saved == EINVAL)
            lcsb__fail(err, LCSB_EINVAL, "%s is not a regular file", path);
        else if (saved == EFBIG)
            lcsb__fail(err, LCSB_ETOOBIG, "%s is larger than the %zu MiB a policy may read", path,
                       LCSB__TRUST_FILE_MAX >> 20);
        else
            lcsb__fail(err, saved == ENOMEM ? LCSB_ENOMEM : LCSB_ESYS, "cannot read %s: %s", path,
                       strerror(saved));
        errno = saved;
        return err ? err->code : LCSB_ESYS;
    }
    if (sha256) lcsb__sha256_of(*data, *len, sha256);
    return 0;
}

/* The encoded path that starts at *AT and ends at a space or END, decoded
 * into OUT (absolute); *AT moves past it. */
static bool take_path(const char **at, const char *end, char out[PATH_MAX]) {
    const char *stop = memchr(*at, ' ', (size_t)(end - *at));
    if (!stop) stop = end;
    bool ok = **at == '/' && lcsb__word_decode(*at, (size_t)(stop - *at), out, PATH_MAX);
    *at = stop;
    return ok;
}

bool lcsb__trust_parse(const char *data, size_t len, lcsb__trust_record *out) {
    size_t magic = strlen(RECORD_MAGIC);
    memset(out, 0, sizeof *out);
    bool v3 = len >= magic && memcmp(data, RECORD_MAGIC_ABSENT, magic) == 0;
    bool ok = v3 || (len >= magic && memcmp(data, RECORD_MAGIC, magic) == 0);
    for (const char *line = data + magic; ok && line < data + len;) {
        const char *end = memchr(line, '\n', (size_t)(data + len - line));
        char path[PATH_MAX], real[PATH_MAX], hex[LCSB__SHA256_HEX];
        if (v3 && end && end - line > 2 && line[0] == '-' && line[1] == ' ') {
            /* "- PATH": looked for, not found. */
            const char *at = line + 2;
            ok = take_path(&at, end, path) && at == end &&
                 lcsb__trust_files_add(&out->absent, path, "", "") == 0;
            line = end + 1;
            continue;
        }
        const char *at = line + 65;
        /* "SHA256 PATH REAL": the file as the script named it, and where it was. */
        ok = end && end - line > 65 && line[64] == ' ' && strspn(line, "0123456789abcdef") == 64 &&
             take_path(&at, end, path) && at < end && (at++, take_path(&at, end, real)) &&
             at == end;
        if (ok) {
            memcpy(hex, line, 64);
            hex[64] = '\0';
            ok = lcsb__trust_files_add(&out->files, path, real, hex) == 0;
            line = end + 1;
        }
    }
    if (!ok || out->files.n == 0) lcsb__trust_record_clear(out);
    return ok && out->files.n > 0;
}

/* Is the trust store's PATH, whose descriptor showed ST, the user's own,
 * written by no one else? A record others may write would let them vouch
 * for any code. Asked of the descriptor the record is read through, never
 * of the path again. */
static int owned(const char *path, const struct stat *st, lcsb_error *err) {
    if (st->st_uid == geteuid() && !(st->st_mode & 022)) return 0;
    return lcsb__fail(err, LCSB_EUNTRUSTED,
                      "%s is %s: lcsb does not take trust from it; make it yours and writable "
                      "by you alone",
                      path, st->st_uid != geteuid() ? "not yours" : "writable by others");
}

/* PATH could not be opened without following a symlink (ERROR): nothing
 * there is no record; a symlink vouches for nothing. */
static int unopened(const char *path, int error, lcsb_error *err) {
    if (error == ENOENT) return 0;
    if (error == ELOOP || error == ENOTDIR)
        return lcsb__fail(err, LCSB_EUNTRUSTED,
                          "%s is a symlink: lcsb does not take trust from it; make it yours and "
                          "writable by you alone",
                          path);
    return lcsb__fail(err, LCSB_ESYS, "cannot read %s: %s", path, strerror(error));
}

int lcsb__trust_load(const char *script, lcsb__trust_record *out, lcsb_error *err) {
    char path[PATH_MAX], store[PATH_MAX];
    char *data;
    size_t len;
    lcsb__file_seen seen;
    memset(out, 0, sizeof *out);
    int rc = record_path(script, path, sizeof path, err);
    if (!rc) rc = lcsb__trust_store(store, sizeof store, err);
    if (rc) return rc;
    /* The store and the record each through a descriptor opened without
     * following a symlink, their owner and mode asked of that descriptor. */
    int dir = open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) return unopened(store, errno, err);
    if (fstat(dir, &seen.st) != 0)
        rc = lcsb__fail(err, LCSB_ESYS, "cannot read %s: %s", store, strerror(errno));
    if (!rc) rc = owned(store, &seen.st, err);
    if (!rc && lcsb__read_regular_at(dir, strrchr(path, '/') + 1, LCSB__TRUST_FILE_MAX, true, &data,
                                     &len, NULL, &seen) != 0) {
        rc = errno == EINVAL ? lcsb__fail(err, LCSB_EUNTRUSTED, "%s is not a regular file", path)
                             : unopened(path, errno, err);
        close(dir);
        return rc;
    }
    close(dir);
    if (rc) return rc;
    rc = owned(path, &seen.st, err);
    bool ok = !rc && lcsb__trust_parse(data, len, out);
    free(data);
    if (rc) return rc;
    out->at = seen.st.st_mtime;
    if (!ok || strcmp(out->files.v[0].path, script) != 0) {
        lcsb__trust_record_clear(out);
        return lcsb__fail(err, LCSB_EINVAL,
                          "the trust record %s is damaged; run lcsb trust again for %s", path,
                          script);
    }
    return 0;
}

/* mkdir -p DIR, mode 0700 for what it makes. */
static int make_dirs(const char *dir, lcsb_error *err) {
    char path[PATH_MAX];
    if (strlen(dir) >= sizeof path)
        return lcsb__fail(err, LCSB_EINVAL, "the trust store's path is too long: %s", dir);
    memcpy(path, dir, strlen(dir) + 1);
    for (char *slash = path + 1;; slash++) {
        bool last = *slash == '\0';
        if (*slash != '/' && !last) continue;
        *slash = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return lcsb__fail(err, LCSB_ESYS, "cannot create %s: %s", path, strerror(errno));
        if (last) return 0;
        *slash = '/';
    }
}

/* LEN bytes of DATA as the file PATH, whole or not at all. */
static int write_whole(const char *path, const char *data, size_t len, lcsb_error *err) {
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return lcsb__fail(err, LCSB_ESYS, "cannot write %s: %s", tmp, strerror(errno));
    bool ok = lcsb__write_all(fd, data, len) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) {
        if (ok) saved = errno;
        unlink(tmp);
        return lcsb__fail(err, LCSB_ESYS, "cannot write %s: %s", path, strerror(saved));
    }
    return 0;
}

/* The store's copies of content: DIR, made when it is not there yet. */
static int content_dir(char dir[PATH_MAX], lcsb_error *err) {
    char store[PATH_MAX];
    int rc = lcsb__trust_store(store, sizeof store, err);
    if (!rc && snprintf(dir, PATH_MAX, "%s/content", store) >= PATH_MAX)
        rc = lcsb__fail(err, LCSB_EINVAL, "the trust store's path is too long: %s", store);
    return rc ? rc : make_dirs(dir, err);
}

int lcsb__trust_keep(const char *sha256, const char *data, size_t len, char *where,
                     lcsb_error *err) {
    char dir[PATH_MAX];
    int rc = content_dir(dir, err);
    if (rc) return rc;
    if (snprintf(where, PATH_MAX, "%s/%s", dir, sha256) >= PATH_MAX)
        return lcsb__fail(err, LCSB_EINVAL, "the trust store's path is too long: %s", dir);
    return access(where, F_OK) == 0 ? 0 : write_whole(where, data, len, err);
}

int lcsb__trust_save(const char *script, const lcsb__trust_files *files,
                     const lcsb__trust_files *absent, char *const *contents, const size_t *lens,
                     lcsb_error *err) {
    char record[PATH_MAX], kept[PATH_MAX];
    int rc = record_path(script, record, sizeof record, err);
    for (size_t i = 0; !rc && i < files->n; i++)
        rc = lcsb__trust_keep(files->v[i].sha256, contents[i], lens[i], kept, err);
    if (rc) return rc;
    /* What the script found in the end is not absent, whatever it looked
     * for before. */
    size_t missing = 0;
    for (size_t i = 0; absent && i < absent->n; i++)
        missing += !lcsb__trust_files_find(files, absent->v[i].path);
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, missing ? RECORD_MAGIC_ABSENT : RECORD_MAGIC);
    for (size_t i = 0; i < files->n; i++) {
        lcsb__buf_addf(&b, "%s ", files->v[i].sha256);
        lcsb__buf_add_word(&b, files->v[i].path);
        lcsb__buf_adds(&b, " ");
        lcsb__buf_add_word(&b, files->v[i].real);
        lcsb__buf_adds(&b, "\n");
    }
    for (size_t i = 0; absent && i < absent->n; i++) {
        if (lcsb__trust_files_find(files, absent->v[i].path)) continue;
        lcsb__buf_adds(&b, "- ");
        lcsb__buf_add_word(&b, absent->v[i].path);
        lcsb__buf_adds(&b, "\n");
    }
    rc = b.oom ? lcsb__fail(err, LCSB_ENOMEM, "out of memory")
               : write_whole(record, b.p, b.len, err);
    lcsb__buf_free(&b);
    return rc;
}

/* The lines of TEXT: *COUNT of them, each start in the returned array
 * (caller frees), their ends at the next '\n' or TEXT + LEN. */
static const char **lines_of(const char *text, size_t len, size_t *count) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) n += text[i] == '\n';
    const char **v = malloc((n + 2) * sizeof *v);
    if (!v) return NULL;
    size_t k = 0;
    for (const char *p = text; p < text + len;) {
        v[k++] = p;
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        p = nl ? nl + 1 : text + len;
    }
    v[k] = text + len;
    *count = k;
    return v;
}

static bool same_line(const char **a, size_t i, const char **b, size_t j) {
    size_t la = (size_t)(a[i + 1] - a[i]), lb = (size_t)(b[j + 1] - b[j]);
    return la == lb && memcmp(a[i], b[j], la) == 0;
}

/* The most lines A[A0..A1) and B[B0..B1) have in common, in order (their
 * longest common subsequence), by rows of a table kept two at a time;
 * where that would take too long, none: the counts are then the span that
 * changed. */
static size_t common_lines(const char **a, size_t a0, size_t a1, const char **b, size_t b0,
                           size_t b1) {
    size_t n = a1 - a0, m = b1 - b0;
    if (n == 0 || m == 0 || n > 4000000 / m) return 0;
    size_t *prev = calloc(m + 1, sizeof *prev), *row = calloc(m + 1, sizeof *row);
    size_t best = 0;
    for (size_t i = 1; prev && row && i <= n; i++) {
        for (size_t j = 1; j <= m; j++)
            row[j] = same_line(a, a0 + i - 1, b, b0 + j - 1) ? prev[j - 1] + 1
                     : prev[j] > row[j - 1]                  ? prev[j]
                                                             : row[j - 1];
        size_t *swap = prev;
        prev = row;
        row = swap;
    }
    if (prev && row) best = prev[m];
    free(prev);
    free(row);
    return best;
}

void lcsb__trust_diff(const char *old, size_t old_len, const char *now, size_t now_len,
                      lcsb__buf *out) {
    size_t na, nb;
    const char **a = lines_of(old, old_len, &na), **b = lines_of(now, now_len, &nb);
    if (!a || !b) {
        out->oom = true;
    } else {
        /* The lines both share at the start and at the end; what lies
         * between changed. */
        size_t head = 0, tail = 0;
        while (head < na && head < nb && same_line(a, head, b, head)) head++;
        while (tail < na - head && tail < nb - head &&
               same_line(a, na - 1 - tail, b, nb - 1 - tail))
            tail++;
        size_t lcs = common_lines(a, head, na - tail, b, head, nb - tail);
        size_t removed = na - head - tail - lcs, added = nb - head - tail - lcs;
        lcsb__buf_addf(out, "%zu line%s added, %zu removed", added, added == 1 ? "" : "s", removed);
        const char **from = added ? b : a;
        if (added || removed) {
            size_t len = (size_t)(from[head + 1] - from[head]);
            while (len > 0 && (from[head][len - 1] == '\n' || from[head][len - 1] == '\r')) len--;
            lcsb__buf_addf(out, "; first at line %zu: %s", head + 1, added ? "" : "(removed) ");
            lcsb__buf_add_escaped(out, from[head], len > 72 ? 72 : len);
            if (len > 72) lcsb__buf_adds(out, "...");
        }
    }
    free(a);
    free(b);
}

void lcsb__trust_changes(const char *old_sha256, const char *now, size_t now_len, lcsb__buf *out) {
    char store[PATH_MAX], kept[PATH_MAX + 96], real[PATH_MAX], sha256[LCSB__SHA256_HEX];
    char *old = NULL;
    size_t old_len = 0;
    lcsb_error ignored;
    if (lcsb__trust_store(store, sizeof store, &ignored) == 0) {
        snprintf(kept, sizeof kept, "%s/content/%s", store, old_sha256);
        if (lcsb__trust_read(kept, &old, &old_len, real, NULL, sha256, &ignored) == 0 &&
            strcmp(sha256, old_sha256) != 0) {
            free(old);
            old = NULL;
        }
    }
    if (!old) {
        lcsb__buf_addf(out, "the trusted content (sha256 %.12s) was not kept", old_sha256);
        return;
    }
    lcsb__trust_diff(old, old_len, now, now_len, out);
    free(old);
}

void lcsb__trust_add_time(lcsb__buf *out, time_t t) {
    struct tm tm;
    char text[32];
    if (localtime_r(&t, &tm) && strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm))
        lcsb__buf_adds(out, text);
    else
        lcsb__buf_adds(out, "(an unknown time)");
}

void lcsb__trust_new_summary(const char *now, size_t now_len, time_t changed, lcsb__buf *out) {
    size_t lines = 0;
    for (size_t i = 0; i < now_len; i++) lines += now[i] == '\n';
    if (now_len > 0 && now[now_len - 1] != '\n') lines++;
    lcsb__buf_addf(out, "%zu line%s, last changed ", lines, lines == 1 ? "" : "s");
    lcsb__trust_add_time(out, changed);
}

const char *lcsb__trust_shown(const char *path, char cwd[PATH_MAX]) {
    if (!getcwd(cwd, PATH_MAX) || strcmp(cwd, "/") == 0 || !lcsb__path_within(path, cwd) ||
        strcmp(path, cwd) == 0)
        return path;
    return path + strlen(cwd) + 1;
}

/* What one entry of the list says of the file F (ABSENT: looked for and
 * not found then), into E; nothing when it is as recorded. */
static void also_entry(lcsb__buf *e, const lcsb__trust_file *f, bool absent) {
    char cwd[PATH_MAX], real[PATH_MAX], sha256[LCSB__SHA256_HEX];
    char *data = NULL;
    size_t len;
    lcsb__file_seen seen;
    lcsb_error why;
    int rc = lcsb__trust_read(f->path, &data, &len, real, &seen, sha256, &why);
    int error = errno;
    const char *shown = lcsb__trust_shown(f->path, cwd);
    if (absent) {
        /* Still not there: nothing to say. */
        if (rc != 0 && (error == ENOENT || error == ENOTDIR)) return;
        lcsb__buf_adds(e, shown);
        if (rc != 0) {
            lcsb__buf_addf(e, " (new, and it cannot be read: %s)", strerror(error));
        } else {
            lcsb__buf_adds(e, " (new: ");
            lcsb__trust_new_summary(data, len, seen.st.st_ctime, e);
            lcsb__buf_adds(e, ")");
        }
    } else if (rc != 0) {
        lcsb__buf_addf(e, "%s (it cannot be read now: %s)", shown, strerror(error));
    } else if (lcsb__trust_by_location(f->path, real)) {
        /* Trusted where it is. */
    } else if (strcmp(real, f->real) != 0) {
        lcsb__buf_addf(e, "%s (it was %s, and is %s now)", shown, f->real, real);
    } else if (strcmp(sha256, f->sha256) != 0) {
        lcsb__buf_addf(e, "%s (", shown);
        lcsb__trust_changes(f->sha256, data, len, e);
        lcsb__buf_adds(e, "; last changed ");
        lcsb__trust_add_time(e, seen.st.st_ctime);
        lcsb__buf_adds(e, ")");
    }
    free(data);
}

void lcsb__trust_also(lcsb__buf *b, const lcsb__trust_record *record, const char *skip) {
    /* A refusal is one error message: what does not fit is counted, so the
     * user knows there is more to read than it says. */
    const size_t room = sizeof((lcsb_error *)0)->message - 32;
    size_t n = 0, more = 0;
    for (size_t i = 0; i < record->files.n + record->absent.n; i++) {
        bool absent = i >= record->files.n;
        const lcsb__trust_file *f =
            absent ? &record->absent.v[i - record->files.n] : &record->files.v[i];
        if (skip && strcmp(f->path, skip) == 0) continue;
        lcsb__buf e = {0};
        also_entry(&e, f, absent);
        b->oom |= e.oom;
        if (e.len > 0 && b->len + e.len + 48 > room) {
            more++;
        } else if (e.len > 0) {
            /* A sentence of its own after what B said. */
            bool ended = b->len > 0 && b->p[b->len - 1] == '.';
            lcsb__buf_adds(b, n++     ? "; "
                              : ended ? " Also new or changed since you trusted it: "
                                      : ". Also new or changed since you trusted it: ");
            lcsb__buf_add(b, e.p, e.len);
        }
        lcsb__buf_free(&e);
    }
    bool ended = b->len > 0 && b->p[b->len - 1] == '.';
    if (more && n)
        lcsb__buf_addf(b, "; and %zu more", more);
    else if (more)
        lcsb__buf_addf(b, "%sAlso %zu more file%s new or changed since you trusted it",
                       ended ? " " : ". ", more, more == 1 ? " is" : "s are");
    if (n || more) lcsb__buf_adds(b, ".");
}

int lcsb__trust_not_recorded(const char *path, const char *again, lcsb_error *err) {
    return lcsb__fail(err, LCSB_EUNTRUSTED,
                      "%s is not trusted, so lcsb ran none of it: a policy in a project can be "
                      "rewritten by the commands it confines. Read it, then run: %s%s",
                      path, again ? "" : "lcsb trust ", again ? again : path);
}

void lcsb__trust_refusal(lcsb__buf *b, const char *given, const char *again, const char *read,
                         const lcsb__trust_file *was, const char *real, const char *now,
                         size_t now_len) {
    bool moved = was && strcmp(was->real, real) != 0;
    if (!read)
        lcsb__buf_addf(b, "%s changed since you trusted it (", given);
    else if (was)
        lcsb__buf_addf(b, "%s reads %s, which changed since you trusted it (", given, read);
    else
        lcsb__buf_addf(b, "%s reads %s, which it did not read when you trusted it", given, read);
    if (moved)
        lcsb__buf_addf(b, "it was %s, and is %s now)", was->real, real);
    else if (was) {
        lcsb__trust_changes(was->sha256, now, now_len, b);
        lcsb__buf_adds(b, ")");
    }
    lcsb__buf_addf(b, "; %s. Read %s, then run: %s%s",
                   read ? "lcsb stopped the script before it read any of it"
                        : "lcsb ran none of it",
                   was ? "the change" : "it", again ? "" : "lcsb trust ", again ? again : given);
}

int lcsb__trust_verify(const char *path, const char **how, lcsb_error *err) {
    char script[PATH_MAX], named[PATH_MAX], real[PATH_MAX], sha256[LCSB__SHA256_HEX];
    if (!lcsb__trust_absolute(path, named) || !realpath(path, script))
        return lcsb__fail(err, LCSB_EINVAL, "cannot read policy script %s: %s", path,
                          strerror(errno));
    bool located = lcsb__trust_by_location(named, script);
    lcsb__trust_record record;
    int rc = lcsb__trust_load(named, &record, err);
    if (rc) return rc;
    if (record.files.n == 0 && !located) rc = lcsb__trust_not_recorded(path, NULL, err);
    for (size_t i = 0; !rc && i < record.files.n; i++) {
        const lcsb__trust_file *f = &record.files.v[i];
        char *data;
        size_t len;
        lcsb_error why;
        lcsb__buf b = {0};
        if (lcsb__trust_read(f->path, &data, &len, real, NULL, sha256, &why) != 0) {
            lcsb__buf_addf(&b,
                           "%s read %s when you trusted it, and it cannot be read now (%s); "
                           "lcsb ran none of it. Then run: lcsb trust %s",
                           path, f->path, why.message, path);
        } else if (strcmp(sha256, f->sha256) != 0 || strcmp(real, f->real) != 0) {
            lcsb__trust_refusal(&b, path, NULL, i == 0 ? NULL : f->path, f, real, data, len);
        }
        if (b.len) {
            lcsb__trust_also(&b, &record, f->path);
            rc = lcsb__fail(err, LCSB_EUNTRUSTED, "%s", b.oom ? "out of memory" : b.p);
        }
        lcsb__buf_free(&b);
        free(data);
    }
    lcsb__trust_record_clear(&record);
    if (!rc) *how = located ? "location" : "recorded";
    return rc;
}
