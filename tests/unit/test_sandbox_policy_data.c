/* The Policy as data: normalization, refusals, the env overlay, ports, copies,
 * the system-prefix check (rule 3), the size ceiling and the part names. Pure:
 * nothing here looks at the disk. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "internal.h"

#ifndef LCSB_SHIM_PATH
#error "build with -DLCSB_SHIM_PATH='\"/path/to/lcsb-exec\"'"
#endif

/* Adding PATH is refused with LCSB_EINVAL and a message holding EXPECT. */
static void refused(lcsb_tier tier, const char *path, const char *expect) {
    lcsb_policy *p = new_policy();
    lcsb_error err = {0};
    int rc = policy_add(p, tier, path, &err);
    assert_int_equal(rc, LCSB_EINVAL);
    assert_int_equal(err.code, LCSB_EINVAL);
    assert_contains(err.message, lcsb_tier_name(tier)); /* names which list it was for */
    assert_contains(err.message, expect);
    assert_int_equal(lcsb_policy_count(p, tier), 0); /* nothing half-added */
    lcsb_policy_free(p);
}

/* ---- normalization ---- */

static void test_normalize(void **state) {
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"/", "/"},
        {"//", "/"},
        {"///", "/"},
        {"/.", "/"},
        {"/./", "/"},
        {"/usr", "/usr"},
        {"/usr/", "/usr"},
        {"/usr//", "/usr"},
        {"//usr//bin//", "/usr/bin"},
        {"/usr/./bin", "/usr/bin"},
        {"/./usr/././bin/.", "/usr/bin"},
        {"/a/.b/..c/c../...", "/a/.b/..c/c../..."}, /* dot names that are not "." or ".." */
        {"/a b/ü/x\ty", "/a b/ü/x\ty"},             /* bytes other than '/' pass through */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lcsb_policy *p = new_policy();
        assert_string_equal(added(p, LCSB_TIER_READ, cases[i].in), cases[i].out);
        assert_string_equal(added(p, LCSB_TIER_WRITE, cases[i].in), cases[i].out);
        assert_string_equal(added(p, LCSB_TIER_EXEC, cases[i].in), cases[i].out);
        char out[PATH_MAX];
        assert_int_equal(lcsb__path_normalize("x", cases[i].in, out, NULL), 0);
        assert_string_equal(out, cases[i].out);
        lcsb_policy_free(p);
    }
}

static void test_normalize_keeps_order_and_copies(void **state) {
    (void)state;
    lcsb_policy *p = new_policy();
    char path[32] = "/srv/data";
    assert_string_equal(added(p, LCSB_TIER_READ, path), "/srv/data");
    path[1] = 'X'; /* the policy holds its own copy */
    assert_string_equal(lcsb_policy_path(p, LCSB_TIER_READ, 0), "/srv/data");
    assert_string_equal(added(p, LCSB_TIER_READ, "/etc/"), "/etc");
    assert_string_equal(added(p, LCSB_TIER_READ, "/srv/data"), "/srv/data"); /* twice is harmless */
    assert_int_equal(lcsb_policy_count(p, LCSB_TIER_READ), 3);
    assert_null(lcsb_policy_path(p, LCSB_TIER_READ, 3));
    assert_null(lcsb_policy_path(p, (lcsb_tier)LCSB_TIERS, 0)); /* no such tier */
    assert_int_equal(lcsb_policy_count(p, (lcsb_tier)LCSB_TIERS), 0);
    assert_int_equal(lcsb_policy_count(p, (lcsb_tier)-1), 0);
    assert_string_equal(lcsb_tier_name(LCSB_TIER_PROTECT), "protect");
    assert_null(lcsb_tier_name((lcsb_tier)LCSB_TIERS));
    assert_int_equal(lcsb_policy_count(p, LCSB_TIER_WRITE), 0);
    lcsb_policy_free(p);
}

/* ---- refusals ---- */

