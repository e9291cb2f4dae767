/* The OCI backend without an engine: the mount table, the engine's argv, the
 * attestation read back from it, and where the launcher prefix lands for
 * every backend. Pure but for the few constructor and validation cases that
 * look at the disk. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define PODMAN "/usr/bin/podman"
#define ROOTFS "/srv/root"
#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- helpers ---- */

#define OCI(b) ((lcsb__oci_backend *)(b))

static lcsb_policy *project_policy(void) {
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    const char *reads[] = {"/usr",
                           "/etc/passwd",
                           "/proc",
                           "/dev/urandom",
                           "/srv/data",
                           "/home/u/proj/docs",
                           "/usr/lib/x86_64-linux-gnu"};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
        assert_int_equal(lcsb_policy_add_read(p, reads[i], NULL), 0);
    const char *writes[] = {"/home/u/proj", "/tmp/lcsb-home.x", "/dev/null", "/srv/data/out"};
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++)
        assert_int_equal(lcsb_policy_add_write(p, writes[i], NULL), 0);
    assert_int_equal(lcsb_policy_add_exec(p, "/usr/bin/env", NULL), 0);
    assert_int_equal(lcsb_policy_add_exec(p, "/opt/tool/bin/tool", NULL), 0);
    assert_int_equal(lcsb_policy_add_protect(p, "/home/u/proj/.git/hooks", NULL), 0);
    assert_int_equal(lcsb_policy_set_cwd(p, "/home/u/proj", NULL), 0);
    assert_int_equal(lcsb_policy_set_env(p, "HOME", "/tmp/lcsb-home.x", NULL), 0);
    return p;
}

static lcsb_backend *oci_backend(const char *engine, const char *image, const char *rootfs,
                                 const char *const *args) {
    lcsb_oci_world world = {
        .engine = engine, .image = image, .rootfs = rootfs, .engine_args = args};
    lcsb_backend *b = NULL;
    lcsb_error err;
    if (lcsb_backend_oci(NULL, &world, &b, &err)) fail_msg("lcsb_backend_oci: %s", err.message);
    /* Fixed ids and host links, whoever runs the suite. */
    OCI(b)->uid = OCI(b)->gid = 0;
    lcsb__strv_clear(&OCI(b)->link_paths);
    lcsb__strv_clear(&OCI(b)->link_targets);
    return b;
}

static char **compose(const lcsb_backend *b, const lcsb_policy *p, const char *const *prefix,
                      const char *const *argv) {
    char **final = NULL;
    lcsb_error err;
    if (lcsb_compose(b, p, prefix, argv, &final, &err)) fail_msg("compose: %s", err.message);
    return final;
}

static long index_of(char **argv, const char *word) {
    for (long i = 0; argv[i]; i++)
        if (strcmp(argv[i], word) == 0) return i;
    return -1;
}

static void assert_has(char **argv, const char *word, bool want) {
    if ((index_of(argv, word) >= 0) != want)
        fail_msg("\"%s\" %s the argv", word, want ? "is missing from" : "is in");
}

/* ---- the mount table ---- */

static void assert_mounts(const lcsb_policy *p, bool image, const char *const *want) {
    lcsb__oci_mount *m = NULL;
    size_t n = 0;
    assert_int_equal(lcsb__oci_mounts(p, image, &m, &n), 0);
    char got[4096] = "", expected[4096] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s:%s ", m[i].path,
                 m[i].rw ? "rw" : "ro");
    for (size_t i = 0; want[i]; i++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s ", want[i]);
    lcsb__oci_mounts_free(m, n);
    assert_string_equal(got, expected);
}

