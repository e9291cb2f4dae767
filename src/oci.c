/* The OCI backend: the policy as a container's world. The mount table holds
 * the policy's paths and nothing else of the host; the argv is `ENGINE run
 * OPTIONS... WORLD COMMAND...` for podman or docker. Everything but the
 * constructor and validation is pure. */
#include "oci.h"

#include "path.h"
#include "sys.h"
#include "sysprefix.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const lcsb__oci_backend *oci_of(const lcsb_backend *b) {
    return (const lcsb__oci_backend *)b;
}

/* ---- the mount table ---- */

enum kind { KIND_READ, KIND_WRITE, KIND_PROTECT }; /* a later kind wins for one path */

typedef struct candidate {
    const char *path;
    enum kind kind;
} candidate;

/* The engine gives the container its own /dev, /proc and /sys: the host's
 * device nodes (a terminal included) stay out. */
static bool engine_owned(const char *path) {
    return lcsb__path_within(path, "/dev") || lcsb__path_within(path, "/proc") ||
           lcsb__path_within(path, "/sys");
}

static int by_mount_path(const void *key, const void *elem) {
    return strcmp(key, ((const candidate *)elem)->path);
}

/* The nearest of KEPT (sorted) that is PATH's proper ancestor, or NULL.
 * Policy paths are normalized to under PATH_MAX (4096), so BUF holds any. */
static const candidate *nearest_ancestor(const char *path, const candidate *kept, size_t n) {
    char buf[4096];
    size_t len = strlen(path);
    if (len >= sizeof buf) return NULL;
    memcpy(buf, path, len + 1);
    while (len > 1) {
        char *slash = strrchr(buf, '/');
        if (!slash) break;
        *(slash == buf ? slash + 1 : slash) = '\0';
        const candidate *hit = bsearch(buf, kept, n, sizeof *kept, by_mount_path);
        if (hit) return hit;
        len = strlen(buf);
    }
    return NULL;
}

#define TIERS 5

int lcsb__oci_mounts(const lcsb_policy *policy, bool image_world, lcsb__oci_mount **out,
                     size_t *count) {
    *out = NULL;
    *count = 0;
    /* What holds the protected and hidden paths in place: mounts of their
     * own, as write paths are. */
    lcsb__strv pins = {0};
    int rc = lcsb__policy_pins(policy, &pins);
    /* Each tier sorted (not qsort: rule 1), then merged: every path once, in
     * order, with the strongest kind any tier gives it. */
    const lcsb__strv *tiers[TIERS] = {&policy->read, &policy->exec, &policy->write, &pins,
                                      &policy->protect};
    const enum kind kinds[TIERS] = {KIND_READ, KIND_READ, KIND_WRITE, KIND_WRITE, KIND_PROTECT};
    const char **sorted[TIERS] = {0};
    size_t n[TIERS] = {0}, at[TIERS] = {0}, total = 0;
    for (int t = 0; t < TIERS; t++) {
        if (!(sorted[t] = lcsb__strv_sorted_unique(tiers[t], &n[t]))) rc = LCSB_ENOMEM;
        total += n[t];
    }
    candidate *kept = rc ? NULL : calloc(total + 1, sizeof *kept);
    if (!kept) rc = LCSB_ENOMEM;
    size_t k = 0;
    for (;;) {
        if (rc) break;
        const char *next = NULL;
        for (int t = 0; t < TIERS; t++)
            if (at[t] < n[t] && (!next || strcmp(sorted[t][at[t]], next) < 0))
                next = sorted[t][at[t]];
        if (!next) break;
        enum kind kind = KIND_READ;
        for (int t = 0; t < TIERS; t++)
            if (at[t] < n[t] && strcmp(sorted[t][at[t]], next) == 0) {
                if (kinds[t] > kind) kind = kinds[t];
                at[t]++;
            }
        if (engine_owned(next)) continue;
        if (image_world && kind == KIND_READ && lcsb__system_tree_of(next)) continue;
        /* Landlock unions rights over ancestors; so does this table: a read
         * path under any mount adds nothing, and protection goes on top of a
         * writable one (a protected path with nothing above it is read like
         * any other). Every write path is a mount of its own, as in the
         * shim: a repository's .git then cannot be renamed away (EBUSY) and
         * replaced by one whose hooks nobody holds. */
        const candidate *up = nearest_ancestor(next, kept, k);
        bool under_rw = up && up->kind == KIND_WRITE;
        bool keep = kind == KIND_PROTECT ? under_rw || !up : kind == KIND_WRITE || !up;
        if (keep) kept[k++] = (candidate){next, kind};
    }
    lcsb__oci_mount *mounts = rc ? NULL : calloc(k + 1, sizeof *mounts);
    if (!rc && !mounts) rc = LCSB_ENOMEM;
    for (size_t i = 0; !rc && i < k; i++) {
        mounts[i] = (lcsb__oci_mount){strdup(kept[i].path), kept[i].kind == KIND_WRITE};
        if (!mounts[i].path) rc = LCSB_ENOMEM;
    }
    for (int t = 0; t < TIERS; t++) free(sorted[t]);
    free(kept);
    lcsb__strv_clear(&pins);
    if (rc) {
        lcsb__oci_mounts_free(mounts, k);
        return rc;
    }
    *out = mounts;
    *count = k;
    return 0;
}

