/* The seam's environment (rule 5): which of the caller's variables reach
 * the command (the allowlist), decided once for every backend, and the env
 * hop that carries the policy's overlay, and under net.domains the proxy's
 * variables, in front of the command. Apart from prepare.c, which places
 * this hop and the launcher around a backend's wrap: what passes is one
 * question, where it rides another. */
#include "env.h"

#include "backend.h"
#include "envname.h"
#include "jks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Does POLICY pass the caller's variable NAME to the command? An unset
 * name never; a name a pass entry gives exactly, always (sensitive or not);
 * into a container, PATH no other way (the world has its own); with
 * inherit, everything; else a sensitive name never, and another when the
 * base set or a pass pattern matches it. */
static bool passes(const lcsb_policy *policy, bool container, const char *name) {
    for (size_t i = 0; i < policy->env_n; i++)
        if (!policy->env[i].value && strcmp(policy->env[i].name, name) == 0) return false;
    for (size_t i = 0; i < policy->env_pass.n; i++)
        if (!lcsb__env_is_pattern(policy->env_pass.v[i]) &&
            strcmp(policy->env_pass.v[i], name) == 0)
            return true;
    if (container && strcmp(name, "PATH") == 0) return false;
    if (policy->env_inherit) return true;
    if (lcsb_env_sensitive(name)) return false;
    for (size_t i = 0; lcsb__env_base[i]; i++)
        if (lcsb__env_match(lcsb__env_base[i], name)) return true;
    for (size_t i = 0; i < policy->env_pass.n; i++)
        if (lcsb__env_match(policy->env_pass.v[i], name)) return true;
    return false;
}

/* The length of the name in ENTRY ("NAME=VALUE"); 0 when it has none. */
static size_t name_len(const char *entry) {
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : 0;
}

