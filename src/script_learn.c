/* lcsb learn's two steps on a script: the policy the learning run runs
 * under (the script's, with every program allowed, held to the same caps),
 * and what that run says to add to the script (lua/lcsb/learn.lua), as a
 * report, a diff of the script, and the script rewritten when asked. Apart
 * from script_explain.c: explain words a run; learn changes a file, the one
 * the user trusted, and only while it is still the one lcsb ran. */
#include "script.h"

#include "caps_check.h"
#include "escape.h"
#include "sha256.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The most of a policy script learn reads to change. */
#define SCRIPT_TEXT_MAX (1 << 20)

static int pworld_env(lua_State *L) {
    int ref = (int)lua_tointeger(L, 1);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb.learn");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "world_env");
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_call(L, 1, 1);
    return 1;
}

/* What the learning world's environment adds (learn.world_env), into WIDE. */
static int learning_env(const lcsb_script *s, lcsb_policy *wide, lcsb_error *err) {
    lua_State *L = s->L;
    int top = lua_gettop(L), rc = 0;
    lua_pushcfunction(L, pworld_env);
    lua_pushinteger(L, s->result);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
        const char *msg = lua_tostring(L, -1);
        rc = lcsb__fail(err, LCSB_EINVAL, "learn: %s", msg ? msg : "(no environment)");
    }
    for (lua_pushnil(L); !rc && lua_next(L, -2) != 0; lua_pop(L, 1))
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING)
            rc = lcsb_policy_set_env(wide, lua_tostring(L, -2), lua_tostring(L, -1), err);
    lua_settop(L, top);
    return rc;
}

int lcsb_script_learning_policy(const lcsb_script *s, lcsb_policy **out, lcsb_error *err) {
    *out = NULL;
    if (!s || !s->policy || !s->L || s->result == LUA_NOREF)
        return lcsb__fail(err, LCSB_EINVAL, "learn: no policy script");
    lcsb_policy *wide = lcsb_policy_copy(s->policy);
    if (!wide) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    lcsb_policy_set_exec_open(wide, true);
    int rc = learning_env(s, wide, err);
    /* Widened as far as the caps allow, and no further: a cap on running
     * any program refuses learning as it would refuse exec = "any". */
    if (!rc) rc = lcsb__caps_check(s->caps, wide, s->loads.script_path, err);
    if (rc) {
        lcsb_policy_free(wide);
        return rc;
    }
    *out = wide;
    return 0;
}

/* The script's file as lcsb ran it: its directory held open (by a path
 * with no symlink on it, as its real path has none), its name there, and
 * the file's identity when read. Read and written through DIR, so that a
 * project swapped meanwhile for a link to another directory takes no write
 * of root's learning there. */
typedef struct script_file {
    int dir;
    char name[NAME_MAX + 1];
    struct stat st;
} script_file;

/* The script's text, read again through F and held to the digest the run
 * recorded, as the command may have changed the file since (a policy is
 * read-only only while a run lasts). */
static int script_text(const lcsb_script *s, script_file *f, char **text, size_t *len,
                       lcsb_error *err) {
    const lcsb__trust_file *ran = s->loads.read.n ? &s->loads.read.v[0] : NULL;
    if (!ran) return lcsb__fail(err, LCSB_EINVAL, "learn: lcsb does not know what the script was");
    const char *slash = strrchr(ran->real, '/');
    char dir[PATH_MAX];
    if (!slash || strlen(slash + 1) > NAME_MAX || slash - ran->real >= (ptrdiff_t)sizeof dir)
        return lcsb__fail(err, LCSB_EINVAL, "learn: %s: not a path lcsb can write", ran->real);
    snprintf(dir, sizeof dir, "%.*s", slash == ran->real ? 1 : (int)(slash - ran->real), ran->real);
    snprintf(f->name, sizeof f->name, "%s", slash + 1);
    struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                           .resolve = RESOLVE_NO_SYMLINKS};
    f->dir = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof how);
    if (f->dir < 0)
        return lcsb__fail(err, LCSB_EINVAL, "learn: cannot open %s again: %s", dir,
                          errno == ELOOP ? "a symlink is on its way now" : strerror(errno));
    lcsb__file_seen seen;
    if (lcsb__read_regular_at(f->dir, f->name, SCRIPT_TEXT_MAX, true, text, len, NULL, &seen) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "learn: cannot read %s again: %s", ran->real,
                          strerror(errno));
    f->st = seen.st;
    char digest[LCSB__SHA256_HEX];
    lcsb__sha256_of(*text, *len, digest);
    if (strcmp(digest, ran->sha256) != 0) {
        free(*text);
        *text = NULL;
        return lcsb__fail(err, LCSB_EUNTRUSTED,
                          "learn: %s changed since lcsb ran it; nothing is proposed for a script "
                          "lcsb did not run",
                          ran->real);
    }
    return 0;
}