void lcsb__oci_mounts_free(lcsb__oci_mount *mounts, size_t count) {
    for (size_t i = 0; mounts && i < count; i++) free(mounts[i].path);
    free(mounts);
}

/* ---- the engine's options ---- */

/* What a caller may add to `run`, in the --name=value form: resources,
 * names and the environment; nothing that mounts, networks, maps users or
 * grants privileges, so the attestation read from the argv stays true. */
static const char *const vouched_options[] = {
    "--cpus=",     "--memory=",   "--memory-swap=",  "--pids-limit=", "--ulimit=",
    "--shm-size=", "--hostname=", "--name=",         "--label=",      "--env=",
    "--pull=",     "--platform=", "--stop-timeout=", "--tz=",         NULL};

static bool vouched(const char *arg) {
    if (strncmp(arg, "--label=lcsb.", 13) == 0) return false; /* lcsb's own marks */
    /* --env=NAME alone, or a NAME* pattern, copies the caller's environment
     * in: only NAME=VALUE sets one. */
    if (strncmp(arg, "--env=", 6) == 0 &&
        (!strchr(arg + 6, '=') || arg[6] == '=' || strcspn(arg + 6, "*") < strcspn(arg + 6, "=")))
        return false;
    for (size_t i = 0; vouched_options[i]; i++)
        if (strncmp(arg, vouched_options[i], strlen(vouched_options[i])) == 0 &&
            arg[strlen(vouched_options[i])] != '\0')
            return true;
    return false;
}

static int check_engine_args(const lcsb__strv *args, lcsb_error *err) {
    for (size_t i = 0; i < args->n; i++)
        if (!vouched(args->v[i]))
            return lcsb__fail(err, LCSB_EINVAL,
                              "oci: engine argument \"%s\" is not one lcsb can vouch for; it "
                              "takes --cpus, --memory, --memory-swap, --pids-limit, --ulimit, "
                              "--shm-size, --hostname, --name, --label, --env, --pull, "
                              "--platform, --stop-timeout and --tz, each as --name=value "
                              "(--env as --env=NAME=VALUE)",
                              args->v[i]);
    return 0;
}

/* A network namespace lcsb made (net.domains), joined by its path; before
 * lcsb_run made one, a path no process has, so that the engine refuses to
 * start rather than join anything else. */
#define NETNS_OPTION "--network=ns:"
#define NO_NETNS "/proc/0/ns/net"

/* The label that carries what was dropped, for the attestation. */
#define DROPPED_LABEL "--label=lcsb.dropped="

/* A TCP port allowlist is no mount: the container gets the engine's own
 * network (open) only when the policy lets the network degrade. */
static int check_net(const lcsb__oci_backend *b, const lcsb_policy *policy, bool *dropped,
                     lcsb_error *err) {
    *dropped = false;
    /* The container joins a network namespace lcsb made, whose only way out
     * is lcsb's proxy: podman can be told one by path, and only a rootful
     * engine may join one that root made. */
    if (policy->net == LCSB_NET_DOMAINS && (!b->podman || b->uid != 0))
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "oci: net.domains puts the container in a network namespace lcsb "
                          "makes, which only rootful podman can join (%s); run it under "
                          "--backend landlock, or name the network as net = false or net = true",
                          b->podman ? "this is rootless podman" : "docker cannot be told one");
    if (policy->net != LCSB_NET_PORTS) return 0;
    if (!(policy->degradable & LCSB_PART_NET))
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "oci: a container cannot hold the network to TCP ports (only none or "
                          "all of it); to run with the network open, the policy must say "
                          "degrade = { \"net\" }");
    *dropped = true;
    return 0;
}