int lcsb_env_passed(const lcsb_backend *b, const lcsb_policy *policy, const char *const *caller_env,
                    char ***names, lcsb_error *err) {
    const char *const *env = caller_env ? caller_env : (const char *const *)environ;
    lcsb__strv all = {0}, out = {0};
    const char **sorted = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; env && env[i] && !rc; i++)
        if (name_len(env[i])) rc = lcsb__strv_push_n(&all, env[i], name_len(env[i]));
    if (!rc && all.n && !(sorted = lcsb__strv_sorted_unique(&all, &n))) rc = LCSB_ENOMEM;
    for (size_t i = 0; i < n && !rc; i++)
        if (passes(policy, b->ops->contains_prefix, sorted[i]))
            rc = lcsb__strv_push(&out, sorted[i]);
    free(sorted);
    lcsb__strv_clear(&all);
    if (rc || !(*names = lcsb__strv_take(&out))) {
        lcsb__strv_clear(&out);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

/* Is the variable named in ENV[I] named earlier in ENV too? */
static bool seen_before(const char *const *env, size_t i) {
    size_t len = name_len(env[i]);
    for (size_t k = 0; k < i; k++)
        if (name_len(env[k]) == len && strncmp(env[k], env[i], len) == 0) return true;
    return false;
}

int lcsb_env_block(const lcsb_backend *b, const lcsb_policy *policy, const char *const *caller_env,
                   char ***envp, lcsb_error *err) {
    const char *const *env = caller_env ? caller_env : (const char *const *)environ;
    bool container = b->ops->contains_prefix;
    lcsb__strv out = {0}, name = {0};
    int rc = 0;
    for (size_t i = 0; env && env[i] && !rc; i++) {
        if (container) {
            rc = lcsb__strv_push(&out, env[i]);
            continue;
        }
        /* The first of a name's entries is the one getenv finds. */
        if (!name_len(env[i]) || seen_before(env, i)) continue;
        rc = lcsb__strv_push_n(&name, env[i], name_len(env[i]));
        if (!rc && passes(policy, false, name.v[0])) rc = lcsb__strv_push(&out, env[i]);
        lcsb__strv_clear(&name);
    }
    if (rc || !(*envp = lcsb__strv_take(&out))) {
        lcsb__strv_clear(&out);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

/* TEXT as one word of JAVA_TOOL_OPTIONS, which the JVM splits at white
 * space and reads quotes in: those and white space each quoted by the
 * other kind of quote. */
static void add_java_word(lcsb__buf *kv, const char *text) {
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            lcsb__buf_adds(kv, "'\"'");
        else if (*c == '\'' || isspace((unsigned char)*c))
            lcsb__buf_addf(kv, "\"%c\"", *c);
        else
            lcsb__buf_add(kv, c, 1);
    }
}

/* Java reads no proxy variable and no PEM bundle: its system properties
 * name both, in JAVA_TOOL_OPTIONS, which every JVM reads (java, javac, one
 * a program starts through JNI). nonProxyHosts is NO_PROXY's list. The
 * policy's own value comes first, lcsb's after: of two -D for one property
 * the later wins, so the way out and the trust are lcsb's, and the password
 * is the truststore's whatever an earlier one said; java's own command line
 * comes after both. A value the caller passes is not kept: this one is set
 * on the env hop's command line, which any user may read in /proc, and the
 * caller's may hold a password. */
static int push_java_options(lcsb__strv *sv, const lcsb_policy *policy, uint16_t port) {
    const char *own = NULL;
    for (size_t i = 0; i < policy->env_n; i++)
        if (strcmp(policy->env[i].name, LCSB__JAVA_OPTIONS) == 0) own = policy->env[i].value;
    lcsb__buf kv = {0};
    lcsb__buf_addf(&kv, "%s=%s%s", LCSB__JAVA_OPTIONS, own ? own : "", own && *own ? " " : "");
    lcsb__buf_addf(&kv,
                   "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=%u -Dhttps.proxyHost=127.0.0.1 "
                   "-Dhttps.proxyPort=%u -Dhttp.nonProxyHosts=localhost|127.0.0.1|[::1]",
                   (unsigned)port, (unsigned)port);
    if (policy->java_truststore) {
        lcsb__buf_adds(&kv, " -Djavax.net.ssl.trustStore=");
        add_java_word(&kv, policy->java_truststore);
        lcsb__buf_adds(&kv, " -Djavax.net.ssl.trustStoreType=JKS "
                            "-Djavax.net.ssl.trustStorePassword=" LCSB__JKS_PASSWORD);
    }
    int rc = kv.oom ? LCSB_ENOMEM : lcsb__strv_push(sv, kv.p);
    lcsb__buf_free(&kv);
    return rc;
}

/* Under net.domains the proxy is the only way out, and these are the names
 * tools look for it by (curl, git, pip, npm: lowercase first, some only
 * uppercase). ALL_PROXY is the same port speaking SOCKS5, names resolved
 * by the proxy. The command's own loopback is reached directly. They come
 * after the policy's own settings, and win; Java's, last, keeps the
 * policy's options in front of lcsb's. */
static int push_proxy_env(lcsb__strv *sv, const lcsb_policy *policy) {
    uint16_t port = lcsb__proxy_port(policy);
    const char *ca_bundle = policy->ca_bundle;
    char http[40], socks[40];
    snprintf(http, sizeof http, "http://127.0.0.1:%u", (unsigned)port);
    snprintf(socks, sizeof socks, "socks5h://127.0.0.1:%u", (unsigned)port);
    const char *const vars[][2] = {
        {"http_proxy", http},
        {"https_proxy", http},
        {"HTTP_PROXY", http},
        {"HTTPS_PROXY", http},
        {"all_proxy", socks},
        {"ALL_PROXY", socks},
        {"no_proxy", "localhost,127.0.0.1,::1"},
        {"NO_PROXY", "localhost,127.0.0.1,::1"},
        /* Node's fetch reads them only when told to, where it knows how. */
        {"NODE_USE_ENV_PROXY", "1"},
    };
    lcsb__buf kv = {0};
    int rc = 0;
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        kv.len = 0;
        lcsb__buf_addf(&kv, "%s=%s", vars[i][0], vars[i][1]);
        rc |= kv.oom ? LCSB_ENOMEM : lcsb__strv_push(sv, kv.p);
    }
    /* Where the proxy intercepts, the run's authority joins the system's
     * certificates, under every name a common client reads a bundle by
     * (OpenSSL's, curl's, git's, Python's requests and pip's, Node's). */
    static const char *const bundle_vars[] = {"SSL_CERT_FILE",  "CURL_CA_BUNDLE",
                                              "GIT_SSL_CAINFO", "REQUESTS_CA_BUNDLE",
                                              "PIP_CERT",       "NODE_EXTRA_CA_CERTS"};
    for (size_t i = 0; ca_bundle && i < sizeof bundle_vars / sizeof *bundle_vars; i++) {
        kv.len = 0;
        lcsb__buf_addf(&kv, "%s=%s", bundle_vars[i], ca_bundle);
        rc |= kv.oom ? LCSB_ENOMEM : lcsb__strv_push(sv, kv.p);
    }
    lcsb__buf_free(&kv);
    return rc | push_java_options(sv, policy, port);
}

/* The env hop, with the proxy's variables when PROXIED (a mechanism serves
 * net.domains; under none nothing does, and nothing is in the way). */
int lcsb__env_argv(const lcsb_policy *policy, bool proxied, const char *const *argv, char ***out,
                   lcsb_error *err) {
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command given");
    lcsb__strv sv = {0};
    int rc = 0;
    if (policy->env_n > 0 || proxied) {
        /* env takes NAME=VALUE words until the first one without '=': a command
         * whose name holds '=' would be taken for an assignment. */
        if (strchr(argv[0], '='))
            return lcsb__fail(err, LCSB_EINVAL,
                              "command name \"%s\" contains '=', which the env overlay cannot "
                              "carry; name it by path",
                              argv[0]);
        rc |= lcsb__strv_push(&sv, LCSB__ENV_PROGRAM);
        for (size_t i = 0; i < policy->env_n; i++)
            if (!policy->env[i].value) {
                rc |= lcsb__strv_push(&sv, "-u");
                rc |= lcsb__strv_push(&sv, policy->env[i].name);
            }
        rc |= lcsb__strv_push(&sv, "--");
        for (size_t i = 0; i < policy->env_n; i++) {
            if (!policy->env[i].value) continue;
            lcsb__buf kv = {0};
            lcsb__buf_addf(&kv, "%s=%s", policy->env[i].name, policy->env[i].value);
            rc |= kv.oom ? LCSB_ENOMEM : lcsb__strv_push(&sv, kv.p);
            lcsb__buf_free(&kv);
        }
        if (proxied) rc |= push_proxy_env(&sv, policy);
    }
    rc |= lcsb__strv_push_all(&sv, argv);
    if (rc || !(*out = lcsb__strv_take(&sv))) {
        lcsb__strv_clear(&sv);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

int lcsb_env_argv(const lcsb_policy *policy, const char *const *argv, char ***out,
                  lcsb_error *err) {
    return lcsb__env_argv(policy, policy->net == LCSB_NET_DOMAINS, argv, out, err);
}