/* A name beside F's file for the new one, not there yet; its descriptor. */
static int open_beside(const script_file *f, char *tmp, size_t size) {
    for (int tries = 0; tries < 16; tries++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
        snprintf(tmp, size, ".%.200s.lcsb-learn.%016llx", f->name, (unsigned long long)r);
        int fd = openat(f->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

/* TEXT (LEN bytes) over F's file, whole or not at all: written beside it
 * with its owner and mode, then renamed over it, in the directory read,
 * while its name there is still the file that was read. */
static int replace_file(const script_file *f, const char *text, size_t len, lcsb_error *err) {
    char tmp[NAME_MAX + 1];
    struct stat now;
    if (fstatat(f->dir, f->name, &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_dev != f->st.st_dev ||
        now.st_ino != f->st.st_ino)
        return lcsb__fail(err, LCSB_EUNTRUSTED,
                          "learn: %s was replaced while lcsb learned; it is left as it is",
                          f->name);
    int fd = open_beside(f, tmp, sizeof tmp);
    if (fd < 0) return lcsb__fail(err, LCSB_ESYS, "learn: beside %s: %s", f->name, strerror(errno));
    /* The file keeps its owner (root learning in a user's project) and
     * its mode; where it cannot keep them, it is not replaced. */
    bool ok = lcsb__write_all(fd, text, len) &&
              ((f->st.st_uid == geteuid() && f->st.st_gid == getegid()) ||
               fchown(fd, f->st.st_uid, f->st.st_gid) == 0) &&
              fchmod(fd, f->st.st_mode & 07777) == 0 && fsync(fd) == 0;
    int saved = errno;
    close(fd);
    if (!ok || renameat(f->dir, tmp, f->dir, f->name) != 0) {
        if (ok) saved = errno;
        unlinkat(f->dir, tmp, 0);
        return lcsb__fail(err, LCSB_ESYS, "learn: cannot write %s: %s", f->name, strerror(saved));
    }
    return 0;
}

typedef struct learn_args {
    const lcsb_script *s;
    const char *const *argv;
    const lcsb_run_result *result;
    const char *text;
    size_t len;
} learn_args;

static int plearn(lua_State *L) {
    const learn_args *a = lua_touserdata(L, 1);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lcsb.learn");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "propose");
    lcsb__push_evidence(L, a->argv, a->result, a->s->result, a->s->caps);
    lua_pushstring(L, a->s->loads.given ? a->s->loads.given : a->s->loads.script_path);
    lua_pushlstring(L, a->text, a->len);
    lua_call(L, 3, 1);
    return 1;
}

/* The string field KEY of the table on top, copied into *OUT (NULL when
 * there is none). */
static int take_string(lua_State *L, const char *key, char **out, size_t *len, lcsb_error *err) {
    *out = NULL;
    if (lcsb__raw_field(L, -1, key) == LUA_TSTRING) {
        const char *s = lua_tolstring(L, -1, len);
        if (!(*out = malloc(*len + 1))) {
            lua_pop(L, 1);
            return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
        }
        memcpy(*out, s, *len + 1);
    }
    lua_pop(L, 1);
    return 0;
}

int lcsb_script_learn(lcsb_script *s, const char *const *argv, const lcsb_run_result *result,
                      bool write, char ***report, char **diff, lcsb_error *err) {
    *report = NULL;
    *diff = NULL;
    if (!s || !s->L || s->result == LUA_NOREF)
        return lcsb__fail(err, LCSB_EINVAL, "learn: no policy script");
    learn_args a = {.s = s, .argv = argv, .result = result};
    char *source = NULL;
    script_file file = {.dir = -1};
    int rc = script_text(s, &file, &source, &a.len, err);
    if (rc) {
        if (file.dir >= 0) close(file.dir);
        return rc;
    }
    a.text = source;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, plearn);
    lua_pushlightuserdata(L, &a);
    char *changed = NULL;
    size_t changed_len = 0, diff_len = 0;
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
        const char *msg = lua_tostring(L, -1);
        rc = lcsb__fail(err, LCSB_EINVAL, "learn: %s", msg ? msg : "(no proposal)");
    } else if (!(rc = take_string(L, "text", &changed, &changed_len, err)) &&
               !(rc = take_string(L, "diff", diff, &diff_len, err))) {
        if (lcsb__raw_field(L, -1, "lines") == LUA_TTABLE)
            *report = lcsb__script_take_lines(L, false);
    }
    lua_settop(L, top);
    if (!rc && write && changed) rc = replace_file(&file, changed, changed_len, err);
    close(file.dir);
    free(changed);
    free(source);
    if (rc) {
        lcsb_argv_free(*report);
        free(*diff);
        *report = NULL;
        *diff = NULL;
    }
    return rc;
}