static int check_world(const lcsb__oci_backend *b, lcsb_error *err) {
    if (b->rootfs && !b->podman)
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: %s cannot start from a rootfs directory; use podman, or an image",
                          b->engine);
    return 0;
}

/* podman's --volume takes SRC:DST:OPTIONS (and a rootfs DIR:O is an
 * overlay), docker's --mount comma-separated, quotable fields: a path
 * holding one of those would be cut, or read as something else. */
static int check_mount_path(const lcsb__oci_backend *b, const char *path, lcsb_error *err) {
    const char *bad = b->podman ? ":" : ":,\"";
    size_t at = strcspn(path, bad);
    if (path[at])
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: %s holds '%c', which %s's mount syntax cannot carry", path,
                          path[at], b->podman ? "podman" : "docker");
    return 0;
}

/* A bind of PATH at DST that does not take the mounts beneath it along: a
 * recursive bind would keep a mount under a read-only path writable. */
static int add_mount(lcsb__strv *out, lcsb__buf *word, const lcsb__oci_backend *b, const char *src,
                     const char *dst, bool rw) {
    word->len = 0;
    if (b->podman)
        lcsb__buf_addf(word, "--volume=%s:%s:%s,bind", src, dst, rw ? "rw" : "ro");
    else
        lcsb__buf_addf(word, "--mount=type=bind,src=%s,dst=%s%s,bind-recursive=disabled", src, dst,
                       rw ? "" : ",readonly");
    return word->oom ? LCSB_ENOMEM : lcsb__strv_push(out, word->p);
}

/* What lcsb writes in every run's options, and the attestation requires:
 * the command in its own world, with no privileges and none of the image's
 * own entrypoint in front of it. */
static const char *const own_flags[] = {"--rm",
                                        "--interactive",
                                        "--read-only",
                                        "--cap-drop=all",
                                        "--security-opt=no-new-privileges",
                                        "--entrypoint=",
                                        NULL};
#define OWN_REQUIRED_FROM 2 /* --read-only onwards */

/* --env=NAME, lcsb's own form of the option: the engine copies NAME's value
 * from its own environment, so the value is never on the argv. A name with
 * a '*' would be read as a pattern: no such name is written or taken. */
#define ENV_OPTION "--env="

static bool own_env(const char *arg) {
    const char *name = arg + strlen(ENV_OPTION);
    return strncmp(arg, ENV_OPTION, strlen(ENV_OPTION)) == 0 && *name && !name[strcspn(name, "=*")];
}

/* What a container cannot hold before any mount is looked at: a rootfs
 * without podman, the network, no working directory, one the engine's mount
 * syntax cannot carry. */
static int check_policy(const lcsb__oci_backend *b, const lcsb_policy *policy, bool *net_dropped,
                        lcsb_error *err) {
    int rc = check_world(b, err);
    if (!rc) rc = check_net(b, policy, net_dropped, err);
    if (rc) return rc;
    if (!policy->cwd)
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: the policy names no working directory, and a container has "
                          "none of the caller's");
    return check_mount_path(b, policy->cwd, err);
}

/* The N MOUNTS' paths, each one the engine's syntax can carry, and no
 * limit: the engine has its own. */
static int check_mounts(const lcsb__oci_backend *b, const lcsb_policy *policy,
                        const lcsb__oci_mount *mounts, size_t n, lcsb_error *err) {
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) rc = check_mount_path(b, mounts[i].path, err);
    const char *limit = lcsb__policy_first_limit(policy);
    if (!rc && limit)
        rc = lcsb__fail(err, LCSB_EUNAVAIL,
                        "oci: limits.%s is the Landlock backend's; give the engine its own "
                        "(oci = { args = { \"--pids-limit=N\", \"--memory=B\" } })",
                        limit);
    return rc;
}

/* A hidden path inside a tree mounted from the host is masked (podman's
 * mask: an empty read-only file or directory on top); an image's own
 * trees hold none of the host's. The option into MASK. */
