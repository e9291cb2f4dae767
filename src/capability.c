/* Capability: what this host can enforce, and how it tells mounts apart.
 * This file holds the library's only platform branch; every other file is
 * mechanism-neutral. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

#ifndef LCSB_DEFAULT_SHIM
#define LCSB_DEFAULT_SHIM "/usr/local/libexec/lcsb/lcsb-exec"
#endif

bool lcsb__find_on_path(const char *name, char *out, size_t size) {
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len > 0 && path[0] == '/') {
            int n = snprintf(out, size, "%.*s/%s", (int)len, path, name);
            if (n > 0 && (size_t)n < size && access(out, X_OK) == 0) return true;
        }
        path += len + (end ? 1 : 0);
    }
    out[0] = '\0';
    return false;
}

#ifdef __linux__
static int read_int_file(const char *path, int fallback) {
    FILE *f = fopen(path, "re");
    int value = fallback;
    if (!f) return fallback;
    if (fscanf(f, "%d", &value) != 1) value = fallback;
    fclose(f);
    return value;
}

/* Does this process hold CAP_SYS_ADMIN (root in a container may not)? */
static bool can_admin(void) {
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective & (1u << CAP_SYS_ADMIN));
}

/* LCSB_LANDLOCK_ABI_MAX=N makes this host look older than it is, to try a
 * policy against an older kernel; it can only lower the ABI (0: no Landlock),
 * and a value that is not a small number is refused rather than ignored. */
static int abi_cap(int *out, lcsb_error *err) {
    const char *text = getenv("LCSB_LANDLOCK_ABI_MAX");
    *out = INT_MAX;
    if (!text) return 0;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (strspn(text, "0123456789") != strlen(text) || !*text || *end || errno || v > 1000)
        return lcsb__fail(err, LCSB_EINVAL,
                          "LCSB_LANDLOCK_ABI_MAX=\"%s\": expected a number from 0 (no Landlock) up",
                          text);
    *out = (int)v;
    return 0;
}
#endif

/* Is PATH absolute and already in normal form (no "//", ".", ".." or trailing
 * "/")? Then, with no symlink on the way, it is its own real path. */
static bool normal_form(const char *path) {
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

char *lcsb__realpath(const char *path, char *out) {
#ifdef __linux__
    /* One openat2 that refuses symlinks answers for most paths, where
     * realpath(3) asks readlink of every component. */
    if (normal_form(path) && strlen(path) < PATH_MAX) {
        struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
        int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
        if (fd >= 0) {
            close(fd);
            return strcpy(out, path);
        }
        if (errno == ENOENT || errno == ENOTDIR) return NULL;
    }
#endif
    return realpath(path, out);
}

int lcsb__mount_of(int fd, uint64_t *out) {
#ifdef __linux__
    /* A bind mount of the same file system shares its device number; only the
     * mount ID tells it apart. */
    struct statx stx;
    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) != 0) return -1;
    if (!(stx.stx_mask & STATX_MNT_ID)) {
        errno = ENOSYS;
        return -1;
    }
    *out = stx.stx_mnt_id;
#else
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    *out = (uint64_t)st.st_dev;
#endif
    return 0;
}

int lcsb_detect(lcsb_capability *cap, const char *shim, lcsb_error *err) {
    memset(cap, 0, sizeof *cap);
    const char *use = shim ? shim : LCSB_DEFAULT_SHIM;
    if (strlen(use) >= sizeof cap->shim)
        return lcsb__fail(err, LCSB_EINVAL, "detect: shim path too long");
    strcpy(cap->shim, use);
    cap->shim_found = use[0] == '/' && access(use, X_OK) == 0;
#ifdef __linux__
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    cap->landlock_abi = cap->landlock_abi_kernel = abi > 0 ? (int)abi : 0;
    int cap_abi, rc = abi_cap(&cap_abi, err);
    if (rc) return rc;
    if (cap_abi < cap->landlock_abi) cap->landlock_abi = cap_abi;
    cap->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
    cap->user_namespaces = read_int_file("/proc/sys/user/max_user_namespaces", 0) > 0 &&
                           read_int_file("/proc/sys/kernel/unprivileged_userns_clone", 1) != 0;
    cap->mount_namespaces = cap->user_namespaces || (geteuid() == 0 && can_admin());
#elif defined(__APPLE__)
    cap->sandbox_exec = access("/usr/bin/sandbox-exec", X_OK) == 0;
#endif
    if (!lcsb__find_on_path("podman", cap->oci_engine, sizeof cap->oci_engine))
        lcsb__find_on_path("docker", cap->oci_engine, sizeof cap->oci_engine);
    return 0;
}
