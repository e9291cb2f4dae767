/* The one pipeline that readies a run: validate, compose, fit execve's
 * limits, attest. Compose is the seam's placement (rule 5): the env hop
 * (env.c) and the launcher prefix around a backend's wrap, outside a host
 * mechanism and inside a container. lcsb_run, lcsb_backend_validate and
 * `lcsb check` all go through lcsb_prepare, so they cannot order it
 * differently. */
#include "backend.h"
#include "env.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lcsb_compose(const lcsb_backend *b, const lcsb_policy *policy, const char *const *prefix,
                 const char *const *argv, char ***out, lcsb_error *err) {
    char **inner = NULL;
    char **wrapped = NULL;
    char **passed = NULL;
    lcsb__strv sv = {0};
    bool has_prefix = prefix && prefix[0];
    bool inside = has_prefix && b->ops->contains_prefix;
    bool proxied = policy->net == LCSB_NET_DOMAINS && b->ops->is_mechanism;
    int rc = 0;
    /* A container starts from none of the caller's environment: the names
     * passed go on its argv, their values stay in the engine's environment. */
    if (b->ops->contains_prefix && (rc = lcsb_env_passed(b, policy, NULL, &passed, err)) != 0)
        return rc;
    if (inside) {
        /* A container is a world: the launcher runs inside it, and gets the
         * env overlay too (a launcher without HOME would be lost). */
        if (lcsb__strv_push_all(&sv, prefix) || lcsb__strv_push_all(&sv, argv)) goto oom;
        rc = lcsb__env_argv(policy, proxied, (const char *const *)sv.v, &inner, err);
        lcsb__strv_clear(&sv);
        if (!rc)
            rc = lcsb__backend_wrap_env(b, policy, (const char *const *)inner,
                                        (const char *const *)passed, out, err);
        goto out;
    }
    /* A host mechanism trusts host plumbing: the launcher runs outside it. */
    rc = lcsb__env_argv(policy, proxied, argv, &inner, err);
    if (!rc)
        rc = lcsb__backend_wrap_env(b, policy, (const char *const *)inner,
                                    (const char *const *)passed, &wrapped, err);
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
    lcsb_argv_free(passed);
    return rc;
}

/* V's strings one per line into OUT (SIZE bytes), as many as fit, a last
 * line "..." when cut: the proxy's entries and secrets, for the
 * attestation. */
static void attest_lines(const lcsb__strv *v, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < v->n; i++) {
        const char *entry = v->v[i];
        /* Room for this line, and for a "..." line after it if more follow. */
        size_t need = (used ? 1 : 0) + strlen(entry) + (i + 1 < v->n ? 4 : 0);
        if (used + need >= size) {
            snprintf(out + used, size - used, "%s...", used ? "\n" : "");
            return;
        }
        used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "\n" : "", entry);
    }
}

int lcsb_prepare(const lcsb_backend *b, const lcsb_policy *policy, const char *const *prefix,
                 const char *const *argv, char ***final_out, lcsb_attestation *att,
                 lcsb_error *err) {
    static const char *const probe[] = {"true", NULL};
    char **final = NULL;
    lcsb_attestation ignored;
    /* lcsb's proxy is what carries a secret, and only where a mechanism
     * serves it. */
    if (policy->secrets.n && (policy->net != LCSB_NET_DOMAINS || !b->ops->is_mechanism))
        return lcsb__fail(err, LCSB_EINVAL,
                          "secrets: lcsb's proxy puts a secret into requests to its hosts, so the "
                          "policy needs net.domains and a backend that serves them (not %s)",
                          policy->net != LCSB_NET_DOMAINS ? "this policy's net" : b->ops->name);
    int rc = b->ops->validate(b, policy, err);
    if (!rc) rc = lcsb_compose(b, policy, prefix, argv ? argv : probe, &final, err);
    if (!rc) rc = lcsb__check_exec_size((const char *const *) final, err);
    if (!rc) rc = lcsb_attest((const char *const *) final, prefix, att ? att : &ignored, err);
    if (!rc && att && policy->net == LCSB_NET_DOMAINS && b->ops->is_mechanism) {
        attest_lines(&policy->domains, att->domains, sizeof att->domains);
        attest_lines(&policy->secrets, att->secrets, sizeof att->secrets);
    }
    if (!rc && final_out) {
        *final_out = final;
        final = NULL;
    }
    lcsb_argv_free(final);
    return rc;
}

/* Validation is the pipeline run with a probe command: kept beside it, so
 * what validate accepts is what prepare will. */
int lcsb_backend_validate(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err) {
    return lcsb_prepare(b, policy, NULL, NULL, NULL, NULL, err);
}