static int mask_hidden(const lcsb__oci_backend *b, const lcsb_policy *policy,
                       const lcsb__oci_mount *mounts, size_t n, lcsb__buf *mask, lcsb_error *err) {
    int rc = 0;
    for (size_t h = 0; !rc && h < policy->hide.n; h++) {
        const char *path = policy->hide.v[h];
        bool mounted = false;
        for (size_t i = 0; i < n; i++) mounted |= lcsb__path_within(path, mounts[i].path);
        if (!mounted) continue;
        if (!b->podman)
            rc = lcsb__fail(err, LCSB_EUNAVAIL,
                            "oci: cannot hide %s: %s has no way to mask a path; use podman, or an "
                            "image (oci = { image = ... })",
                            path, b->engine);
        else if (strchr(path, ':'))
            rc = lcsb__fail(err, LCSB_EINVAL, "oci: cannot hide %s: podman's mask splits at ':'",
                            path);
        else
            lcsb__buf_addf(mask, "%s%s", mask->len ? ":" : "--security-opt=mask=", path);
    }
    return rc;
}

/* The host's top-level symlinks into its system (/lib64 -> /usr/lib64),
 * each a mount of its target at the link: a root of bare mounts has none. */
static int add_link_mounts(lcsb__strv *out, lcsb__buf *word, const lcsb__oci_backend *b,
                           const lcsb__oci_mount *mounts, size_t n) {
    int rc = 0;
    for (size_t i = 0; !rc && i < b->link_paths.n; i++) {
        const char *link = b->link_paths.v[i], *target = b->link_targets.v[i];
        /* The link's target as a mount at the link: only what the table
         * already shows, and only where the table puts nothing itself. */
        bool shown = false, taken = false;
        for (size_t m = 0; m < n; m++) {
            shown |= !mounts[m].rw && lcsb__path_within(target, mounts[m].path);
            taken |=
                lcsb__path_within(mounts[m].path, link) || lcsb__path_within(link, mounts[m].path);
        }
        if (!shown || taken) continue;
        rc = add_mount(out, word, b, target, link, false);
    }
    return rc;
}

static int oci_wrap(const lcsb_backend *backend, const lcsb_policy *policy, const char *const *argv,
                    const char *const *env, lcsb__strv *out, lcsb_error *err) {
    const lcsb__oci_backend *b = oci_of(backend);
    bool net_dropped;
    int rc = check_policy(b, policy, &net_dropped, err);
    if (rc) return rc;
    lcsb__oci_mount *mounts = NULL;
    size_t n = 0;
    if (lcsb__oci_mounts(policy, b->image != NULL, &mounts, &n))
        return lcsb__fail(err, LCSB_ENOMEM, "oci: out of memory");
    rc = check_mounts(b, policy, mounts, n, err);
    lcsb__buf mask = {0};
    if (!rc) rc = mask_hidden(b, policy, mounts, n, &mask, err);
    lcsb__buf word = {0};
    /* Stdin stays open (--interactive) but no terminal is allocated: the
     * engine relays the streams, so the command never holds the caller's
     * terminal. */
    if (!rc && (lcsb__strv_push_all(out, (const char *const[]){b->engine, "run", NULL}) ||
                lcsb__strv_push_all(out, own_flags)))
        rc = LCSB_ENOMEM;
    lcsb__buf_addf(&word, "--user=%u:%u", b->uid, b->gid);
    if (!rc) rc = word.oom ? LCSB_ENOMEM : lcsb__strv_push(out, word.p);
    /* Rootless podman maps the caller to root in its user namespace unless
     * told to keep the caller's own id, which files written in the project
     * must carry. */
    if (!rc && b->podman && b->uid != 0) rc = lcsb__strv_push(out, "--userns=keep-id");
    if (!rc && policy->net == LCSB_NET_DENY) rc = lcsb__strv_push(out, "--network=none");
    if (!rc && policy->net == LCSB_NET_DOMAINS) {
        word.len = 0;
        lcsb__buf_addf(&word, "%s%s", NETNS_OPTION, policy->netns ? policy->netns : NO_NETNS);
        rc = word.oom ? LCSB_ENOMEM : lcsb__strv_push(out, word.p);
    }
    if (!rc && net_dropped) rc = lcsb__strv_push(out, DROPPED_LABEL "net");
    word.len = 0;
    lcsb__buf_addf(&word, "--workdir=%s", policy->cwd);
    if (!rc) rc = word.oom ? LCSB_ENOMEM : lcsb__strv_push(out, word.p);
    for (size_t i = 0; !rc && env && env[i]; i++) {
        word.len = 0;
        lcsb__buf_addf(&word, "%s%s", ENV_OPTION, env[i]);
        if (word.oom)
            rc = LCSB_ENOMEM;
        else if (own_env(word.p))
            rc = lcsb__strv_push(out, word.p);
    }
    if (!rc && mask.len) rc = mask.oom ? LCSB_ENOMEM : lcsb__strv_push(out, mask.p);
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_mount(out, &word, b, mounts[i].path, mounts[i].path, mounts[i].rw);
    if (!rc) rc = add_link_mounts(out, &word, b, mounts, n);
    if (!rc) rc = lcsb__strv_push_all(out, (const char *const *)b->engine_args.v);
    if (!rc && b->rootfs)
        rc = lcsb__strv_push_all(out, (const char *const[]){"--rootfs", b->rootfs, NULL});
    if (!rc && b->image) rc = lcsb__strv_push(out, b->image);
    if (!rc) rc = lcsb__strv_push_all(out, argv);
    if (rc == LCSB_ENOMEM || word.oom) rc = lcsb__fail(err, LCSB_ENOMEM, "oci: out of memory");
    lcsb__buf_free(&word);
    lcsb__buf_free(&mask);
    lcsb__oci_mounts_free(mounts, n);
    return rc;
}

