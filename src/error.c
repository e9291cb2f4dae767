/* Errors: the closed set of codes (LCSB_ERRORS in lcsb.h) by text and by
 * name, and the one way the library reports one. Pure. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

const char *lcsb_strerror(int code) {
#define TEXT_OF(name, value, text)                                                                 \
    if (code == (value)) return text;
    LCSB_ERRORS(TEXT_OF)
#undef TEXT_OF
    return "unknown error";
}

const char *lcsb_error_name(int code) {
#define NAME_OF(name, value, text)                                                                 \
    if (code == (value)) return "LCSB_" #name;
    LCSB_ERRORS(NAME_OF)
#undef NAME_OF
    return NULL;
}

int lcsb__fail(lcsb_error *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}