static void test_mount_table(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    /* Parents before children; a read under any mount adds nothing; a
     * write path is always a mount, and a protected path under a writable
     * one goes on top, the directories between held by mounts of their own
     * (.git: renamed away, it would take the hooks with it); /dev and /proc
     * are the engine's. */
    assert_mounts(p, false,
                  ARGV("/etc/passwd:ro", "/home/u/proj:rw", "/home/u/proj/.git:rw",
                       "/home/u/proj/.git/hooks:ro", "/opt/tool/bin/tool:ro", "/srv/data:ro",
                       "/srv/data/out:rw", "/tmp/lcsb-home.x:rw", "/usr:ro"));
    /* An image brings its own system. */
    assert_mounts(p, true,
                  ARGV("/home/u/proj:rw", "/home/u/proj/.git:rw", "/home/u/proj/.git/hooks:ro",
                       "/opt/tool/bin/tool:ro", "/srv/data:ro", "/srv/data/out:rw",
                       "/tmp/lcsb-home.x:rw"));
    lcsb_policy_free(p);
}

static void test_mount_table_one_path_many_tiers(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    assert_int_equal(lcsb_policy_add_read(p, "/a", NULL), 0);
    assert_int_equal(lcsb_policy_add_write(p, "/a", NULL), 0);
    assert_int_equal(lcsb_policy_add_write(p, "/a/b", NULL), 0);
    assert_int_equal(lcsb_policy_add_protect(p, "/c", NULL), 0);
    assert_int_equal(lcsb_policy_add_write(p, "/c", NULL), 0);
    assert_int_equal(lcsb_policy_add_read(p, "/a-b", NULL), 0);
    /* The writable wins over the read, and every write path is a mount of
     * its own; a protected path that is also written stays read-only;
     * "/a-b" is no child of "/a". */
    assert_mounts(p, false, ARGV("/a:rw", "/a-b:ro", "/a/b:rw", "/c:ro"));
    lcsb_policy_free(p);
}

/* ---- the engine's argv ---- */