static void test_refuse_empty_and_relative(void **state) {
    (void)state;
    const lcsb_tier tiers[] = {LCSB_TIER_READ, LCSB_TIER_WRITE, LCSB_TIER_EXEC};
    for (size_t t = 0; t < 3; t++) {
        refused(tiers[t], "", "empty path");
        refused(tiers[t], NULL, "empty path");
        refused(tiers[t], "usr/bin", "usr/bin: not an absolute path");
        refused(tiers[t], ".", ".: not an absolute path");
        refused(tiers[t], "./usr", "not an absolute path");
        refused(tiers[t], "~/x", "~/x: not an absolute path");
        refused(tiers[t], " /usr", "not an absolute path");
    }
    lcsb_policy *p = new_policy();
    lcsb_error err = {0};
    assert_int_equal(lcsb_policy_set_cwd(p, "rel", &err), LCSB_EINVAL);
    assert_contains(err.message, "cwd");
    assert_null(lcsb_policy_cwd(p));
    assert_int_equal(lcsb_policy_set_cwd(p, "/srv//x/", &err), 0);
    assert_string_equal(lcsb_policy_cwd(p), "/srv/x");
    assert_int_equal(lcsb_policy_set_cwd(p, "/a/../b", &err), LCSB_EINVAL);
    assert_string_equal(lcsb_policy_cwd(p), "/srv/x"); /* a refusal keeps the old one */
    assert_int_equal(lcsb_policy_set_cwd(p, NULL, &err), 0);
    assert_null(lcsb_policy_cwd(p));
    lcsb_policy_free(p);
}

static void test_refuse_dotdot_anywhere(void **state) {
    (void)state;
    const char *paths[] = {"/..",
                           "/../",
                           "/../etc",
                           "/usr/..",
                           "/usr/../etc",
                           "/usr/bin/../..",
                           "/a/b/c/../../../../etc/shadow",
                           "//..//",
                           "/./.."};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        refused(LCSB_TIER_READ, paths[i], "\"..\" is not allowed");
        refused(LCSB_TIER_WRITE, paths[i], paths[i]); /* the message names the path as given */
        refused(LCSB_TIER_EXEC, paths[i], "\"..\"");
    }
}

static void test_refuse_too_long(void **state) {
    (void)state;
    /* One component of n bytes normalizes to n + 1 bytes; PATH_MAX counts the NUL. */
    char *path = malloc(PATH_MAX + 64);
    assert_non_null(path);
    path[0] = '/';
    memset(path + 1, 'a', PATH_MAX - 2);
    path[PATH_MAX - 1] = '\0'; /* strlen PATH_MAX - 1: fits with its NUL */
    lcsb_policy *p = new_policy();
    assert_int_equal(strlen(added(p, LCSB_TIER_READ, path)), PATH_MAX - 1);
    lcsb_policy_free(p);

    memset(path + 1, 'a', PATH_MAX - 1);
    path[PATH_MAX] = '\0'; /* strlen PATH_MAX: no room for the NUL */
    refused(LCSB_TIER_READ, path, "longer than");
    refused(LCSB_TIER_EXEC, path, "longer than");

    /* Many components, each short. */
    size_t len = 0;
    while (len < PATH_MAX + 40) len += (size_t)sprintf(path + len, "/dir");
    refused(LCSB_TIER_WRITE, path, "longer than 4096 bytes");

    /* Long only before normalization: what is stored is the normal form. */
    memset(path, '/', PATH_MAX + 10);
    strcpy(path + PATH_MAX + 10, "etc");
    p = new_policy();
    assert_string_equal(added(p, LCSB_TIER_READ, path), "/etc");
    lcsb_policy_free(p);
    free(path);
}

/* ---- env ---- */

