/* Layer 4: the Seatbelt backend (seatbelt.c): sandbox-exec and the profile
 * it is given, layered in the order rule 4 fixes. */
#ifndef LCSB_SEATBELT_H
#define LCSB_SEATBELT_H

#include "backend.h"

#include <limits.h>

#define LCSB__SANDBOX_EXEC "/usr/bin/sandbox-exec"
/* How every profile lcsb writes begins; attest recognises it. */
#define LCSB__SEATBELT_HEAD "(version 1)\n;; lcsb seatbelt profile\n(deny default)\n"
/* The compiled-in profiles/base.sb (cmake/embed.cmake). */
extern const char lcsb__seatbelt_base[];
/* A canonical path: PATH_MAX plus the longest "/private" prefix added. */
#define LCSB__SEATBELT_PATH_MAX (PATH_MAX + 16)
/* PATH with /tmp, /var, /etc replaced by their /private forms, into OUT
 * (LCSB__SEATBELT_PATH_MAX bytes); lexical. 0, or -1 when it does not fit. */
int lcsb__seatbelt_canonical(const char *path, char *out);

/* The profile's layers; rule 4 fixes their order in lcsb__seatbelt_order. */
typedef enum lcsb__seatbelt_layer {
    LCSB__SB_BASE,
    LCSB__SB_READ,
    LCSB__SB_EXEC,
    LCSB__SB_GUARD,
    LCSB__SB_WRITE,
    LCSB__SB_PROTECT,
    LCSB__SB_NET,
} lcsb__seatbelt_layer;
#define LCSB__SB_LAYERS 7
extern const lcsb__seatbelt_layer lcsb__seatbelt_order[LCSB__SB_LAYERS];
/* Seatbelt's wrap with the layers in ORDER (LCSB__SB_LAYERS of them): the
 * backend passes lcsb__seatbelt_order; the mutation test passes another. */
int lcsb__seatbelt_wrap_layers(const lcsb_policy *policy, const lcsb__seatbelt_layer *order,
                               const char *const *argv, lcsb__strv *out, lcsb_error *err);

extern const lcsb__backend_ops lcsb__seatbelt_ops;

/* The Seatbelt backend; PRESENT says sandbox-exec is where the argv will run. */
int lcsb__seatbelt_new(bool present, lcsb_backend **out, lcsb_error *err);

#endif