static void test_wrap_rootfs(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    lcsb_backend *b = oci_backend(PODMAN, NULL, ROOTFS, NULL);
    char **argv = compose(b, p, NULL, ARGV("make", "test"));
    assert_string_equal(argv[0], PODMAN);
    assert_string_equal(argv[1], "run");
    /* Non-recursive binds (",bind"): a mount beneath a read-only path must
     * not come along writable; the image's entrypoint reset. */
    const char *const must[] = {"--rm",
                                "--read-only",
                                "--cap-drop=all",
                                "--security-opt=no-new-privileges",
                                "--entrypoint=",
                                "--user=0:0",
                                "--network=none",
                                "--workdir=/home/u/proj",
                                "--volume=/home/u/proj:/home/u/proj:rw,bind",
                                "--volume=/home/u/proj/.git/hooks:/home/u/proj/.git/hooks:ro,bind",
                                "--volume=/usr:/usr:ro,bind",
                                NULL};
    for (size_t i = 0; must[i]; i++) assert_has(argv, must[i], true);
    assert_has(argv, "--userns=keep-id", false); /* root needs no mapping */
    /* The world, then the env overlay and the command: the seam rides inside. */
    long world = index_of(argv, "--rootfs");
    assert_true(world > 0);
    assert_string_equal(argv[world + 1], ROOTFS);
    assert_string_equal(argv[world + 2], "/usr/bin/env");
    assert_string_equal(argv[world + 3], "--");
    assert_string_equal(argv[world + 4], "HOME=/tmp/lcsb-home.x");
    assert_string_equal(argv[world + 5], "make");
    lcsb_argv_free(argv);

    /* The caller keeps their own id under rootless podman. */
    OCI(b)->uid = OCI(b)->gid = 1001;
    argv = compose(b, p, NULL, ARGV("make"));
    assert_has(argv, "--user=1001:1001", true);
    assert_has(argv, "--userns=keep-id", true);
    lcsb_argv_free(argv);

    /* On a merged /usr, /lib64 is the way to the ELF interpreter: made a
     * mount of what the table already shows, never of anything else. */
    assert_int_equal(lcsb__strv_push(&OCI(b)->link_paths, "/lib64"), 0);
    assert_int_equal(lcsb__strv_push(&OCI(b)->link_targets, "/usr/lib64"), 0);
    assert_int_equal(lcsb__strv_push(&OCI(b)->link_paths, "/bin"), 0);
    assert_int_equal(lcsb__strv_push(&OCI(b)->link_targets, "/opt/elsewhere/bin"), 0);
    argv = compose(b, p, NULL, ARGV("make"));
    assert_has(argv, "--volume=/usr/lib64:/lib64:ro,bind", true);
    assert_has(argv, "--volume=/opt/elsewhere/bin:/bin:ro,bind", false);
    lcsb_argv_free(argv);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

static void test_wrap_image_and_docker(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    lcsb_backend *b =
        oci_backend("/usr/bin/docker", "debian:12", NULL, ARGV("--memory=1g", "--env=CI=1"));
    OCI(b)->uid = OCI(b)->gid = 1001;
    char **argv = compose(b, p, NULL, ARGV("make"));
    assert_string_equal(argv[0], "/usr/bin/docker");
    assert_has(argv, "--network=none", false);   /* the engine's own network: open */
    assert_has(argv, "--userns=keep-id", false); /* podman's */
    assert_has(argv, "--mount=type=bind,src=/usr,dst=/usr,readonly,bind-recursive=disabled", false);
    assert_has(argv, "--mount=type=bind,src=/home/u/proj,dst=/home/u/proj,bind-recursive=disabled",
               true);
    assert_has(argv,
               "--mount=type=bind,src=/srv/data,dst=/srv/data,readonly,"
               "bind-recursive=disabled",
               true);
    assert_has(argv, "--entrypoint=", true);
    long image = index_of(argv, "debian:12");
    assert_true(image > 0);
    assert_string_equal(argv[image - 1], "--env=CI=1");
    assert_string_equal(argv[image - 2], "--memory=1g");
    assert_string_equal(argv[image + 1], "/usr/bin/env");
    lcsb_attestation att;
    lcsb_error err;
    if (lcsb_attest((const char *const *)argv, NULL, &att, &err)) fail_msg("%s", err.message);
    assert_string_equal(lcsb_attestation_value(&att, "backend"), "oci");
    assert_string_equal(lcsb_attestation_value(&att, "protected"), "readonly");
    lcsb_argv_free(argv);
    lcsb_backend_free(b);
    /* docker's --mount fields are comma-separated and quotable. */
    lcsb_policy *comma = project_policy();
    assert_int_equal(lcsb_policy_add_read(comma, "/srv/a,b", NULL), 0);
    b = oci_backend("/usr/bin/docker", "debian:12", NULL, NULL);
    char **final = NULL;
    assert_int_equal(lcsb_compose(b, comma, NULL, ARGV("make"), &final, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "/srv/a,b holds ','"));
    lcsb_backend_free(b);
    lcsb_policy_free(comma);

    /* docker has no rootfs mode. */
    b = oci_backend("/usr/bin/docker", NULL, ROOTFS, NULL);
    assert_int_equal(lcsb_compose(b, p, NULL, ARGV("make"), &final, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "rootfs"));
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* This process's environment, replaced by ENV (NAME=VALUE strings, which
 * must outlive the use) until restore_environ. */
extern char **environ;
static char **saved_environ;

static void use_environ(const char *const *env) {
    saved_environ = environ;
    environ = (char **)env;
}

static void restore_environ(void) { environ = saved_environ; }

/* The container gets the names the seam passes as --env=NAME, right after
 * the working directory, sorted; the engine copies each value from its own
 * environment, so no value is ever on the argv. */
static void test_wrap_passes_env_by_name(void **state) {
    (void)state;
    static const char *const env[] = {"PATH=/host/bin-value",
                                      "HOME=/home/u-value",
                                      "LANG=C.UTF-8",
                                      "LC_ALL=lc-value",
                                      "GITHUB_TOKEN=gh-value",
                                      "NPM_CONFIG_CACHE=cache-value",
                                      "NPM_CONFIG_TOKEN=npm-value",
                                      "SSH_AUTH_SOCK=/agent-value",
                                      "CI=ci-value",
                                      NULL};
    lcsb_policy *p = project_policy();
    assert_int_equal(lcsb_policy_pass_env(p, "GITHUB_TOKEN", NULL), 0);
    assert_int_equal(lcsb_policy_pass_env(p, "NPM_CONFIG_*", NULL), 0);
    const char *engines[] = {PODMAN, "/usr/bin/docker"};
    for (size_t e = 0; e < 2; e++) {
        lcsb_backend *b = oci_backend(engines[e], e ? "debian:12" : NULL, e ? NULL : ROOTFS, NULL);
        use_environ(env);
        char **argv = compose(b, p, NULL, ARGV("make"));
        restore_environ();
        long at = index_of(argv, "--workdir=/home/u/proj");
        assert_true(at > 0);
        static const char *const want[] = {"--env=GITHUB_TOKEN", "--env=LANG", "--env=LC_ALL",
                                           "--env=NPM_CONFIG_CACHE", NULL};
        for (size_t i = 0; want[i]; i++) assert_string_equal(argv[at + 1 + (long)i], want[i]);
        assert_true(strncmp(argv[at + 5], "--env=", 6) != 0);
        for (size_t i = 0; argv[i]; i++)
            if (strstr(argv[i], "-value")) fail_msg("a value on the argv: %s", argv[i]);
        /* lcsb writes it, so it is attested. */
        lcsb_attestation att;
        lcsb_error err;
        if (lcsb_attest((const char *const *)argv, NULL, &att, &err)) fail_msg("%s", err.message);
        lcsb_argv_free(argv);
        /* The backend's own wrap passes nothing: that is the seam's. */
        assert_int_equal(lcsb_backend_wrap(b, p, ARGV("make"), &argv, &err), 0);
        for (size_t i = 0; argv[i]; i++) assert_true(strncmp(argv[i], "--env=", 6) != 0);
        lcsb_argv_free(argv);
        lcsb_backend_free(b);
    }
    lcsb_policy_free(p);
}

static void test_ports_need_degrade(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, NULL), 0);
    lcsb_backend *b = oci_backend(PODMAN, NULL, ROOTFS, NULL);
    char **final = NULL;
    lcsb_error err;
    assert_int_equal(lcsb_compose(b, p, NULL, ARGV("curl"), &final, &err), LCSB_EUNAVAIL);
    assert_non_null(strstr(err.message, "degrade = { \"net\" }"));
    lcsb_policy_set_degradable(p, LCSB_PART_NET);
    final = compose(b, p, NULL, ARGV("curl"));
    assert_has(final, "--network=none", false);
    lcsb_attestation att;
    assert_int_equal(lcsb_attest((const char *const *) final, NULL, &att, &err), 0);
    assert_string_equal(lcsb_attestation_value(&att, "net"), "open");
    assert_int_equal(att.dropped, LCSB_PART_NET);
    lcsb_argv_free(final);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* Domains: the engine joins the network namespace lcsb made, by path; before
 * lcsb_run made one, a path no process has. Only rootful podman can. */
