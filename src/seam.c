/* The seam (rule 5): what every backend must do is done here, once. Before
 * any backend's wrap, the env overlay and the launcher prefix (pure); around
 * it, the one pipeline that readies a run: validate, compose, fit execve's
 * limits, attest. lcsb_run, lcsb_backend_validate and `lcsb check` all go
 * through lcsb_prepare, so they cannot order it differently. */
#include "backend.h"
#include "validate.h"

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
    bool inside = has_prefix && b->ops->contains_prefix;
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

int lcsb_prepare(const lcsb_backend *b, const lcsb_policy *policy, const char *const *prefix,
                 const char *const *argv, char ***final_out, lcsb_attestation *att,
                 lcsb_error *err) {
    static const char *const probe[] = {"true", NULL};
    char **final = NULL;
    lcsb_attestation ignored;
    int rc = b->ops->validate(b, policy, err);
    if (!rc) rc = lcsb_compose(b, policy, prefix, argv ? argv : probe, &final, err);
    if (!rc) rc = lcsb__check_exec_size((const char *const *) final, err);
    if (!rc) rc = lcsb_attest((const char *const *) final, prefix, att ? att : &ignored, err);
    if (!rc && final_out) {
        *final_out = final;
        final = NULL;
    }
    lcsb_argv_free(final);
    return rc;
}

int lcsb_backend_validate(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err) {
    return lcsb_prepare(b, policy, NULL, NULL, NULL, NULL, err);
}
