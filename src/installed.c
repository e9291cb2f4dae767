/* Where lcsb's own files are when the caller names none: the shim
 * (lcsb-exec) and the Lua files (lcsb/init.lua and the rest). Each is looked
 * for in one order:
 *   1. the environment's variable (LCSB_SHIM, LCSB_LUA_DIR): when set, the
 *      only place looked at, so that a mistake in it is never covered by
 *      another file that happens to be there;
 *   2. the install the library's own file sits in: from liblcsb.so in
 *      PREFIX/lib, core.so in PREFIX/lib/lua/5.4/lcsb or a program in
 *      PREFIX/bin, the prefix's libexec/lcsb/lcsb-exec and share/lua/5.4
 *      (as CMakeLists.txt lays them out), so that an install moved to
 *      another prefix finds its own;
 *   3. the install path built in.
 * A file elsewhere (a build tree) is in no install layout, and step 2 has
 * nothing to look at. Every place looked at is kept, so that "not found"
 * names them all. */
#include "installed.h"

#include "sys.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LCSB_DEFAULT_SHIM
#define LCSB_DEFAULT_SHIM "/usr/local/libexec/lcsb/lcsb-exec"
#endif
#ifndef LCSB_DEFAULT_LUA_DIR
#define LCSB_DEFAULT_LUA_DIR "/usr/local/share/lua/5.4"
#endif
/* The install layout, relative to the prefix; "" where the build gave a
 * directory as an absolute path, which no moved install can follow. */
#ifndef LCSB_LAYOUT_BINDIR
#define LCSB_LAYOUT_BINDIR "bin"
#define LCSB_LAYOUT_LIBDIR "lib"
#define LCSB_LAYOUT_MODULEDIR "lib/lua/5.4/lcsb"
#define LCSB_LAYOUT_SHIM "libexec/lcsb/lcsb-exec"
#define LCSB_LAYOUT_LUA_DIR "share/lua/5.4"
#endif

bool lcsb__installed_executable(const char *path) {
    struct stat st;
    return path[0] == '/' && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool has_init_lua(const char *dir) {
    char path[PATH_MAX];
    struct stat st;
    int n = snprintf(path, sizeof path, "%s/lcsb/init.lua", dir);
    return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, R_OK) == 0;
}

/* The prefix of the install SELF sits in, into PREFIX (PATH_MAX bytes; ""
 * for the root): false when SELF's directory is none of the install's. */
static bool prefix_of(const char *self, char *prefix) {
    static const char *const dirs[] = {LCSB_LAYOUT_LIBDIR, LCSB_LAYOUT_MODULEDIR,
                                       LCSB_LAYOUT_BINDIR};
    const char *slash = strrchr(self, '/');
    size_t n = slash ? (size_t)(slash - self) : 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        size_t m = strlen(dirs[i]);
        if (m == 0 || n <= m || self[n - m - 1] != '/' || strncmp(self + n - m, dirs[i], m) != 0)
            continue;
        memcpy(prefix, self, n - m - 1);
        prefix[n - m - 1] = '\0';
        return true;
    }
    return false;
}

/* One search: what it looks for, and the places it has looked at. */
typedef struct search {
    const char *env;      /* the variable that, set, is the only place */
    const char *layout;   /* relative to an install's prefix */
    const char *built_in; /* the install path built in */
    bool (*present)(const char *path);
    char *searched; /* "PATH (why); ..." */
    size_t size;
} search;

/* Note PATH as looked at, for WHY; is what is sought there? */
static bool look(search *s, const char *path, const char *why) {
    size_t len = strlen(s->searched);
    if (len < s->size)
        snprintf(s->searched + len, s->size - len, "%s%s (%s)", len ? "; " : "", path, why);
    return s->present(path);
}

/* The first place S finds what it seeks, into OUT (SIZE bytes); false, with
 * OUT "", when there is none. */
static bool find(search *s, char *out, size_t size) {
    s->searched[0] = out[0] = '\0';
    const char *given = getenv(s->env);
    const char *found = NULL;
    char self[PATH_MAX], prefix[PATH_MAX], beside[PATH_MAX + 64], why[PATH_MAX + 32];
    beside[0] = '\0';
    if (given && *given) {
        if (look(s, given, s->env)) found = given;
    } else {
        if (lcsb__self_path(self) && prefix_of(self, prefix) &&
            (size_t)snprintf(beside, sizeof beside, "%s/%s", prefix, s->layout) < sizeof beside) {
            snprintf(why, sizeof why, "the install of %s", self);
            if (look(s, beside, why)) found = beside;
        }
        if (!found && strcmp(beside, s->built_in) != 0 &&
            look(s, s->built_in, "the install path built in"))
            found = s->built_in;
    }
    if (!found || strlen(found) >= size) return false;
    memcpy(out, found, strlen(found) + 1);
    return true;
}

bool lcsb__installed_shim(char *path, char *searched, size_t size) {
    search s = {.env = LCSB__SHIM_ENV,
                .layout = LCSB_LAYOUT_SHIM,
                .built_in = LCSB_DEFAULT_SHIM,
                .present = lcsb__installed_executable,
                .searched = searched,
                .size = size};
    return find(&s, path, size);
}

int lcsb__installed_lua_dir(char *out, lcsb_error *err) {
    char searched[1024];
    search s = {.env = LCSB__LUA_DIR_ENV,
                .layout = LCSB_LAYOUT_LUA_DIR,
                .built_in = LCSB_DEFAULT_LUA_DIR,
                .present = has_init_lua,
                .searched = searched,
                .size = sizeof searched};
    if (find(&s, out, PATH_MAX)) return 0;
    return lcsb__fail(err, LCSB_EINVAL,
                      "lcsb's Lua files (lcsb/init.lua) not found, looked in: %s; lua_dir or "
                      "%s=DIR names their directory",
                      searched, LCSB__LUA_DIR_ENV);
}