static void test_env_names(void **state) {
    (void)state;
    lcsb_policy *p = new_policy();
    lcsb_error err = {0};
    assert_int_equal(lcsb_policy_set_env(p, "", "x", &err), LCSB_EINVAL);
    assert_contains(err.message, "env: \"\" is not a variable name");
    assert_int_equal(lcsb_policy_set_env(p, "A=B", "x", &err), LCSB_EINVAL);
    assert_contains(err.message, "\"A=B\"");
    assert_int_equal(lcsb_policy_set_env(p, "=", NULL, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_policy_set_env(p, "NAME=", "x", &err), LCSB_EINVAL);
    assert_int_equal(lcsb_policy_set_env(p, NULL, "x", &err), LCSB_EINVAL);
    assert_contains(err.message, "(null)");
    assert_false(lcsb__policy_has_env(p));
    assert_int_equal(p->env_n, 0);

    /* Set, unset, and the last call for a name wins, in order of first setting. */
    assert_int_equal(lcsb_policy_set_env(p, "CI", "1", &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "SECRET", NULL, &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "CI", "2", &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "EMPTY", "", &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "SECRET", "now-set", &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "CI", NULL, &err), 0);
    assert_true(lcsb__policy_has_env(p));
    assert_int_equal(p->env_n, 3);
    assert_string_equal(p->env[0].name, "CI");
    assert_null(p->env[0].value);
    assert_string_equal(p->env[1].name, "SECRET");
    assert_string_equal(p->env[1].value, "now-set");
    assert_string_equal(p->env[2].name, "EMPTY");
    assert_string_equal(p->env[2].value, "");
    /* Values may hold '=' and anything else. */
    assert_int_equal(lcsb_policy_set_env(p, "OPTS", "a=b c=d", &err), 0);
    assert_string_equal(p->env[3].value, "a=b c=d");
    /* Read back as recorded; VALUE may be NULL, and past the last is NULL. */
    const char *value = "stale";
    assert_int_equal(lcsb_policy_env_count(p), 4);
    assert_string_equal(lcsb_policy_env(p, 0, &value), "CI");
    assert_null(value);
    assert_string_equal(lcsb_policy_env(p, 3, &value), "OPTS");
    assert_string_equal(value, "a=b c=d");
    assert_string_equal(lcsb_policy_env(p, 1, NULL), "SECRET");
    assert_null(lcsb_policy_env(p, 4, &value));
    assert_null(value);
    lcsb_policy_free(p);
}

/* ---- network ---- */

static void test_ports(void **state) {
    (void)state;
    lcsb_policy *p = new_policy();
    lcsb_error err = {0};
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_DENY); /* the default */
    const long bad[] = {0, 65536, -1, -65535, 100000, LONG_MAX, LONG_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, bad[i], &err), LCSB_EINVAL);
        assert_contains(err.message, "net.connect");
        assert_contains(err.message, "1..65535");
        assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_BIND, bad[i], &err), LCSB_EINVAL);
        assert_contains(err.message, "net.bind");
    }
    char expect[64];
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 65536, &err), LCSB_EINVAL);
    snprintf(expect, sizeof expect, "port %d", 65536);
    assert_contains(err.message, expect);
    /* Refusals changed nothing. */
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_DENY);
    assert_int_equal(p->connect.n + p->bind.n, 0);

    /* The first accepted port switches a denying policy to ports. */
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, &err), 0);
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_PORTS);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 1, &err), 0);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_BIND, 65535, &err), 0);
    assert_int_equal(p->connect.n, 2);
    assert_int_equal(p->connect.v[0], 443);
    assert_int_equal(p->connect.v[1], 1);
    assert_int_equal(p->bind.n, 1);
    assert_int_equal(p->bind.v[0], 65535);
    /* Read back ascending and once each, whatever the order and repeats. */
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, &err), 0);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 80, &err), 0);
    assert_int_equal(lcsb_policy_port_count(p, LCSB_PORT_CONNECT), 3);
    assert_int_equal(lcsb_policy_port(p, LCSB_PORT_CONNECT, 0), 1);
    assert_int_equal(lcsb_policy_port(p, LCSB_PORT_CONNECT, 1), 80);
    assert_int_equal(lcsb_policy_port(p, LCSB_PORT_CONNECT, 2), 443);
    assert_int_equal(lcsb_policy_port(p, LCSB_PORT_CONNECT, 3), 0);
    assert_int_equal(lcsb_policy_port_count(p, LCSB_PORT_BIND), 1);
    assert_int_equal(lcsb_policy_port(p, LCSB_PORT_BIND, 0), 65535);
    lcsb_policy_free(p);
    p = new_policy();
    assert_int_equal(lcsb_policy_port_count(p, LCSB_PORT_BIND), 0);
    assert_int_equal(lcsb_policy_port(p, LCSB_PORT_BIND, 0), 0);
    lcsb_policy_free(p);

    /* A bind port switches too; an open network stays open. */
    p = new_policy();
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_BIND, 8080, &err), 0);
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_PORTS);
    lcsb_policy_free(p);
    p = new_policy();
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, &err), 0);
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_OPEN);
    lcsb_policy_set_net(p, LCSB_NET_DENY);
    assert_int_equal(lcsb_policy_net(p), LCSB_NET_DENY);
    lcsb_policy_free(p);
}

