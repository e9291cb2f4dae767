/* The checks every backend shares before anything runs (rule 8): the
 * policy's paths against the disk as it is now, and the final argv against
 * execve's limits. Impure (stat, realpath, sysconf). */
#include "validate.h"

#include "policy.h"
#include "sys.h"
#include "sysprefix.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* A path must name what it will grant: it exists, and no component is a
 * symlink. Landlock resolves a rule to the inode at the end of the path, so a
 * symlink left in a project by an earlier run would widen this run's grant to
 * wherever it points; the shim re-checks with RESOLVE_NO_SYMLINKS. */
static int check_real(const char *what, const char *path, lcsb__path_alias alias, lcsb_error *err) {
    char real[PATH_MAX], other[PATH_MAX + 16];
    if (!lcsb__realpath(path, real))
        return lcsb__fail(err, LCSB_EINVAL, "%s: %s: %s", what, path, strerror(errno));
    /* On macOS /tmp, /var and /etc lead into /private; Seatbelt's profile
     * names the /private form, so that one symlink is not a widening. */
    bool aliased = alias && alias(path, other) == 0 && strcmp(real, other) == 0;
    if (strcmp(real, path) != 0 && !aliased)
        return lcsb__fail(err, LCSB_EINVAL,
                          "%s: %s is reached through a symlink (it resolves to %s); name %s", what,
                          path, real, real);
    return 0;
}

/* Write access to a system prefix, or to a directory holding one, would
 * hand the command the system itself (running lcsb from "/" made the project
 * "/"); so would write access anywhere inside the system's own trees. */
static int check_write(const char *path, bool verified, lcsb__path_alias alias, lcsb_error *err) {
    int rc = verified ? 0 : check_real("write", path, alias, err);
    const char *prefix = rc ? NULL : lcsb__system_prefix_within(path);
    if (prefix)
        return lcsb__fail(err, LCSB_EINVAL,
                          "write: %s: refusing write access to a directory that is or contains "
                          "the system prefix %s",
                          path, prefix);
    const char *tree = rc ? NULL : lcsb__system_tree_of(path);
    if (tree)
        return lcsb__fail(err, LCSB_EINVAL,
                          "write: %s: refusing write access inside the system's own %s", path,
                          tree);
    return rc;
}

/* An exec entry must be a regular file or a directory that is no system prefix
 * and is not reached through a symlink (rule 3: a venv's bin/python linking to
 * /usr/bin/python3 must not turn into EXECUTE on /usr/bin). */
