/* Choosing and configuring a backend from the Capability, and the checks
 * every backend shares before anything runs (rule 8). */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int make_backend(const lcsb__backend_ops *ops, int abi, const char *shim,
                        lcsb_backend **out, lcsb_error *err) {
    lcsb_backend *b = calloc(1, sizeof *b);
    if (!b || !(b->shim = strdup(shim ? shim : ""))) {
        free(b);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    b->ops = ops;
    b->landlock_abi = abi;
    *out = b;
    return 0;
}

int lcsb_backend_landlock(int abi, const char *shim, lcsb_backend **out, lcsb_error *err) {
    if (abi < 1 || abi > LCSB__LANDLOCK_ABI_MAX)
        return lcsb__fail(err, LCSB_EINVAL, "landlock: ABI %d is not one lcsb knows (1..%d)",
                          abi, LCSB__LANDLOCK_ABI_MAX);
    if (!shim || shim[0] != '/')
        return lcsb__fail(err, LCSB_EINVAL, "landlock: the shim path must be absolute");
    int rc = make_backend(&lcsb__landlock_ops, abi, shim, out, err);
    /* Configured by hand: the caller vouches for the host, seccomp and
     * namespaces included. */
    if (!rc) (*out)->seccomp = (*out)->namespaces = true;
    return rc;
}

int lcsb_backend_seatbelt(lcsb_backend **out, lcsb_error *err) {
    int rc = make_backend(&lcsb__seatbelt_ops, 0, NULL, out, err);
    /* Configured by hand: the caller vouches for sandbox-exec. */
    if (!rc) (*out)->mechanism_present = true;
    return rc;
}

int lcsb_backend_none(lcsb_backend **out, lcsb_error *err) {
    return make_backend(&lcsb__unavailable_ops, 0, NULL, out, err);
}

static void describe(const lcsb_capability *cap, char *buf, size_t size) {
    char capped[96] = "";
    if (cap->landlock_abi != cap->landlock_abi_kernel)
        snprintf(capped, sizeof capped, " (lowered by LCSB_LANDLOCK_ABI_MAX; the kernel's is %d)",
                 cap->landlock_abi_kernel);
    snprintf(buf, size, "landlock ABI %d%s, shim %s%s, seccomp %s, sandbox-exec %s, engine %s",
             cap->landlock_abi, capped, cap->shim[0] ? cap->shim : "(none)",
             cap->shim_found ? "" : " (missing)", cap->seccomp ? "yes" : "no",
             cap->sandbox_exec ? "yes" : "no", cap->oci_engine[0] ? cap->oci_engine : "none");
}

int lcsb_backend_select(const lcsb_capability *cap, const char *name, lcsb_backend **out,
                        lcsb_error *err) {
    char seen[2 * sizeof cap->shim + 256];
    describe(cap, seen, sizeof seen);
    /* Seatbelt is selected on any host, so that `lcsb wrap` prints its argv
     * anywhere; validate refuses to run it where sandbox-exec is missing. */
    bool is_auto = !name || strcmp(name, "auto") == 0;
    if ((is_auto && cap->sandbox_exec) || (name && strcmp(name, "seatbelt") == 0)) {
        int rc = lcsb_backend_seatbelt(out, err);
        if (!rc) (*out)->mechanism_present = cap->sandbox_exec;
        return rc;
    }
    if (is_auto || strcmp(name, "landlock") == 0) {
        bool asked = name && strcmp(name, "landlock") == 0;
        if (cap->landlock_abi < 1)
            return lcsb__fail(err, LCSB_EUNAVAIL,
                              "%s: no Landlock here (detected: %s)",
                              asked ? "landlock" : "no sandbox mechanism available", seen);
        if (!cap->shim_found)
            return lcsb__fail(err, LCSB_EUNAVAIL, "landlock: shim %s not found or not executable",
                              cap->shim[0] ? cap->shim : "lcsb-exec");
        int abi = cap->landlock_abi > LCSB__LANDLOCK_ABI_MAX ? LCSB__LANDLOCK_ABI_MAX
                                                             : cap->landlock_abi;
        int rc = lcsb_backend_landlock(abi, cap->shim, out, err);
        if (!rc) {
            (*out)->seccomp = cap->seccomp;
            (*out)->namespaces = cap->mount_namespaces;
        }
        return rc;
    }
    if (strcmp(name, "none") == 0) return lcsb_backend_none(out, err);
    if (strcmp(name, "oci") == 0)
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: a container needs a world: oci = { rootfs = DIR } or "
                          "oci = { image = NAME } in exec_policy (lcsb_backend_oci in C)");
    return lcsb__fail(err, LCSB_EINVAL,
                      "unknown backend \"%s\" (expected auto, landlock, seatbelt, oci or none)",
                      name);
}

