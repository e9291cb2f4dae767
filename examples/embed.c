/* embed: a host program that sandboxes a command through the C API.
 *
 *     embed DIR -- CMD [ARG...]
 *
 * The system is readable (all of /etc: exec_policy's baseline leaves its
 * secrets out, this small example does not), DIR is readable and writable
 * (the command runs there), only CMD and its interpreters may execute, and
 * there is no network.
 * Exits with the command's status, or 125 when nothing ran.
 *
 *     cc embed.c $(pkg-config --cflags --libs lcsb) -o embed */
#include <lcsb.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The host's system directories, by their real paths: a rule never names a
 * path through a symlink (/bin is one on a merged-/usr system). */
static const char *const system_read[] = {"/usr", "/bin", "/lib", "/lib64", "/etc", "/proc",
                                          "/dev/urandom", NULL};

static int fail(const lcsb_error *err) {
    fprintf(stderr, "embed: %s\n", err->message);
    return LCSB_EXIT_USAGE;
}

static int build_policy(lcsb_policy *p, const char *dir, const char *command, lcsb_error *err) {
    char real[PATH_MAX];
    for (size_t i = 0; system_read[i]; i++)
        if (realpath(system_read[i], real) && lcsb_policy_add_read(p, real, err)) return -1;
    if (!realpath(dir, real)) {
        snprintf(err->message, sizeof err->message, "%s: no such directory", dir);
        return -1;
    }
    if (lcsb_policy_add_write(p, real, err) || lcsb_policy_add_write(p, "/dev/null", err) ||
        lcsb_policy_set_cwd(p, real, err))
        return -1;
    /* The command and every interpreter it needs, as regular files. */
    char **files = NULL;
    if (lcsb_resolve_program(command, &files, err)) return -1;
    int rc = 0;
    for (size_t i = 0; files[i] && !rc; i++) rc = lcsb_policy_add_exec(p, files[i], err);
    lcsb_argv_free(files);
    lcsb_policy_set_net(p, LCSB_NET_DENY);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: embed DIR -- CMD [ARG...]\n");
        return LCSB_EXIT_USAGE;
    }
    lcsb_error err = {0};
    lcsb_capability cap;
    lcsb_backend *backend = NULL;
    lcsb_policy *policy = lcsb_policy_new();
    int status = LCSB_EXIT_USAGE;
    if (!policy) return LCSB_EXIT_USAGE;
    /* NULL: $LCSB_SHIM, else the shim of the install liblcsb sits in. */
    if (build_policy(policy, argv[1], argv[3], &err) || lcsb_detect(&cap, NULL, &err) ||
        lcsb_backend_select(&cap, "auto", &backend, &err)) {
        status = fail(&err);
        goto out;
    }
    lcsb_run_options opts;
    lcsb_run_result result;
    lcsb_run_options_init(&opts); /* stderr gets the trailer on a nonzero exit */
    if (lcsb_run(backend, policy, (const char *const *)&argv[3], &opts, &result, &err)) {
        status = fail(&err);
        goto out;
    }
    status = result.status;
out:
    lcsb_backend_free(backend);
    lcsb_policy_free(policy);
    return status;
}