static int check_exec(const char *path, bool verified, lcsb__path_alias alias, lcsb_error *err) {
    struct stat st;
    if (verified) {
        /* A file, or a directory that must hold no system prefix. */
        const char *prefix = lcsb__system_prefix_within(path);
        return prefix ? lcsb__refuse_exec_dir(path, "EXECUTE", prefix, err) : 0;
    }
    if (lstat(path, &st) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s: %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return lcsb__fail(err, LCSB_EINVAL,
                          "exec: %s is a symlink; name the file it resolves to instead", path);
    int rc = check_real("exec", path, alias, err);
    if (rc) return rc;
    if (S_ISREG(st.st_mode)) return 0;
    if (!S_ISDIR(st.st_mode))
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s is neither a file nor a directory", path);
    const char *prefix = lcsb__system_prefix_within(path);
    return prefix ? lcsb__refuse_exec_dir(path, "EXECUTE", prefix, err) : 0;
}

int lcsb__check_env_listed(const lcsb_policy *policy, lcsb_error *err) {
    if (!lcsb__policy_has_env(policy) || policy->exec_open) return 0;
    for (size_t i = 0; i < policy->exec.n; i++)
        if (strcmp(policy->exec.v[i], LCSB__ENV_PROGRAM) == 0) return 0;
    return lcsb__fail(err, LCSB_EINVAL,
                      "exec: the env overlay%s runs %s, which the exec allowlist must name "
                      "(with its ELF interpreter)",
                      policy->env_n ? "" : " (net.domains' proxy variables)", LCSB__ENV_PROGRAM);
}

static bool known(const lcsb_policy *policy, const char *path) {
    return lcsb__policy_verified(policy, path) || lcsb__policy_private_at(policy, path);
}

int lcsb__validate_paths(const lcsb_policy *policy, bool check_exec_rules, lcsb__path_alias alias,
                         lcsb_error *err) {
    int rc = 0;
    /* The world makes a private directory fresh only where the command is
     * given it; one given no access of its own would be the host's
     * directory, seen through whatever tree holds it, while the policy
     * says fresh. */
    for (size_t i = 0; !rc && i < policy->priv_n; i++) {
        const char *path = policy->priv[i].path;
        if (!lcsb__policy_lists(policy, path))
            rc = lcsb__fail(err, LCSB_EINVAL,
                            "private: %s is none of the policy's paths, so the command would "
                            "see the host's directory there, not a fresh one; list it in write",
                            path);
    }
    /* A path the composition verified (policy.h) is real and there: what
     * is asked of it here is only what needs no disk. So is a private
     * directory's, which lcsb itself makes fresh when the run starts (in
     * the command's world, never on the host). */
    for (size_t i = 0; !rc && i < policy->read.n; i++)
        if (!known(policy, policy->read.v[i]))
            rc = check_real("read", policy->read.v[i], alias, err);
    for (size_t i = 0; !rc && i < policy->write.n; i++)
        rc = check_write(policy->write.v[i], known(policy, policy->write.v[i]), alias, err);
    for (size_t i = 0; !rc && check_exec_rules && i < policy->exec.n; i++)
        rc = check_exec(policy->exec.v[i], known(policy, policy->exec.v[i]), alias, err);
    for (size_t i = 0; !rc && i < policy->protect.n; i++)
        rc = check_real("protect", policy->protect.v[i], alias, err);
    /* A hidden path that does not exist is hidden already; one that does
     * must be named where it is, or the shim would cover a symlink. */
    struct stat hidden;
    for (size_t i = 0; !rc && i < policy->hide.n; i++)
        if (!lcsb__policy_verified(policy, policy->hide.v[i]) &&
            (lstat(policy->hide.v[i], &hidden) == 0 || errno != ENOENT))
            rc = check_real("hide", policy->hide.v[i], alias, err);
    struct stat st;
    if (!rc && policy->cwd && stat(policy->cwd, &st) != 0)
        rc = lcsb__fail(err, LCSB_EINVAL, "cwd: %s: %s", policy->cwd, strerror(errno));
    return rc;
}

/* FINAL must fit what execve takes: each string under 128 KiB (the wire
 * format splits), and all of them together under ARG_MAX, which the stack
 * limit sets. The environment shares that space. */
int lcsb__check_exec_size(const char *const *final, lcsb_error *err) {
    size_t total = 0, longest = 0;
    for (size_t i = 0; final[i]; i++) {
        size_t len = strlen(final[i]) + 1;
        if (len > longest) longest = len;
        total += len + sizeof(char *);
    }
    if (longest > 128u * 1024u)
        return lcsb__fail(
            err, LCSB_ETOOBIG,
            "the run needs an argv string of %zu bytes, more than the kernel's "
            "limit of 128 KiB for one (a huge env value or argument, or too many ports?)",
            longest);
    for (size_t i = 0; environ && environ[i]; i++) total += strlen(environ[i]) + 1 + sizeof(char *);
    long arg_max = sysconf(_SC_ARG_MAX);
    if (arg_max > 0 && total + 64 * 1024 > (size_t)arg_max)
        return lcsb__fail(err, LCSB_ETOOBIG,
                          "the run needs %zu bytes of argv and environment, more than this "
                          "host's limit of %ld (ARG_MAX, set by the stack size limit)",
                          total, arg_max);
    return 0;
}
