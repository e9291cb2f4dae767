/* Part of <lcsb.h>: backends, one mechanism each (Landlock, Seatbelt, a
 * container engine, none), configured once, from a Capability or by hand,
 * and the check of a policy against one. Apart because a backend is what
 * turns a mechanism-free policy into one mechanism's terms; the argv it
 * makes is lcsb/compose.h.
 *
 * A backend is a handle the caller owns (freed with lcsb_backend_free). It
 * copies what it is configured with and keeps no pointer of the caller's, so
 * the Capability or world it came from may go as soon as it is made. */
#ifndef LCSB_PUBLIC_BACKEND_H
#define LCSB_PUBLIC_BACKEND_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/backend.h is one part of it"
#endif

typedef struct lcsb_backend lcsb_backend;

/* Makes the backend NAME configured from CAP into *OUT, which the caller
 * frees with lcsb_backend_free(); copies from CAP what it needs. NAME:
 * "auto", "landlock", "seatbelt", "oci" or "none". "auto" picks the
 * strongest mechanism present and never "none": with nothing present it fails
 * with LCSB_EUNAVAIL naming what it detected. */
LCSB_API LCSB_NODISCARD int lcsb_backend_select(const lcsb_capability *cap, const char *name,
                                                lcsb_backend **out, lcsb_error *err);
/* Makes a Landlock backend for ABI and SHIM (absolute; copied) into *OUT,
 * which the caller frees with lcsb_backend_free(), whatever this host has:
 * what tests and `lcsb wrap` use to produce argvs for other hosts. */
LCSB_API LCSB_NODISCARD int lcsb_backend_landlock(int abi, const char *shim, lcsb_backend **out,
                                                  lcsb_error *err);
/* Makes a Seatbelt backend (macOS sandbox-exec) into *OUT, which the caller
 * frees with lcsb_backend_free(), whatever this host has: the caller
 * vouches that /usr/bin/sandbox-exec exists where the argv will run. */
LCSB_API LCSB_NODISCARD int lcsb_backend_seatbelt(lcsb_backend **out, lcsb_error *err);
/* Makes the none backend into *OUT, which the caller frees with
 * lcsb_backend_free(): the same argv, everything attested open. */
LCSB_API LCSB_NODISCARD int lcsb_backend_none(lcsb_backend **out, lcsb_error *err);
/* A container's world, for the OCI backend: what the container starts from
 * (exactly one of IMAGE and ROOTFS) and the engine that runs it. The
 * caller's memory: its strings are the caller's, and lcsb_backend_oci copies
 * them. */
typedef struct lcsb_oci_world {
    /* podman or docker: an absolute path, a name looked up on PATH, or NULL
     * for the one lcsb_detect found. */
    const char *engine;
    /* An image name: the container's system is the image's own, so the
     * policy's read paths inside the system's trees (/usr, /etc, /lib, ...)
     * are not mounted from the host. */
    const char *image;
    /* An absolute directory used as the root (podman only). Every read path
     * is mounted into it, the system's read baseline included, so an empty
     * directory is a root. The engine creates mount points in it. */
    const char *rootfs;
    /* More `run` options (NULL-terminated, or NULL), each one word in the
     * --name=value form, from the few lcsb can vouch for (docs/policy.md):
     * --cpus, --memory, --pids-limit, --env, ...; nothing that mounts,
     * networks or privileges. */
    const char *const *engine_args;
} lcsb_oci_world;

/* Makes the OCI backend for WORLD into *OUT (NULL on failure), which the
 * caller frees with lcsb_backend_free(); copies WORLD's strings, and CAP's
 * engine when WORLD names none. Run by the caller's uid and gid (read here).
 * The engine must be podman or docker; a missing one is only refused by
 * validation (LCSB_EUNAVAIL), so argvs can be composed on any host.
 * lcsb_backend_select(cap, "oci") refuses: a container needs a world. */
LCSB_API LCSB_NODISCARD int lcsb_backend_oci(const lcsb_capability *cap,
                                             const lcsb_oci_world *world, lcsb_backend **out,
                                             lcsb_error *err);
/* Frees BACKEND and what it copied; NULL-safe. */
LCSB_API void lcsb_backend_free(lcsb_backend *backend);
/* Names BACKEND: "landlock", "none", ..., a static string. */
LCSB_API const char *lcsb_backend_name(const lcsb_backend *backend);
/* Says whether a launcher prefix rides inside BACKEND's mechanism
 * (containers). */
LCSB_API bool lcsb_backend_contains_prefix(const lcsb_backend *backend);
/* Checks POLICY against BACKEND and the host, before anything runs; both are
 * only read. Paths exist, exec rules are safe, the shim is executable, every
 * part of the policy is enforceable here or allowed to degrade (else
 * LCSB_EUNAVAIL naming it), the policy fits the kernel's argv limits.
 * lcsb_prepare with a probe command. */
LCSB_API LCSB_NODISCARD int lcsb_backend_validate(const lcsb_backend *backend,
                                                  const lcsb_policy *policy, lcsb_error *err);

#endif