/* The engine runs outside any sandbox, as the caller: one the command could
 * have put there (in the write tier, or where others may write) would run
 * whatever it wrote, unsandboxed, the next time. */
static int check_engine_trusted(const lcsb__oci_backend *b, const lcsb_policy *policy,
                                lcsb_error *err) {
    char real[4096], dir[4096];
    struct stat st, dst;
    if (!lcsb__realpath(b->engine, real) || stat(real, &st) != 0)
        return lcsb__fail(err, LCSB_EUNAVAIL, "oci: the container engine %s cannot be resolved",
                          b->engine);
    snprintf(dir, sizeof dir, "%s", real);
    *strrchr(dir, '/') = '\0';
    bool dir_ok = stat(dir[0] ? dir : "/", &dst) == 0 && !(dst.st_mode & (S_IWGRP | S_IWOTH));
    if ((st.st_uid != 0 && st.st_uid != getuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)) || !dir_ok)
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: the container engine %s (%s) may be replaced by others than root "
                          "and you (its owner or its directory's mode); lcsb will not run it",
                          b->engine, real);
    for (size_t i = 0; i < policy->write.n; i++)
        if (lcsb__path_within(real, policy->write.v[i]))
            return lcsb__fail(err, LCSB_EINVAL,
                              "oci: the container engine %s (%s) lies in the write tier (%s): "
                              "the command could replace it",
                              b->engine, real, policy->write.v[i]);
    return 0;
}

static int oci_validate(const lcsb_backend *backend, const lcsb_policy *policy, lcsb_error *err) {
    const lcsb__oci_backend *b = oci_of(backend);
    if (!b->engine_found)
        return lcsb__fail(err, LCSB_EUNAVAIL, "oci: the container engine %s was not found%s",
                          b->engine,
                          strchr(b->engine, '/') ? "" : " on PATH (install podman or docker)");
    bool dropped;
    int rc = check_world(b, err);
    if (!rc) rc = check_net(b, policy, &dropped, err);
    if (!rc && b->rootfs) {
        struct stat st;
        char real[4096];
        if (stat(b->rootfs, &st) != 0 || !S_ISDIR(st.st_mode))
            return lcsb__fail(err, LCSB_EINVAL, "oci: rootfs %s is not a directory", b->rootfs);
        if (!lcsb__realpath(b->rootfs, real) || strcmp(real, b->rootfs) != 0)
            return lcsb__fail(err, LCSB_EINVAL,
                              "oci: rootfs %s is reached through a symlink; name %s", b->rootfs,
                              real);
    }
    /* The exec tier is not enforced here (the attestation says exec: open);
     * its paths are only mounted, so they need to exist, not to be safe. */
    if (!rc) rc = lcsb__validate_paths(policy, false, NULL, err);
    return rc ? rc : check_engine_trusted(b, policy, err);
}

/* ---- configuration (impure: PATH, the caller's ids) ---- */

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool is_engine_name(const char *name) {
    return strcmp(name, "podman") == 0 || strcmp(name, "docker") == 0;
}