static void test_domains_join_lcsbs_network(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    lcsb_error err;
    assert_int_equal(lcsb_policy_add_domain(p, "registry.npmjs.org", &err), 0);
    lcsb_backend *b = oci_backend(PODMAN, NULL, ROOTFS, NULL);
    OCI(b)->uid = OCI(b)->gid = 0;
    char **final = compose(b, p, NULL, ARGV("npm", "ci"));
    assert_has(final, "--network=ns:/proc/0/ns/net", true);
    assert_has(final, "--network=none", false);
    assert_has(final, "HTTPS_PROXY=http://127.0.0.1:3128", true);
    lcsb_attestation att;
    assert_int_equal(lcsb_attest((const char *const *) final, NULL, &att, &err), 0);
    assert_string_equal(lcsb_attestation_value(&att, "net"), "domains");
    assert_string_equal(lcsb_attestation_value(&att, "net_by"), "namespace");
    lcsb_argv_free(final);
    p->netns = strdup("/proc/42/ns/net");
    final = compose(b, p, NULL, ARGV("npm", "ci"));
    assert_has(final, "--network=ns:/proc/42/ns/net", true);
    lcsb_argv_free(final);

    OCI(b)->uid = 1000;
    final = NULL;
    assert_int_equal(lcsb_compose(b, p, NULL, ARGV("npm"), &final, &err), LCSB_EUNAVAIL);
    assert_non_null(strstr(err.message, "this is rootless podman"));
    lcsb_backend_free(b);
    b = oci_backend("/usr/bin/docker", "debian:12", NULL, NULL);
    OCI(b)->uid = 0;
    assert_int_equal(lcsb_compose(b, p, NULL, ARGV("npm"), &final, &err), LCSB_EUNAVAIL);
    assert_non_null(strstr(err.message, "docker cannot be told one"));
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

static void test_bad_worlds_refused(void **state) {
    (void)state;
    const struct {
        lcsb_oci_world world;
        const char *says;
    } cases[] = {
        {{.engine = PODMAN}, "exactly one"},
        {{.engine = PODMAN, .image = "x", .rootfs = ROOTFS}, "exactly one"},
        {{.engine = PODMAN, .rootfs = "/"}, "the host's /"},
        {{.engine = PODMAN, .rootfs = "/usr"}, "the host's /usr"},
        {{.engine = PODMAN, .rootfs = "relative/root"}, "absolute"},
        {{.engine = PODMAN, .image = "--privileged"}, "option"},
        {{.engine = "/usr/bin/runc", .image = "x"}, "neither podman nor docker"},
        {{.engine = "bin/podman", .image = "x"}, "absolute path or a name"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--privileged")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--network=host")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--volume=/:/host")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--memory")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("-e", "A=1")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--label=lcsb.dropped=net")},
         "vouch"},
        /* --env=NAME and patterns copy the caller's environment in. */
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--env=AWS_SECRET")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--env=AWS*")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--env=A*=1")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--env==1")}, "vouch"},
        {{.engine = PODMAN, .image = "x", .engine_args = ARGV("--entrypoint=/bin/sh")}, "vouch"},
        /* podman reads a rootfs "DIR:O" as an overlay of DIR. */
        {{.engine = PODMAN, .rootfs = "/srv/other:O"}, "holds ':'"},
        /* An image read from a host path makes that path the world. */
        {{.engine = PODMAN, .image = "dir:/home/u/.ssh"}, "read from the host (dir:)"},
        {{.engine = PODMAN, .image = "oci-archive:/tmp/x.tar"}, "read from the host"},
        {{.engine = PODMAN, .image = "docker-archive:/tmp/x.tar"}, "read from the host"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lcsb_backend *b = NULL;
        lcsb_error err = {0};
        int rc = lcsb_backend_oci(NULL, &cases[i].world, &b, &err);
        if (rc != LCSB_EINVAL || !strstr(err.message, cases[i].says))
            fail_msg("case %zu: rc %d, \"%s\", expected \"%s\"", i, rc, err.message, cases[i].says);
        assert_null(b);
    }
}

