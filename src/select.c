/* Choosing a backend from the Capability: `auto` picks the strongest
 * mechanism the host has and never `none`; a name asks for one. */
#include "landlock.h"
#include "seatbelt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Why this host has no Landlock, as the kernel says it now ("" when it
 * has one, or it cannot be asked here). */
static const char *landlock_absent_why(void) {
#if defined(__linux__) && defined(__NR_landlock_create_ruleset)
    if (syscall(__NR_landlock_create_ruleset, NULL, 0, 1U /* the ABI version */) > 0) return "";
    if (errno == EOPNOTSUPP)
        return "; the kernel has Landlock but it is off (add landlock to the lsm= boot parameter)";
    if (errno == ENOSYS)
        return "; the kernel answers ENOSYS: built without Landlock, or run under a tool that "
               "does not know its system calls (valgrind)";
#endif
    return "";
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

static int select_landlock(const lcsb_capability *cap, bool asked, lcsb_backend **out,
                           lcsb_error *err) {
    if (cap->landlock_abi < 1) {
        char seen[2 * sizeof cap->shim + 256];
        describe(cap, seen, sizeof seen);
        return lcsb__fail(err, LCSB_EUNAVAIL, "%s: no Landlock here (detected: %s)%s",
                          asked ? "landlock" : "no sandbox mechanism available", seen,
                          cap->landlock_abi_kernel < 1 ? landlock_absent_why() : "");
    }
    if (!cap->shim_found && cap->shim[0])
        return lcsb__fail(err, LCSB_EUNAVAIL, "landlock: shim %s not found or not executable",
                          cap->shim);
    if (!cap->shim_found)
        return lcsb__fail(err, LCSB_EUNAVAIL,
                          "landlock: shim lcsb-exec not found or not executable, looked at: %s; "
                          "LCSB_SHIM=PATH names it",
                          cap->shim_searched[0] ? cap->shim_searched : "nothing");
    int abi =
        cap->landlock_abi > LCSB__LANDLOCK_ABI_MAX ? LCSB__LANDLOCK_ABI_MAX : cap->landlock_abi;
    return lcsb__landlock_new(abi, cap->shim, cap->seccomp, cap->user_namespaces,
                              cap->memory_cgroup, out, err);
}

int lcsb_backend_select(const lcsb_capability *cap, const char *name, lcsb_backend **out,
                        lcsb_error *err) {
    bool is_auto = !name || strcmp(name, "auto") == 0;
    /* Seatbelt is selected on any host, so that `lcsb wrap` prints its argv
     * anywhere; validate refuses to run it where sandbox-exec is missing. */
    if ((is_auto && cap->sandbox_exec) || (name && strcmp(name, "seatbelt") == 0))
        return lcsb__seatbelt_new(cap->sandbox_exec, out, err);
    if (is_auto || strcmp(name, "landlock") == 0) return select_landlock(cap, !is_auto, out, err);
    if (strcmp(name, "none") == 0) return lcsb_backend_none(out, err);
    if (strcmp(name, "oci") == 0)
        return lcsb__fail(err, LCSB_EINVAL,
                          "oci: a container needs a world: oci = { rootfs = DIR } or "
                          "oci = { image = NAME } in exec_policy (lcsb_backend_oci in C)");
    return lcsb__fail(err, LCSB_EINVAL,
                      "unknown backend \"%s\" (expected auto, landlock, seatbelt, oci or none)",
                      name);
}
