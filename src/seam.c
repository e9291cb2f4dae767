/* The seam (rule 5): what every backend must do is done here, once, before any
 * backend's wrap: the env overlay, the launcher prefix, the trailer. Pure. */
#include "internal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

int lcsb_env_argv(const lcsb_policy *policy, const char *const *argv, char ***out,
                  lcsb_error *err) {
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command given");
    lcsb__strv sv = {0};
    int rc = 0;
    if (policy->env_n > 0) {
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
    }
    rc |= lcsb__strv_push_all(&sv, argv);
    if (rc || !(*out = lcsb__strv_take(&sv))) {
        lcsb__strv_clear(&sv);
        return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    }
    return 0;
}

int lcsb_compose(const lcsb_backend *b, const lcsb_policy *policy, const char *const *prefix,
                 const char *const *argv, char ***out, lcsb_error *err) {
    char **inner = NULL;
    char **wrapped = NULL;
    lcsb__strv sv = {0};
    bool has_prefix = prefix && prefix[0];
    bool inside = has_prefix && lcsb_backend_contains_prefix(b);
    int rc = 0;
    if (inside) {
        /* A container is a world: the launcher runs inside it, and gets the
         * env overlay too (the container starts from none of the caller's
         * environment, so a launcher without HOME would be lost). */
        if (lcsb__strv_push_all(&sv, prefix) || lcsb__strv_push_all(&sv, argv)) goto oom;
        rc = lcsb_env_argv(policy, (const char *const *)sv.v, &inner, err);
        lcsb__strv_clear(&sv);
        if (!rc) rc = lcsb_backend_wrap(b, policy, (const char *const *)inner, out, err);
        goto out;
    }
    /* A host mechanism trusts host plumbing: the launcher runs outside it. */
    rc = lcsb_env_argv(policy, argv, &inner, err);
    if (!rc) rc = lcsb_backend_wrap(b, policy, (const char *const *)inner, &wrapped, err);
    if (rc) goto out;
    if (lcsb__strv_push_all(&sv, has_prefix ? prefix : NULL) ||
        lcsb__strv_push_all(&sv, (const char *const *)wrapped) || !(*out = lcsb__strv_take(&sv)))
        goto oom;
    goto out;
oom:
    rc = lcsb__fail(err, LCSB_ENOMEM, "out of memory");
out:
    lcsb__strv_clear(&sv);
    lcsb_argv_free(wrapped);
    lcsb_argv_free(inner);
    return rc;
}

void lcsb_trailer(const char *command, int status, const lcsb_attestation *att, char *buf,
                  size_t size) {
    lcsb__trailer(command, status, status == LCSB_EXIT_SETUP, att, buf, size);
}

void lcsb__trailer(const char *command, int status, bool setup_failed,
                   const lcsb_attestation *att, char *buf, size_t size) {
    char summary[256];
    char how[64] = "";
    lcsb_attestation_summary(att, summary, sizeof summary);
    if (status > 128 && status < 128 + 65) {
        const char *name = sigabbrev_np(status - 128);
        snprintf(how, sizeof how, " (signal %s%s)", name ? "SIG" : "", name ? name : "?");
    } else if (setup_failed) {
        snprintf(how, sizeof how, " (sandbox setup failed; the command did not run)");
    } else if (status == LCSB_EXIT_NOEXEC) {
        snprintf(how, sizeof how, " (could not be executed)");
    } else if (status == LCSB_EXIT_NOTFOUND) {
        snprintf(how, sizeof how, " (not found)");
    }
    snprintf(buf, size, "lcsb: %s exited %d%s under %s (%s)\n", command ? command : "command",
             status, how, att->backend, summary);
}

char *lcsb_argv_json(const char *const *argv) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "[");
    for (size_t i = 0; argv && argv[i]; i++) {
        if (i) lcsb__buf_adds(&b, ",");
        lcsb__buf_add_json_string(&b, argv[i]);
    }
    lcsb__buf_adds(&b, "]");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}