void lcsb_backend_free(lcsb_backend *b) {
    if (!b) return;
    free(b->shim);
    free(b->engine);
    free(b->image);
    free(b->rootfs);
    lcsb__strv_clear(&b->engine_args);
    lcsb__strv_clear(&b->link_paths);
    lcsb__strv_clear(&b->link_targets);
    free(b);
}

const char *lcsb_backend_name(const lcsb_backend *b) { return b->ops->name; }
bool lcsb_backend_contains_prefix(const lcsb_backend *b) { return b->ops->contains_prefix; }

/* A path must name what it will grant: it exists, and no component is a
 * symlink. Landlock resolves a rule to the inode at the end of the path, so a
 * symlink left in a project by an earlier run would widen this run's grant to
 * wherever it points; the shim re-checks with RESOLVE_NO_SYMLINKS. */
static int check_real(const char *what, const char *path, bool private_aliases,
                      lcsb_error *err) {
    char real[PATH_MAX], canon[LCSB__SEATBELT_PATH_MAX];
    if (!lcsb__realpath(path, real))
        return lcsb__fail(err, LCSB_EINVAL, "%s: %s: %s", what, path, strerror(errno));
    /* On macOS /tmp, /var and /etc lead into /private; Seatbelt's profile
     * names the /private form, so that one symlink is not a widening. */
    bool aliased = private_aliases && lcsb__seatbelt_canonical(path, canon) == 0 &&
                   strcmp(real, canon) == 0;
    if (strcmp(real, path) != 0 && !aliased)
        return lcsb__fail(err, LCSB_EINVAL,
                          "%s: %s is reached through a symlink (it resolves to %s); name %s",
                          what, path, real, real);
    return 0;
}

/* Write access to a system prefix, or to a directory holding one, would
 * hand the command the system itself (running lcsb from "/" made the project
 * "/"); so would write access anywhere inside the system's own trees. */
static int check_write(const char *path, bool private_aliases, lcsb_error *err) {
    int rc = check_real("write", path, private_aliases, err);
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
static int check_exec(const char *path, bool private_aliases, lcsb_error *err) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s: %s", path, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return lcsb__fail(err, LCSB_EINVAL,
                          "exec: %s is a symlink; name the file it resolves to instead", path);
    int rc = check_real("exec", path, private_aliases, err);
    if (rc) return rc;
    if (S_ISREG(st.st_mode)) return 0;
    if (!S_ISDIR(st.st_mode))
        return lcsb__fail(err, LCSB_EINVAL, "exec: %s is neither a file nor a directory", path);
    const char *prefix = lcsb__system_prefix_within(path);
    if (prefix)
        return lcsb__fail(err, LCSB_EINVAL,
                          "exec: %s: refusing EXECUTE on a directory that is or contains the "
                          "system prefix %s; name the programs instead",
                          path, prefix);
    return 0;
}

int lcsb__check_env_listed(const lcsb_policy *policy, lcsb_error *err) {
    if (!lcsb__policy_has_env(policy) || policy->exec_open) return 0;
    for (size_t i = 0; i < policy->exec.n; i++)
        if (strcmp(policy->exec.v[i], LCSB__ENV_PROGRAM) == 0) return 0;
    return lcsb__fail(err, LCSB_EINVAL,
                      "exec: the env overlay runs %s, which the exec allowlist must name "
                      "(with its ELF interpreter)",
                      LCSB__ENV_PROGRAM);
}

int lcsb__validate_paths(const lcsb_policy *policy, bool check_exec_rules, bool aliases,
                         lcsb_error *err) {
    int rc = 0;
    for (size_t i = 0; !rc && i < policy->read.n; i++)
        rc = check_real("read", policy->read.v[i], aliases, err);
    for (size_t i = 0; !rc && i < policy->write.n; i++)
        rc = check_write(policy->write.v[i], aliases, err);
    for (size_t i = 0; !rc && check_exec_rules && i < policy->exec.n; i++)
        rc = check_exec(policy->exec.v[i], aliases, err);
    for (size_t i = 0; !rc && i < policy->protect.n; i++)
        rc = check_real("protect", policy->protect.v[i], aliases, err);
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
        return lcsb__fail(err, LCSB_ETOOBIG,
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

int lcsb_backend_validate(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err) {
    static const char *const probe_argv[] = {"true", NULL};
    int rc = b->ops->validate(b, policy, err);
    if (rc) return rc;
    char **final = NULL;
    rc = lcsb_compose(b, policy, NULL, probe_argv, &final, err);
    if (!rc) rc = lcsb__check_exec_size((const char *const *)final, err);
    lcsb_argv_free(final);
    return rc;
}

int lcsb_backend_wrap(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
                      char ***out, lcsb_error *err) {
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command to wrap");
    lcsb__strv sv = {0};
    int rc = b->ops->wrap(b, policy, argv, &sv, err);
    if (rc) {
        lcsb__strv_clear(&sv);
        return rc;
    }
    if (!(*out = lcsb__strv_take(&sv))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}