static void test_select_needs_a_world(void **state) {
    (void)state;
    lcsb_capability cap = {0};
    lcsb_backend *b = NULL;
    lcsb_error err;
    assert_int_equal(lcsb_backend_select(&cap, "oci", &b, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "oci = { rootfs = DIR }"));
    assert_null(b);
}

static void test_validate_on_this_host(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    assert_int_equal(lcsb_policy_add_write(p, "/tmp", NULL), 0);
    assert_int_equal(lcsb_policy_set_cwd(p, "/tmp", NULL), 0);
    lcsb_error err;
    /* A missing engine is only found out here: argvs compose anywhere. */
    lcsb_backend *b = oci_backend("/nonexistent/podman", "x", NULL, NULL);
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EUNAVAIL);
    assert_non_null(strstr(err.message, "/nonexistent/podman was not found"));
    lcsb_backend_free(b);
    /* A rootfs must be a real directory (validation reads the disk; the
     * engine is whatever this host has, so only the rootfs is in question). */
    lcsb_oci_world world = {.rootfs = "/nonexistent-lcsb-root"};
    lcsb_capability cap = {0};
    snprintf(cap.oci_engine, sizeof cap.oci_engine, "/bin/sh-not-an-engine/podman");
    assert_int_equal(lcsb_backend_oci(&cap, &world, &b, &err), 0);
    OCI(b)->engine_found = true; /* as if it were there */
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "is not a directory"));
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

