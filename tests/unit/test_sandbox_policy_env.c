/* The command's environment as data: which names look sensitive, how a pass
 * pattern matches, and which of a caller's variables the seam passes
 * (lcsb_env_passed) and spawns with (lcsb_env_block), for a host mechanism
 * and for a container. Pure: every caller environment here is the test's. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envname.h"
#include "helpers.h"
#include "internal.h"

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- the names ---- */

static void test_sensitive_names(void **state) {
    (void)state;
    static const char *const sensitive[] = {
        "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "CI_JOB_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
        "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "AWS_PROFILE",
        "AZURE_CLIENT_SECRET", "OPENAI_API_KEY", "APIKEY", "SIGNING_KEY", "DEPLOY_KEYS",
        "STRIPE_SECRET", "CLIENT_SECRET_FILE", "DB_PASSWORD", "PGPASSWORD", "PGPASSFILE",
        "MYSQL_PWD", "SMTP_PASS", "GIT_ASKPASS", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
        "DOCKER_AUTH_CONFIG", "NPM_CONFIG__AUTH", "BASIC_AUTH", "AUTHORIZATION", "GH_PAT",
        "SENTRY_DSN", "CI_JOB_JWT", "SESSION_COOKIE", "PRIVATE_REPO_URL", "SSH_AUTH_SOCK",
        "SSH_AGENT_PID", "GPG_AGENT_INFO", "VAULT_ADDR", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
        "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "XDG_RUNTIME_DIR", "DOCKER_HOST",
        "CONTAINER_HOST", "KUBECONFIG", "KRB5CCNAME", "NETRC", "DATABASE_URL",
        "GNOME_KEYRING_CONTROL",
        /* A review's finds: vault sessions, passwords by short names, a
         * key file, a webhook. */
        "BW_SESSION", "OP_SESSION_my", "DB_PWD", "LDAP_BIND_PW", "GOOGLE_CLOUD_KEYFILE_JSON",
        "SLACK_WEBHOOK_URL",
        /* Without regard to case. */
        "github_token", "Aws_Secret_Access_Key", "display", NULL};
    static const char *const plain[] = {"PATH",
                                        "LANG",
                                        "LANGUAGE",
                                        "LC_ALL",
                                        "LC_CTYPE",
                                        "TERM",
                                        "COLORTERM",
                                        "NO_COLOR",
                                        "TZ",
                                        "USER",
                                        "LOGNAME",
                                        "SHELL",
                                        "COLUMNS",
                                        "LINES",
                                        "HOME",
                                        "TMPDIR",
                                        "CI",
                                        "NODE_ENV",
                                        "NPM_CONFIG_CACHE",
                                        "NPM_CONFIG_REGISTRY",
                                        "PWD",
                                        "OLDPWD",
                                        "XDG_SESSION_TYPE",
                                        "GIT_AUTHOR_NAME",
                                        "GIT_AUTHOR_EMAIL",
                                        "GIT_COMMITTER_NAME",
                                        "KEYBOARD_LAYOUT",
                                        "PWD",
                                        "OLDPWD",
                                        "EDITOR",
                                        "PAGER",
                                        "XDG_SESSION_TYPE",
                                        "TOX_TESTENV_PASSENV",
                                        "PASSENGER_ENV",
                                        "HTTPS_PROXY",
                                        "RUST_LOG",
                                        "PYTHONPATH",
                                        "CARGO_HOME",
                                        "",
                                        NULL};
    for (size_t i = 0; sensitive[i]; i++)
        if (!lcsb_env_sensitive(sensitive[i]))
            fail_msg("%s is not taken for sensitive", sensitive[i]);
    for (size_t i = 0; plain[i]; i++)
        if (lcsb_env_sensitive(plain[i])) fail_msg("%s is taken for sensitive", plain[i]);
    /* A name too long to judge is judged sensitive. */
    char huge[5000];
    memset(huge, 'A', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    assert_true(lcsb_env_sensitive(huge));
    /* The base set holds nothing sensitive: it would pass a secret by default. */
    for (size_t i = 0; lcsb__env_base[i]; i++)
        if (!lcsb__env_is_pattern(lcsb__env_base[i]))
            assert_false(lcsb_env_sensitive(lcsb__env_base[i]));
}

static void test_pattern_match(void **state) {
    (void)state;
    static const struct {
        const char *pattern, *name;
        bool match;
    } cases[] = {
        {"CI", "CI", true},
        {"CI", "CIX", false},
        {"CI", "ci", false}, /* names are compared as they are */
        {"*", "ANYTHING", true},
        {"*", "", true},
        {"NPM_CONFIG_*", "NPM_CONFIG_CACHE", true},
        {"NPM_CONFIG_*", "NPM_CONFIG_", true},
        {"NPM_CONFIG_*", "NPM_CONFIGX", false},
        {"NPM_CONFIG_*", "X_NPM_CONFIG_CACHE", false},
        {"*_URL", "API_URL", true},
        {"*_URL", "API_URLS", false},
        {"A*B*C", "AxxBxxC", true},
        {"A*B*C", "ABC", true},
        {"A*B*C", "AxxCxxB", false},
        {"A*B*C", "ABCBC", true},
        {"**", "X", true},
        {"LC_*", "LC_ALL", true},
        {"LC_*", "LANG", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (lcsb__env_match(cases[i].pattern, cases[i].name) != cases[i].match)
            fail_msg("\"%s\" %s \"%s\"", cases[i].pattern,
                     cases[i].match ? "does not match" : "matches", cases[i].name);
}

static void test_pass_entries(void **state) {
    (void)state;
    lcsb_policy *p = lcsb_policy_new();
    lcsb_error err = {0};
    assert_false(lcsb_policy_env_inherit(p)); /* allow-listed by default */
    assert_int_equal(lcsb_policy_pass_env(p, "", &err), LCSB_EINVAL);
    assert_contains(err.message, "env.pass");
    assert_int_equal(lcsb_policy_pass_env(p, "A=B", &err), LCSB_EINVAL);
    assert_contains(err.message, "A=B");
    assert_int_equal(lcsb_policy_pass_env(p, NULL, &err), LCSB_EINVAL);
    assert_int_equal(lcsb_policy_pass_env(p, "CI", &err), 0);
    assert_int_equal(lcsb_policy_pass_env(p, "CI", &err), 0); /* twice is once */
    assert_int_equal(lcsb_policy_pass_env(p, "NPM_*", &err), 0);
    assert_int_equal(p->env_pass.n, 2);
    lcsb_policy_set_env_inherit(p, true);
    /* A copy keeps both. */
    lcsb_policy *q = lcsb_policy_copy(p);
    assert_non_null(q);
    assert_true(lcsb_policy_env_inherit(q));
    assert_int_equal(q->env_pass.n, 2);
    assert_string_equal(q->env_pass.v[1], "NPM_*");
    lcsb_policy_free(q);
    lcsb_policy_free(p);
}

/* ---- what the seam passes ---- */

static const char *const caller[] = {"PATH=/usr/bin:/bin",
                                     "HOME=/home/u",
                                     "TMPDIR=/tmp/u",
                                     "LANG=C.UTF-8",
                                     "LC_ALL=C",
                                     "LC_SECRET=x",
                                     "LC_MYCREDS=x",
                                     "TERM=xterm",
                                     "CI=true",
                                     "FOO=foo",
                                     "NPM_CONFIG_CACHE=/c",
                                     "NPM_CONFIG_TOKEN=t",
                                     "GITHUB_TOKEN=g",
                                     "AWS_SECRET_ACCESS_KEY=a",
                                     "SSH_AUTH_SOCK=/s",
                                     "DISPLAY=:0",
                                     "FOO=second",
                                     "NOEQUALS",
                                     "=empty-name",
                                     NULL};

static lcsb_backend *host(void) {
    lcsb_backend *b = NULL;
    assert_int_equal(lcsb_backend_none(&b, NULL), 0);
    return b;
}

static lcsb_backend *container(void) {
    static const lcsb_oci_world world = {.engine = "/usr/bin/podman", .rootfs = "/srv/root"};
    lcsb_backend *b = NULL;
    assert_int_equal(lcsb_backend_oci(NULL, &world, &b, NULL), 0);
    return b;
}

static void assert_passed(const lcsb_backend *b, const lcsb_policy *p, const char *const *want) {
    char **names = NULL;
    lcsb_error err = {0};
    assert_int_equal(lcsb_env_passed(b, p, caller, &names, &err), 0);
    assert_argv_equal(names, want);
    lcsb_argv_free(names);
}

static void test_passed_names(void **state) {
    (void)state;
    lcsb_backend *b = host(), *c = container();
    lcsb_policy *p = lcsb_policy_new();
    /* The base set alone, sorted: the locale categories by name, never
     * LC_SECRET nor LC_MYCREDS. */
    assert_passed(b, p, ARGV("LANG", "LC_ALL", "PATH", "TERM"));
    /* A container has a PATH of its own. */
    assert_passed(c, p, ARGV("LANG", "LC_ALL", "TERM"));
    /* Exact names pass, sensitive or not; a pattern passes no sensitive name. */
    assert_int_equal(lcsb_policy_pass_env(p, "GITHUB_TOKEN", NULL), 0);
    assert_int_equal(lcsb_policy_pass_env(p, "NPM_CONFIG_*", NULL), 0);
    assert_int_equal(lcsb_policy_pass_env(p, "CI", NULL), 0);
    assert_int_equal(lcsb_policy_pass_env(p, "NOT_SET", NULL), 0);
    assert_passed(b, p,
                  ARGV("CI", "GITHUB_TOKEN", "LANG", "LC_ALL", "NPM_CONFIG_CACHE", "PATH", "TERM"));
    /* "*": everything but the sensitive names (and HOME, TMPDIR among them). */
    assert_int_equal(lcsb_policy_pass_env(p, "*", NULL), 0);
    assert_passed(b, p,
                  ARGV("CI", "FOO", "GITHUB_TOKEN", "HOME", "LANG", "LC_ALL", "LC_MYCREDS",
                       "NPM_CONFIG_CACHE", "PATH", "TERM", "TMPDIR"));
    /* PATH into a container by its exact name only. */
    assert_passed(c, p,
                  ARGV("CI", "FOO", "GITHUB_TOKEN", "HOME", "LANG", "LC_ALL", "LC_MYCREDS",
                       "NPM_CONFIG_CACHE", "TERM", "TMPDIR"));
    assert_int_equal(lcsb_policy_pass_env(p, "PATH", NULL), 0);
    assert_passed(c, p,
                  ARGV("CI", "FOO", "GITHUB_TOKEN", "HOME", "LANG", "LC_ALL", "LC_MYCREDS",
                       "NPM_CONFIG_CACHE", "PATH", "TERM", "TMPDIR"));
    /* Unset wins over everything, the base set included. */
    assert_int_equal(lcsb_policy_set_env(p, "TERM", NULL, NULL), 0);
    assert_int_equal(lcsb_policy_set_env(p, "GITHUB_TOKEN", NULL, NULL), 0);
    assert_int_equal(lcsb_policy_set_env(p, "CI", "1", NULL), 0); /* set: still passed */
    assert_passed(b, p,
                  ARGV("CI", "FOO", "HOME", "LANG", "LC_ALL", "LC_MYCREDS", "NPM_CONFIG_CACHE",
                       "PATH", "TMPDIR"));
    lcsb_policy_free(p);

    /* Inherit: the whole environment, secrets too, but for what is unset. */
    p = lcsb_policy_new();
    lcsb_policy_set_env_inherit(p, true);
    assert_int_equal(lcsb_policy_set_env(p, "DISPLAY", NULL, NULL), 0);
    assert_passed(b, p,
                  ARGV("AWS_SECRET_ACCESS_KEY", "CI", "FOO", "GITHUB_TOKEN", "HOME", "LANG",
                       "LC_ALL", "LC_MYCREDS", "LC_SECRET", "NPM_CONFIG_CACHE", "NPM_CONFIG_TOKEN",
                       "PATH", "SSH_AUTH_SOCK", "TERM", "TMPDIR"));
    lcsb_policy_free(p);
    lcsb_backend_free(b);
    lcsb_backend_free(c);
}

static void test_env_block(void **state) {
    (void)state;
    lcsb_backend *b = host(), *c = container();
    lcsb_policy *p = lcsb_policy_new();
    assert_int_equal(lcsb_policy_pass_env(p, "FOO", NULL), 0);
    assert_int_equal(lcsb_policy_pass_env(p, "SSH_AUTH_SOCK", NULL), 0);
    char **envp = NULL;
    lcsb_error err = {0};
    /* A host mechanism: the passed entries in the caller's order, the first
     * of a name only (the one getenv finds). */
    assert_int_equal(lcsb_env_block(b, p, caller, &envp, &err), 0);
    assert_argv_equal(envp, ARGV("PATH=/usr/bin:/bin", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
                                 "FOO=foo", "SSH_AUTH_SOCK=/s"));
    lcsb_argv_free(envp);
    /* A container's engine gets the caller's environment whole. */
    assert_int_equal(lcsb_env_block(c, p, caller, &envp, &err), 0);
    assert_argv_equal(envp, caller);
    lcsb_argv_free(envp);
    /* An empty environment gives an empty block. */
    static const char *const nothing[] = {NULL};
    assert_int_equal(lcsb_env_block(b, p, nothing, &envp, &err), 0);
    assert_null(envp[0]);
    lcsb_argv_free(envp);
    lcsb_policy_free(p);
    lcsb_backend_free(b);
    lcsb_backend_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sensitive_names), cmocka_unit_test(test_pattern_match),
        cmocka_unit_test(test_pass_entries),    cmocka_unit_test(test_passed_names),
        cmocka_unit_test(test_env_block),
    };
    return cmocka_run_group_tests_name("sandbox_policy_env", tests, NULL, NULL);
}
