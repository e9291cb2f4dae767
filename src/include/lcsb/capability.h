/* Part of <lcsb.h>: the Capability, what this host can enforce, and the
 * calls that ask the host for it. Apart because it is the first impure step:
 * asking the kernel and the file system, which describing a policy never
 * does. A Capability is plain data the caller allocates: no pointers, copied
 * by assignment. */
#ifndef LCSB_PUBLIC_CAPABILITY_H
#define LCSB_PUBLIC_CAPABILITY_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/capability.h is one part of it"
#endif

typedef struct lcsb_capability {
    int landlock_abi;         /* 0: no Landlock */
    int landlock_abi_kernel;  /* the kernel's own, before LCSB_LANDLOCK_ABI_MAX lowered it */
    bool seccomp;             /* seccomp filters can be installed */
    bool user_namespaces;     /* unprivileged user namespaces can be created */
    bool mount_namespaces;    /* the shim can enter one: as root, or in a user namespace */
    bool sandbox_exec;        /* macOS sandbox-exec is present */
    char shim[4096];          /* the lcsb-exec the Landlock backend uses; "" when none found */
    bool shim_found;          /* shim names an executable file */
    char shim_searched[4096]; /* every place looked at, in order: "PATH (why); ..." */
    char oci_engine[4096];    /* podman or docker on PATH, or "" */
    /* The memory cgroup the shim can make below the one it runs in, for
     * limits.memory: 2 (cgroup v2, memory delegated to its children), 1
     * (cgroup v1's memory hierarchy, writable), 0: none. */
    int memory_cgroup;
    /* seccomp user notification: in a world of its own, the shim's init
     * sees every exec the command asks for, a static program's too, as
     * evidence for the hints (never enforcement). */
    bool seccomp_notify;
} lcsb_capability;

/* Asks the host what it can enforce and fills the caller's CAP with it
 * (every field: what is not found is zero); SHIM, when given, is copied into
 * CAP. SHIM is the lcsb-exec to use, or NULL for the installed one:
 * $LCSB_SHIM when set, else the one in the install the library sits in
 * (PREFIX/libexec/lcsb/lcsb-exec, found from the library's own file, so a
 * moved install finds its own), else the install path built in. A shim not
 * found is no failure here; selecting Landlock then fails naming every
 * place looked at (shim_searched). */
LCSB_API LCSB_NODISCARD int lcsb_detect(lcsb_capability *cap, const char *shim, lcsb_error *err);
/* Fills the caller's CAP as lcsb_detect does, asking only what running
 * POLICY under BACKEND (a name as lcsb_backend_select takes it; NULL: "auto")
 * needs; POLICY and BACKEND are only read. The memory cgroup only
 * when POLICY sets limits.memory, the container engine only for "oci".
 * What is not asked is zero. For a host that detects before each run: the
 * cgroup's answer alone reads /proc/self/mountinfo twice. */
LCSB_API LCSB_NODISCARD int lcsb_detect_for(lcsb_capability *cap, const char *shim,
                                            const lcsb_policy *policy, const char *backend,
                                            lcsb_error *err);
/* Returns CAP as a JSON object of its fields, named as above, which the
 * caller frees with free(). NULL on ENOMEM. */
LCSB_API char *lcsb_capability_json(const lcsb_capability *cap);

#endif
