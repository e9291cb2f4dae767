/* The Backend object: construction, dispatch and release through its ops.
 * Which mechanism a host gets is select.c's business; what each one does is
 * its own file's. */
#include "backend.h"

#include <stdlib.h>

int lcsb__backend_new(const lcsb__backend_ops *ops, size_t size, lcsb_backend **out,
                      lcsb_error *err) {
    lcsb_backend *b = calloc(1, size);
    if (!b) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    b->ops = ops;
    *out = b;
    return 0;
}

void lcsb_backend_free(lcsb_backend *b) {
    if (!b) return;
    if (b->ops->release) b->ops->release(b);
    free(b);
}

const char *lcsb_backend_name(const lcsb_backend *b) { return b->ops->name; }
bool lcsb_backend_contains_prefix(const lcsb_backend *b) { return b->ops->contains_prefix; }

int lcsb_backend_wrap(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
                      char ***out, lcsb_error *err) {
    return lcsb__backend_wrap_env(b, policy, argv, NULL, out, err);
}

int lcsb__backend_wrap_env(const lcsb_backend *b, const lcsb_policy *policy,
                           const char *const *argv, const char *const *env, char ***out,
                           lcsb_error *err) {
    if (!argv || !argv[0]) return lcsb__fail(err, LCSB_EINVAL, "no command to wrap");
    lcsb__strv sv = {0};
    int rc = b->ops->wrap(b, policy, argv, env, &sv, err);
    if (rc) {
        lcsb__strv_clear(&sv);
        return rc;
    }
    if (!(*out = lcsb__strv_take(&sv))) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}