/* ---- copy and free ---- */

static void test_policy_copy_is_deep(void **state) {
    (void)state;
    lcsb_policy *p = new_policy();
    lcsb_error err = {0};
    added(p, LCSB_TIER_READ, "/usr");
    added(p, LCSB_TIER_READ, "/etc");
    added(p, LCSB_TIER_WRITE, "/srv/w");
    added(p, LCSB_TIER_EXEC, "/usr/bin/git");
    assert_int_equal(lcsb_policy_set_env(p, "CI", "1", &err), 0);
    assert_int_equal(lcsb_policy_set_env(p, "SECRET", NULL, &err), 0);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_CONNECT, 443, &err), 0);
    assert_int_equal(lcsb_policy_add_port(p, LCSB_PORT_BIND, 8080, &err), 0);
    assert_int_equal(lcsb_policy_set_cwd(p, "/srv/w", &err), 0);
    lcsb_policy_set_exec_open(p, true);

    lcsb_policy *c = lcsb_policy_copy(p);
    assert_non_null(c);
    assert_ptr_not_equal(c, p);
    const lcsb_tier tiers[] = {LCSB_TIER_READ, LCSB_TIER_WRITE, LCSB_TIER_EXEC};
    for (size_t t = 0; t < 3; t++) {
        assert_int_equal(lcsb_policy_count(c, tiers[t]), lcsb_policy_count(p, tiers[t]));
        for (size_t i = 0; i < lcsb_policy_count(p, tiers[t]); i++) {
            assert_string_equal(lcsb_policy_path(c, tiers[t], i), lcsb_policy_path(p, tiers[t], i));
            assert_ptr_not_equal(lcsb_policy_path(c, tiers[t], i),
                                 lcsb_policy_path(p, tiers[t], i));
        }
    }
    assert_int_equal(c->env_n, 2);
    assert_string_equal(c->env[0].name, "CI");
    assert_string_equal(c->env[0].value, "1");
    assert_ptr_not_equal(c->env[0].name, p->env[0].name);
    assert_ptr_not_equal(c->env[0].value, p->env[0].value);
    assert_string_equal(c->env[1].name, "SECRET");
    assert_null(c->env[1].value);
    assert_int_equal(c->connect.n, 1);
    assert_int_equal(c->connect.v[0], 443);
    assert_ptr_not_equal(c->connect.v, p->connect.v);
    assert_int_equal(c->bind.n, 1);
    assert_int_equal(c->bind.v[0], 8080);
    assert_int_equal(lcsb_policy_net(c), LCSB_NET_PORTS);
    assert_true(lcsb_policy_exec_open(c));
    assert_string_equal(lcsb_policy_cwd(c), "/srv/w");
    assert_ptr_not_equal(lcsb_policy_cwd(c), lcsb_policy_cwd(p));

    /* Changing or freeing the original leaves the copy alone. */
    added(p, LCSB_TIER_READ, "/opt");
    assert_int_equal(lcsb_policy_set_env(p, "CI", "changed", &err), 0);
    lcsb_policy_set_net(p, LCSB_NET_OPEN);
    lcsb_policy_set_exec_open(p, false);
    lcsb_policy_free(p);
    assert_int_equal(lcsb_policy_count(c, LCSB_TIER_READ), 2);
    assert_string_equal(c->env[0].value, "1");
    assert_int_equal(lcsb_policy_net(c), LCSB_NET_PORTS);
    assert_true(lcsb_policy_exec_open(c));

    /* The net mode is copied as it is, not re-derived from the ports. */
    lcsb_policy *o = new_policy();
    lcsb_policy_set_net(o, LCSB_NET_OPEN);
    assert_int_equal(lcsb_policy_add_port(o, LCSB_PORT_CONNECT, 22, &err), 0);
    lcsb_policy *oc = lcsb_policy_copy(o);
    assert_int_equal(lcsb_policy_net(oc), LCSB_NET_OPEN);
    lcsb_policy_free(o);
    lcsb_policy_free(oc);

    /* An empty policy copies to an empty, denying one. */
    lcsb_policy *e = new_policy();
    lcsb_policy *ec = lcsb_policy_copy(e);
    assert_non_null(ec);
    assert_int_equal(lcsb_policy_count(ec, LCSB_TIER_READ), 0);
    assert_int_equal(lcsb_policy_net(ec), LCSB_NET_DENY);
    assert_false(lcsb_policy_exec_open(ec));
    assert_null(lcsb_policy_cwd(ec));
    lcsb_policy_free(e);
    lcsb_policy_free(ec);
    lcsb_policy_free(c);
}

