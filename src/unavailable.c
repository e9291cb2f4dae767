/* Unavailable: a real backend that enforces nothing. It wraps to the same argv
 * and attests everything open; the CLI says so out loud ("--backend none"). */
#include "internal.h"

static int unavailable_validate(const lcsb_backend *b, const lcsb_policy *policy,
                                lcsb_error *err) {
    (void)b;
    (void)policy;
    (void)err;
    return 0;
}

static int unavailable_wrap(const lcsb_backend *b, const lcsb_policy *policy,
                            const char *const *argv, lcsb__strv *out, lcsb_error *err) {
    (void)b;
    (void)policy;
    if (lcsb__strv_push_all(out, argv)) return lcsb__fail(err, LCSB_ENOMEM, "out of memory");
    return 0;
}

const lcsb__backend_ops lcsb__unavailable_ops = {
    .name = "none",
    .contains_prefix = false,
    .validate = unavailable_validate,
    .wrap = unavailable_wrap,
};