static void test_unmountable_paths_refused(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    assert_int_equal(lcsb_policy_add_read(p, "/srv/a:b", NULL), 0);
    lcsb_backend *b = oci_backend(PODMAN, NULL, ROOTFS, NULL);
    char **final = NULL;
    lcsb_error err;
    assert_int_equal(lcsb_compose(b, p, NULL, ARGV("true"), &final, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "/srv/a:b holds ':'"));
    lcsb_policy_free(p);
    /* No working directory: a container has none of the caller's. */
    p = lcsb_policy_new();
    assert_non_null(p);
    assert_int_equal(lcsb_compose(b, p, NULL, ARGV("true"), &final, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "no working directory"));
    lcsb_policy_free(p);
    lcsb_backend_free(b);
}

/* ---- the attestation ---- */

static void test_attest_reads_the_argv(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    lcsb_backend *b = oci_backend(PODMAN, NULL, ROOTFS, ARGV("--pids-limit=100"));
    char **final = compose(b, p, NULL, ARGV("sh", "-c", "true"));
    lcsb_attestation att;
    lcsb_error err;
    assert_int_equal(lcsb_attest((const char *const *) final, NULL, &att, &err), 0);
    assert_string_equal(lcsb_attestation_value(&att, "backend"), "oci");
    assert_string_equal(lcsb_attestation_value(&att, "fs"), "enforced");
    assert_string_equal(lcsb_attestation_value(&att, "exec"),
                        "open"); /* honestly: a container has no allowlist */
    assert_string_equal(lcsb_attestation_value(&att, "net"), "denied");
    assert_string_equal(lcsb_attestation_value(&att, "net_covers"), "all");
    assert_string_equal(lcsb_attestation_value(&att, "net_by"), "namespace");
    assert_string_equal(lcsb_attestation_value(&att, "metadata"), "readonly");
    assert_string_equal(lcsb_attestation_value(&att, "protected"), "readonly");
    assert_true(att.scoped);
    assert_int_equal(att.dropped, 0);
    char *json = lcsb_attestation_json(&att);
    assert_non_null(json);
    assert_string_equal(json, "{\"backend\":\"oci\",\"fs\":\"enforced\",\"exec\":\"open\","
                              "\"net\":\"denied\",\"net_covers\":\"all\",\"net_by\":\"namespace\","
                              "\"metadata\":\"readonly\",\"protected\":\"readonly\","
                              "\"scoped\":true,\"dropped\":[],\"world\":\"own\"}");
    free(json);
    char summary[256];
    lcsb_attestation_summary(&att, summary, sizeof summary);
    assert_string_equal(summary, "fs: enforced, exec: open, net: denied");
    lcsb_argv_free(final);

    /* What the command says after the world is its own: "--network=none"
     * there does not deny an open network. */
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    final = compose(b, p, NULL, ARGV("echo", "--network=none"));
    assert_int_equal(lcsb_attest((const char *const *) final, NULL, &att, &err), 0);
    assert_string_equal(lcsb_attestation_value(&att, "net"), "open");
    lcsb_argv_free(final);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* What every argv lcsb writes holds, and a weaker one must not be attested. */
#define OWN                                                                                        \
    "--read-only", "--cap-drop=all", "--security-opt=no-new-privileges",                           \
        "--entrypoint=", "--user=0:0"

static void test_attest_refuses_what_lcsb_does_not_write(void **state) {
    (void)state;
    const char *const *good = ARGV(PODMAN, "run", OWN, "--volume=/p:/p:rw,bind", "img", "true");
    lcsb_attestation att;
    lcsb_error err;
    if (lcsb_attest(good, NULL, &att, &err)) fail_msg("the baseline: %s", err.message);
    const char *const *bad[] = {
        ARGV(PODMAN, "run", OWN, "--privileged", "--rootfs", ROOTFS, "true"),
        ARGV(PODMAN, "run", OWN, "--volume=/x", "--rootfs", ROOTFS, "true"),
        ARGV(PODMAN, "run", OWN, "--label=lcsb.dropped=nothing", "img", "true"),
        /* --env=NAME is lcsb's own, but never a pattern, which would copy
         * the caller's secrets in. */
        ARGV(PODMAN, "run", OWN, "--env=AWS_*", "img", "true"),
        ARGV(PODMAN, "run", OWN, "--env=", "img", "true"),
        ARGV(PODMAN, "run", OWN),
        ARGV(PODMAN, "run", OWN, "-v", "/:/host", "img", "true"),
        /* A recursive bind, or a mount over the root. */
        ARGV(PODMAN, "run", OWN, "--volume=/p:/p:rw", "img", "true"),
        ARGV(PODMAN, "run", OWN, "--volume=/:/:rw,bind", "img", "true"),
        ARGV(PODMAN, "run", OWN, "--volume=/a:/b:c:ro,bind", "img", "true"),
        /* The host's root, a system tree, or docker, as the root. */
        ARGV(PODMAN, "run", OWN, "--rootfs", "/", "sh"),
        ARGV(PODMAN, "run", OWN, "--rootfs", "/usr", "sh"),
        ARGV("/usr/bin/docker", "run", OWN, "--rootfs", ROOTFS, "sh"),
        ARGV("/usr/bin/docker", "run", OWN, "--volume=/p:/p:rw,bind", "img", "true"),
        ARGV("/usr/bin/docker", "run", OWN, "--mount=type=bind,src=/p,dst=/p,readonly", "img",
             "true"),
        /* One of lcsb's own flags missing. */
        ARGV(PODMAN, "run", "--cap-drop=all", "--security-opt=no-new-privileges",
             "--entrypoint=", "--user=0:0", "img", "true"),
        ARGV(PODMAN, "run", "--read-only", "--security-opt=no-new-privileges",
             "--entrypoint=", "--user=0:0", "img", "true"),
        ARGV(PODMAN, "run", "--read-only", "--cap-drop=all", "--security-opt=no-new-privileges",
             "--user=0:0", "img", "true"),
        ARGV(PODMAN, "run", "--read-only", "--cap-drop=all", "--security-opt=no-new-privileges",
             "--entrypoint=", "img", "true"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (lcsb_attest(bad[i], NULL, &att, &err) != LCSB_EINVAL)
            fail_msg("case %zu was attested as %s", i, lcsb_attestation_value(&att, "backend"));
}

/* The engine runs unsandboxed: one the command could have written is refused. */
static void test_engine_must_be_trusted(void **state) {
    (void)state;
    char dir[] = "/tmp/lcsb-oci-engine.XXXXXX", engine[64];
    assert_non_null(mkdtemp(dir));
    snprintf(engine, sizeof engine, "%s/podman", dir);
    FILE *f = fopen(engine, "we");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(chmod(engine, 0755), 0);
    lcsb_policy *p = lcsb_policy_new();
    assert_non_null(p);
    assert_int_equal(lcsb_policy_set_cwd(p, "/tmp", NULL), 0);
    lcsb_backend *b = oci_backend(engine, "img", NULL, NULL);
    lcsb_error err;
    if (lcsb_backend_validate(b, p, &err)) fail_msg("a trusted engine: %s", err.message);
    assert_int_equal(lcsb_policy_add_write(p, dir, NULL), 0);
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "lies in the write tier"));
    lcsb_policy_free(p);
    p = lcsb_policy_new();
    assert_non_null(p);
    assert_int_equal(lcsb_policy_set_cwd(p, "/tmp", NULL), 0);
    assert_int_equal(chmod(engine, 0757), 0);
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "may be replaced by others"));
    assert_int_equal(chmod(engine, 0755), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    assert_int_equal(lcsb_backend_validate(b, p, &err), LCSB_EINVAL);
    assert_non_null(strstr(err.message, "may be replaced by others"));
    unlink(engine);
    rmdir(dir);
    lcsb_backend_free(b);
    lcsb_policy_free(p);
}