static void test_policy_free_null(void **state) {
    (void)state;
    lcsb_policy_free(NULL);
    lcsb_backend_free(NULL);
    lcsb_argv_free(NULL);
}

/* ---- rule 3: system prefixes ---- */

static void test_system_prefix(void **state) {
    (void)state;
    static const char *const refused_dirs[] = {
        "/",
        "/usr",
        "/usr/bin",
        "/usr/sbin",
        "/usr/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/lib/x86_64-linux-gnu",
        "/usr/local/lib/i386-linux-gnu",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/usr/local",
        "/usr/local/bin",
        "/usr/libexec",
        "/opt",
        "/opt/homebrew",
        "/opt/homebrew/bin",
        "/nix",
        "/nix/store",
        "/snap",
        "/snap/bin",
        "/run/current-system",
        "/System",
        "/Library",
        "/Applications",
        "/etc",
        "/home",
        "/root",
        "/tmp",
        "/var",
        "/var/tmp",
        "/usr/local/Cellar",
    };
    for (size_t i = 0; i < sizeof refused_dirs / sizeof refused_dirs[0]; i++) {
        const char *d = refused_dirs[i];
        const char *within = lcsb__system_prefix_within(d);
        if (!within) fail_msg("%s should be refused as a system prefix", d);
        assert_non_null(lcsb__system_prefix_within(d));
        /* What it names is D itself or lies beneath it. */
        size_t n = strlen(d);
        assert_true(strcmp(d, "/") == 0 ||
                    (strncmp(within, d, n) == 0 && (within[n] == '\0' || within[n] == '/')));
    }
    /* An ancestor of a prefix names the prefix it contains. */
    assert_string_equal(lcsb__system_prefix_within("/usr"), "/usr");
    assert_string_equal(lcsb__system_prefix_within("/nix"), "/nix");
    assert_string_equal(lcsb__system_prefix_within("/usr/lib/x86_64-linux-gnu"),
                        "/usr/lib/x86_64-linux-gnu");
    assert_non_null(lcsb__system_prefix_within("/run"));     /* holds /run/current-system */
    assert_non_null(lcsb__system_prefix_within("/var/lib")); /* holds /var/lib/snapd */
}

/* Beneath a prefix without containing one: a project's build tree, a
 * compiler's private libexec, a tool's own bin. Allowed lexically; the
 * symlink half of rule 3 is validation's job. */
static void test_system_prefix_allows_beneath(void **state) {
    (void)state;
    static const char *const allowed_dirs[] = {
        "/home/u/proj/build",
        "/usr/lib/gcc/x86_64-linux-gnu/12",
        "/opt/tool/bin",
        "/usr/libexec/gcc/x86_64-linux-gnu/12",
        "/usr/lib/jvm/java-17/bin",
        "/usr/lib/x86_64-linux-gnu/perl5",
        "/srv/ci/bin",
        "/usrx",
        "/optical",
        "/tmpfoo",
        "/usr/binaries",
        "/nix/storeroom",
        "/var/lib/app/bin",
        "/home/u",
    };
    for (size_t i = 0; i < sizeof allowed_dirs / sizeof allowed_dirs[0]; i++) {
        const char *within = lcsb__system_prefix_within(allowed_dirs[i]);
        if (within) fail_msg("%s refused as containing %s", allowed_dirs[i], within);
        assert_null(lcsb__system_prefix_within(allowed_dirs[i]));
    }
}

/* Wrap (pure) refuses an EXECUTE directory rule on a system prefix too, not
 * only validation; with the allowlist off there is no EXECUTE rule to refuse. */
