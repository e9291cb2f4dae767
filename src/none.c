/* The `none` backend: a real backend that enforces nothing. It wraps to the
 * same argv and attests everything open; the CLI says so out loud
 * ("--backend none"). */
#include "backend.h"

static int none_validate(const lcsb_backend *b, const lcsb_policy *policy, lcsb_error *err) {
    (void)b;
    (void)policy;
    (void)err;
    return 0;
}

static int none_wrap(const lcsb_backend *b, const lcsb_policy *policy, const char *const *argv,
                     const char *const *env, lcsb__strv *out, lcsb_error *err) {
    (void)b;
    (void)policy;
    (void)env; /* the command's environment, from lcsb_env_block */
    if (lcsb__strv_push_all(out, argv)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

static const lcsb__backend_ops none_ops = {
    .name = "none",
    .validate = none_validate,
    .wrap = none_wrap,
};

int lcsb_backend_none(lcsb_backend **out, lcsb_error *err) {
    return lcsb__backend_new(&none_ops, sizeof(lcsb_backend), out, err);
}