static int set_engine(lcsb__oci_backend *b, const lcsb_capability *cap, const char *engine,
                      lcsb_error *err) {
    char found[4096] = "";
    const char *use;
    if (!engine || !engine[0]) {
        use = cap && cap->oci_engine[0] ? cap->oci_engine : "podman";
    } else if (strchr(engine, '/')) {
        if (engine[0] != '/')
            return lcsb__fail(err, LCSB_EINVAL, "oci: engine %s: give an absolute path or a name",
                              engine);
        use = engine;
    } else {
        use = lcsb__find_on_path(engine, found, sizeof found) ? found : engine;
    }
    if (!is_engine_name(base_name(use)))
        return lcsb__fail(err, LCSB_EINVAL, "oci: engine %s is neither podman nor docker", use);
    b->podman = strcmp(base_name(use), "podman") == 0;
    b->engine_found = use[0] == '/' && access(use, X_OK) == 0;
    if (!(b->engine = strdup(use))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

static int set_world(lcsb__oci_backend *b, const lcsb_oci_world *world, lcsb_error *err) {
    bool image = world->image && world->image[0], rootfs = world->rootfs && world->rootfs[0];
    if (image == rootfs)
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: a container needs exactly one of an image and a rootfs directory");
    if (image && world->image[0] == '-')
        return lcsb__fail(err, LCSB_EINVAL, "oci: image \"%s\" would be taken for an option",
                          world->image);
    /* A transport that reads the image from a host path would make any
     * directory the container's world, past what the policy and the caps
     * say of paths. */
    static const char *const local[] = {
        "dir:", "oci:", "oci-archive:", "docker-archive:", "docker-daemon:", "containers-storage:"};
    for (size_t i = 0; image && i < sizeof local / sizeof *local; i++)
        if (strncmp(world->image, local[i], strlen(local[i])) == 0)
            return lcsb__fail(err, LCSB_EINVAL,
                              "oci: image \"%s\" is read from the host (%s): name an image of "
                              "a registry, or a directory as oci = { rootfs = DIR }",
                              world->image, local[i]);
    if (rootfs) {
        char norm[4096];
        int rc = lcsb__path_normalize("oci rootfs", world->rootfs, norm, err);
        if (rc) return rc;
        if (strchr(norm, ':'))
            return lcsb__fail(err, LCSB_EINVAL,
                              "oci: rootfs %s holds ':', which podman would read as options", norm);
        const char *prefix = lcsb__system_prefix_within(norm);
        if (prefix)
            return lcsb__fail(err, LCSB_EINVAL,
                              "oci: rootfs %s is or contains the host's %s; give a directory of "
                              "its own (an empty one will do)",
                              norm, prefix);
        if (!(b->rootfs = strdup(norm))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    } else if (!(b->image = strdup(world->image))) {
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    if (lcsb__strv_push_all(&b->engine_args, world->engine_args))
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return check_engine_args(&b->engine_args, err);
}

static int read_root_links(lcsb__oci_backend *b, lcsb_error *err) {
    static const char *const links[] = {"/bin",   "/sbin",   "/lib", "/lib32",
                                        "/lib64", "/libx32", NULL};
    for (size_t i = 0; links[i]; i++) {
        char target[4000], joined[4096], norm[4096];
        ssize_t len = readlink(links[i], target, sizeof target - 1);
        if (len <= 0) continue; /* not a symlink here */
        target[len] = '\0';
        snprintf(joined, sizeof joined, "%s%s", target[0] == '/' ? "" : "/", target);
        lcsb_error ignored;
        if (lcsb__path_normalize("link", joined, norm, &ignored) != 0) continue;
        if (lcsb__strv_push(&b->link_paths, links[i]) || lcsb__strv_push(&b->link_targets, norm))
            return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

int lcsb_backend_oci(const lcsb_capability *cap, const lcsb_oci_world *world, lcsb_backend **out,
                     lcsb_error *err) {
    *out = NULL;
    if (!world) return lcsb__fail(err, LCSB_EINVAL, "oci: no container world given");
    lcsb_backend *backend;
    int rc = lcsb__backend_new(&lcsb__oci_ops, sizeof(lcsb__oci_backend), &backend, err);
    if (rc) return rc;
    lcsb__oci_backend *b = (lcsb__oci_backend *)backend;
    b->uid = (unsigned)getuid();
    b->gid = (unsigned)getgid();
    rc = set_engine(b, cap, world->engine, err);
    if (!rc) rc = set_world(b, world, err);
    if (!rc && b->rootfs) rc = read_root_links(b, err);
    if (rc) {
        lcsb_backend_free(backend);
        return rc;
    }
    *out = backend;
    return 0;
}

/* ---- the attestation, read back from the argv ---- */

/* The options lcsb writes only where they apply. */
static const char *const own_optional[] = {"--userns=keep-id", "--network=none", NULL};
static const char *const own_valued[] = {
    "--user=", "--workdir=", "--security-opt=mask=", NETNS_OPTION, NULL};

static bool one_of(const char *arg, const char *const *words, bool as_prefix) {
    for (size_t i = 0; words[i]; i++)
        if (as_prefix ? strncmp(arg, words[i], strlen(words[i])) == 0 : strcmp(arg, words[i]) == 0)
            return true;
    return false;
}

static bool copy_span(const char *from, const char *to, char *out, size_t size) {
    size_t len = (size_t)(to - from);
    if (len == 0 || len >= size) return false;
    memcpy(out, from, len);
    out[len] = '\0';
    return true;
}

/* A mount as add_mount writes it: its destination into DST, and whether it
 * is writable. Any other shape (a recursive bind, a mount over the root) is
 * false: lcsb does not vouch for it. */
static bool read_mount(const char *arg, bool podman, char *dst, size_t size, bool *rw) {
    static const char podman_lead[] = "--volume=", docker_lead[] = "--mount=type=bind,src=";
    static const char docker_rw[] = ",bind-recursive=disabled",
                      docker_ro[] = ",readonly,bind-recursive=disabled";
    const char *lead = podman ? podman_lead : docker_lead;
    if (strncmp(arg, lead, strlen(lead)) != 0) return false;
    const char *src = arg + strlen(lead);
    if (podman) {
        const char *first = strchr(src, ':'), *last = strrchr(src, ':');
        if (!first || first == last || memchr(first + 1, ':', (size_t)(last - first - 1)))
            return false;
        if (strcmp(last, ":ro,bind") != 0 && strcmp(last, ":rw,bind") != 0) return false;
        *rw = last[1] == 'r' && last[2] == 'w';
        if (!copy_span(first + 1, last, dst, size)) return false;
    } else {
        const char *to = strstr(src, ",dst=");
        if (!to || to != strchr(src, ',')) return false;
        const char *end = strchr(to + 5, ',');
        if (!end || (strcmp(end, docker_rw) != 0 && strcmp(end, docker_ro) != 0)) return false;
        *rw = strcmp(end, docker_rw) == 0;
        if (!copy_span(to + 5, end, dst, size)) return false;
    }
    return dst[0] == '/' && dst[1] != '\0';
}

/* Past the env overlay the seam put in front of the command (which lcsb
 * writes before a launcher, so that the launcher gets HOME too). */
static size_t skip_env_overlay(const char *const *argv, size_t i) {
    if (!argv[i] || strcmp(argv[i], LCSB__ENV_PROGRAM) != 0) return i;
    size_t j = i + 1;
    while (argv[j] && argv[j + 1] && strcmp(argv[j], "-u") == 0) j += 2;
    if (!argv[j] || strcmp(argv[j], "--") != 0) return i;
    j++;
    while (argv[j] && strchr(argv[j], '=')) j++;
    return j;
}

/* ARGV is an engine's `run` (podman or docker), with PREFIX (may be NULL)
 * expected right after the world. */
/* What the engine's options say, as oci_attest reads them back. */
typedef struct engine_options {
    bool net_none, net_proxied, holds_protect, user;
    bool required[sizeof own_flags / sizeof own_flags[0]];
    unsigned dropped;
    /* LCSB_ENOMEM when a mount could not be kept: told only when nothing
     * else is wrong with the argv. */
    int rc;
} engine_options;

/* ARGV's options from *AT on, up to the world (or --rootfs), read into O,
 * *AT moved past them: 0, or -1 at the first one lcsb does not write (*AT
 * on it). */
static int read_options(const char *const *argv, bool podman, size_t *at, engine_options *o) {
    lcsb__strv writable = {0};
    size_t i = *at;
    int bad = 0;
    for (; argv[i] && strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i], "--rootfs") != 0; i++) {
        const char *arg = argv[i];
        for (size_t f = 0; own_flags[f]; f++) o->required[f] |= strcmp(arg, own_flags[f]) == 0;
        o->net_none |= strcmp(arg, "--network=none") == 0;
        o->net_proxied |= strncmp(arg, NETNS_OPTION, strlen(NETNS_OPTION)) == 0;
        o->user |= strncmp(arg, "--user=", 7) == 0;
        if (strncmp(arg, DROPPED_LABEL, strlen(DROPPED_LABEL)) == 0) {
            unsigned part = lcsb_part_from_name(arg + strlen(DROPPED_LABEL));
            if (!part) {
                bad = -1;
                break;
            }
            o->dropped |= part;
            continue;
        }
        char dst[4096];
        bool rw;
        if (read_mount(arg, podman, dst, sizeof dst, &rw)) {
            /* lcsb writes parents first: a read-only mount under a writable
             * one is a protected path. */
            for (size_t w = 0; !rw && w < writable.n; w++)
                o->holds_protect |= lcsb__path_within(dst, writable.v[w]);
            if (rw && lcsb__strv_push(&writable, dst)) o->rc = LCSB_ENOMEM;
            continue;
        }
        if (!one_of(arg, own_flags, false) && !one_of(arg, own_optional, false) &&
            !one_of(arg, own_valued, true) && !own_env(arg) && !vouched(arg)) {
            bad = -1;
            break;
        }
    }
    lcsb__strv_clear(&writable);
    *at = i;
    return bad;
}

static int oci_attest(const char *const *argv, const char *const *prefix, lcsb_attestation *out,
                      lcsb_error *err) {
    if (!argv || !argv[0] || !argv[1] || !is_engine_name(base_name(argv[0])) ||
        strcmp(argv[1], "run") != 0)
        return LCSB__NOT_MINE;
    bool podman = strcmp(base_name(argv[0]), "podman") == 0;
    engine_options o = {.rc = 0};
    const char *lacks = NULL;
    size_t i = 2;
    if (read_options(argv, podman, &i, &o)) goto malformed;
    for (size_t f = OWN_REQUIRED_FROM; own_flags[f] && !lacks; f++)
        if (!o.required[f]) lacks = own_flags[f];
    if (!lacks && !o.user) lacks = "--user=";
    if (lacks)
        return lcsb__fail(err, LCSB_EINVAL,
                          "attest: the engine's argv lacks %s, which lcsb always writes", lacks);
    if (argv[i] && strcmp(argv[i], "--rootfs") == 0) {
        /* Only podman has a rootfs mode; lcsb never makes the host's root,
         * or a tree holding a system directory, the container's. */
        i++;
        if (!podman || !argv[i] || argv[i][0] != '/' || lcsb__system_prefix_within(argv[i]))
            goto malformed;
    }
    if (!argv[i] || argv[i][0] == '-') goto malformed;
    i = skip_env_overlay(argv, i + 1); /* past the world */
    for (size_t p = 0; prefix && prefix[p]; p++, i++)
        if (!argv[i] || strcmp(argv[i], prefix[p]) != 0)
            return lcsb__fail(err, LCSB_EINVAL,
                              "attest: the container's command does not start with the prefix");
    if (o.rc) return lcsb__fail(err, o.rc, "attest: out of memory");
    bool net_none = o.net_none, net_proxied = o.net_proxied;
    *out = (lcsb_attestation){
        .backend = LCSB_MECHANISM_OCI,
        .fs = LCSB_FS_ENFORCED,
        /* A container runs whatever its world holds: no exec allowlist. */
        .exec = LCSB_EXEC_OPEN,
        .net = net_proxied ? LCSB_NET_DOMAINS
               : net_none  ? LCSB_NET_DENY
                           : LCSB_NET_OPEN,
        .net_covers = net_none || net_proxied ? LCSB_NET_COVERS_ALL : LCSB_NET_COVERS_NOTHING,
        .net_by = net_none || net_proxied ? LCSB_NET_BY_NAMESPACE : LCSB_NET_BY_NOTHING,
        /* Its own PID and network namespaces: signals and abstract unix
         * sockets reach nothing outside. */
        .scoped = true,
        .dropped = o.dropped,
        .metadata = LCSB_HELD_READONLY, /* --read-only, required */
        .protected_paths = o.holds_protect ? LCSB_HELD_READONLY : LCSB_HELD_NONE,
        .world = LCSB_HELD_OWN, /* the engine's namespaces; docs/threat-model.md */
    };
    return 0;
malformed:
    return lcsb__fail(err, LCSB_EINVAL,
                      "attest: the engine's argv holds \"%s\", which lcsb does not write",
                      argv[i] ? argv[i] : "(nothing where the world should be)");
}

static void oci_release(lcsb_backend *backend) {
    lcsb__oci_backend *b = (lcsb__oci_backend *)backend;
    free(b->engine);
    free(b->image);
    free(b->rootfs);
    lcsb__strv_clear(&b->engine_args);
    lcsb__strv_clear(&b->link_paths);
    lcsb__strv_clear(&b->link_targets);
}

const lcsb__backend_ops lcsb__oci_ops = {
    .name = "oci",
    .contains_prefix = true,
    .is_mechanism = true,
    .validate = oci_validate,
    .wrap = oci_wrap,
    .attest = oci_attest,
    .release = oci_release,
};