static void test_wrap_refuses_system_prefix(void **state) {
    (void)state;
    lcsb_backend *b = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb_backend_landlock(7, LCSB_SHIM_PATH, &b, &err), 0);
    static const char *const argv[] = {"true", NULL};
    const char *dirs[] = {"/usr", "/usr/lib/x86_64-linux-gnu", "/", "/opt"};
    for (size_t i = 0; i < 4; i++) {
        lcsb_policy *p = new_policy();
        added(p, LCSB_TIER_EXEC, "/usr/bin/true");
        added(p, LCSB_TIER_EXEC, dirs[i]);
        char **out = NULL;
        memset(&err, 0, sizeof err);
        assert_int_equal(lcsb_backend_wrap(b, p, argv, &out, &err), LCSB_EINVAL);
        assert_null(out);
        assert_contains(err.message, dirs[i]);
        assert_contains(err.message, "system prefix");
        lcsb_policy_set_exec_open(p, true);
        assert_int_equal(lcsb_backend_wrap(b, p, argv, &out, &err), 0);
        lcsb_argv_free(out);
        lcsb_policy_free(p);
    }
    lcsb_backend_free(b);
}

/* A policy stops growing at LCSB_POLICY_BYTES_MAX, whichever adder fills it,
 * and a copy carries its count. */
static void test_policy_bytes_ceiling(void **state) {
    (void)state;
    char path[4000];
    memset(path, 'a', sizeof path - 1);
    path[0] = '/';
    path[sizeof path - 1] = '\0';
    lcsb_policy *p = new_policy();
    lcsb_error err = {0};
    size_t added = 0;
    int rc;
    while ((rc = lcsb_policy_add_read(p, path, &err)) == 0) added++;
    assert_int_equal(rc, LCSB_ETOOBIG);
    assert_contains(err.message, "64 MiB");
    assert_int_equal(added, LCSB_POLICY_BYTES_MAX / sizeof path);
    assert_int_equal(lcsb_policy_add_exec(p, path, &err), LCSB_ETOOBIG);
    assert_int_equal(lcsb_policy_set_env(p, "X", path, &err), LCSB_ETOOBIG);
    lcsb_policy *copy = lcsb_policy_copy(p);
    assert_non_null(copy);
    assert_int_equal(lcsb_policy_add_write(copy, path, &err), LCSB_ETOOBIG);
    assert_int_equal(lcsb_policy_count(copy, LCSB_TIER_READ), added);
    lcsb_policy_free(copy);
    lcsb_policy_free(p);
}

static void test_part_names(void **state) {
    (void)state;
    for (unsigned part = 1; part <= LCSB_PARTS_ALL; part <<= 1) {
        const char *name = lcsb_part_name(part);
        assert_non_null(name);
        assert_int_equal(lcsb_part_from_name(name), part);
    }
    assert_null(lcsb_part_name(0));
    assert_null(lcsb_part_name(LCSB_PART_NET | LCSB_PART_SCOPE));
    assert_null(lcsb_part_name(LCSB_PARTS_ALL + 1));
    assert_int_equal(lcsb_part_from_name("fs"), 0);
    assert_int_equal(lcsb_part_from_name(""), 0);
    assert_int_equal(lcsb_part_from_name(NULL), 0);
    lcsb_policy *p = new_policy();
    lcsb_policy_set_degradable(p, ~0u);
    assert_int_equal(lcsb_policy_degradable(p), LCSB_PARTS_ALL);
    lcsb_policy *copy = lcsb_policy_copy(p);
    assert_int_equal(lcsb_policy_degradable(copy), LCSB_PARTS_ALL);
    lcsb_policy_free(copy);
    lcsb_policy_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_normalize_keeps_order_and_copies),
        cmocka_unit_test(test_refuse_empty_and_relative),
        cmocka_unit_test(test_refuse_dotdot_anywhere),
        cmocka_unit_test(test_refuse_too_long),
        cmocka_unit_test(test_env_names),
        cmocka_unit_test(test_ports),
        cmocka_unit_test(test_policy_copy_is_deep),
        cmocka_unit_test(test_policy_free_null),
        cmocka_unit_test(test_system_prefix),
        cmocka_unit_test(test_system_prefix_allows_beneath),
        cmocka_unit_test(test_wrap_refuses_system_prefix),
        cmocka_unit_test(test_part_names),
        cmocka_unit_test(test_policy_bytes_ceiling),
    };
    return cmocka_run_group_tests_name("sandbox_policy_data", tests, NULL, NULL);
}