/* ---- the launcher prefix, for every backend (Seatbelt's too: it wraps anywhere) ---- */

static void test_prefix_placement_every_backend(void **state) {
    (void)state;
    lcsb_policy *p = project_policy();
    lcsb_policy_set_exec_open(p, true);
    const char *const *prefix = ARGV("uv", "run", "--");
    lcsb_backend *backends[4] = {NULL};
    assert_int_equal(lcsb_backend_landlock(7, "/opt/lcsb/libexec/lcsb-exec", &backends[0], NULL),
                     0);
    assert_int_equal(lcsb_backend_none(&backends[1], NULL), 0);
    backends[2] = oci_backend(PODMAN, NULL, ROOTFS, NULL);
    assert_int_equal(lcsb_backend_seatbelt(&backends[3], NULL), 0);
    for (size_t i = 0; i < 4; i++) {
        lcsb_backend *b = backends[i];
        char **final = compose(b, p, prefix, ARGV("pytest"));
        long uv = index_of(final, "uv");
        assert_true(uv >= 0);
        assert_string_equal(final[uv + 1], "run");
        assert_string_equal(final[uv + 2], "--");
        if (lcsb_backend_contains_prefix(b)) {
            /* Inside the container: after the world and the seam's env
             * overlay, which the launcher needs as much as the command. */
            assert_string_equal(lcsb_backend_name(b), "oci");
            long world = index_of(final, ROOTFS);
            assert_true(world > 0 && world < uv);
            assert_string_equal(final[world + 1], "/usr/bin/env");
            assert_string_equal(final[uv - 1], "HOME=/tmp/lcsb-home.x");
            assert_string_equal(final[uv + 3], "pytest");
        } else {
            /* Outside the host mechanism: first, in front of the shim. */
            assert_int_equal(uv, 0);
            if (strcmp(lcsb_backend_name(b), "landlock") == 0)
                assert_string_equal(final[3], "/opt/lcsb/libexec/lcsb-exec");
            if (strcmp(lcsb_backend_name(b), "seatbelt") == 0)
                assert_string_equal(final[3], "/usr/bin/sandbox-exec");
        }
        lcsb_attestation att;
        lcsb_error err;
        if (lcsb_attest((const char *const *) final, prefix, &att, &err))
            fail_msg("%s: %s", lcsb_backend_name(b), err.message);
        assert_string_equal(lcsb_attestation_value(&att, "backend"), lcsb_backend_name(b));
        /* A prefix that is not there is refused, inside or out. */
        assert_int_equal(
            lcsb_attest((const char *const *) final, ARGV("nix", "develop", "-c"), &att, &err),
            LCSB_EINVAL);
        lcsb_argv_free(final);
        lcsb_backend_free(b);
    }
    lcsb_policy_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mount_table),
        cmocka_unit_test(test_mount_table_one_path_many_tiers),
        cmocka_unit_test(test_wrap_rootfs),
        cmocka_unit_test(test_wrap_image_and_docker),
        cmocka_unit_test(test_wrap_passes_env_by_name),
        cmocka_unit_test(test_ports_need_degrade),
        cmocka_unit_test(test_domains_join_lcsbs_network),
        cmocka_unit_test(test_bad_worlds_refused),
        cmocka_unit_test(test_select_needs_a_world),
        cmocka_unit_test(test_validate_on_this_host),
        cmocka_unit_test(test_unmountable_paths_refused),
        cmocka_unit_test(test_attest_reads_the_argv),
        cmocka_unit_test(test_attest_refuses_what_lcsb_does_not_write),
        cmocka_unit_test(test_engine_must_be_trusted),
        cmocka_unit_test(test_prefix_placement_every_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
