/* Paths as text: normalizing and comparing, never looking at the disk. */
#include "path.h"

#include <limits.h>
#include <string.h>

int lcsb__path_normalize(const char *what, const char *path, char *out, lcsb_error *err) {
    if (!path || !*path) return lcsb__fail(err, LCSB_EINVAL, "%s: empty path", what);
    if (path[0] != '/')
        return lcsb__fail(err, LCSB_EINVAL, "%s: %s: not an absolute path", what, path);
    size_t len = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/') p++;
        const char *start = p;
        while (*p && *p != '/') p++;
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == '.')) continue;
        if (n == 2 && start[0] == '.' && start[1] == '.')
            return lcsb__fail(err, LCSB_EINVAL, "%s: %s: \"..\" is not allowed in a path", what,
                              path);
        if (len + 1 + n >= PATH_MAX)
            return lcsb__fail(err, LCSB_EINVAL, "%s: path longer than %d bytes", what, PATH_MAX);
        out[len++] = '/';
        memcpy(out + len, start, n);
        len += n;
    }
    if (len == 0) out[len++] = '/';
    out[len] = '\0';
    return 0;
}

bool lcsb__path_is_normal(const char *path) {
    if (path[0] != '/') return false;
    if (path[1] == '\0') return true;
    for (const char *p = path; *p; p++) {
        if (*p != '/') continue;
        const char *next = p + 1;
        if (*next == '\0' || *next == '/') return false;
        if (next[0] == '.' && (next[1] == '/' || next[1] == '\0')) return false;
        if (next[0] == '.' && next[1] == '.' && (next[2] == '/' || next[2] == '\0')) return false;
    }
    return true;
}

bool lcsb__path_within(const char *path, const char *ancestor) {
    size_t n = strlen(ancestor);
    if (n == 1 && ancestor[0] == '/') return path[0] == '/';
    return strncmp(path, ancestor, n) == 0 && (path[n] == '/' || path[n] == '\0');
}
