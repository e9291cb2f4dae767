/* Part of <lcsb.h>: the closed set of error codes every function that can
 * fail returns from, the error object that says what failed, and the exit
 * statuses of the CLI and the shim. Apart because every other part uses them. */
#ifndef LCSB_PUBLIC_ERRORS_H
#define LCSB_PUBLIC_ERRORS_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/errors.h is one part of it"
#endif

/* The closed set of error codes, X(NAME, VALUE, TEXT): each is LCSB_NAME,
 * lcsb_strerror gives its TEXT and lcsb_error_name "LCSB_NAME". */
#define LCSB_ERRORS(X)                                                                             \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -1, "invalid argument or policy")                                                    \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EUNAVAIL, -3, "mechanism not available on this host")                                        \
    X(ESYS, -4, "system call failed")                                                              \
    X(ETOOBIG, -5, "policy too large for the kernel's limits")                                     \
    X(ESCRIPT, -6, "policy script failed")                                                         \
    X(EINTR, -7, "policy script interrupted by a signal")                                          \
    X(ETIMEDOUT, -8, "policy script ran past its time budget")                                     \
    X(EUNTRUSTED, -9, "policy script not trusted as it is now")

#define LCSB_ERROR_ENUM_(name, value, text) LCSB_##name = value,
enum { LCSB_ERRORS(LCSB_ERROR_ENUM_) };
#undef LCSB_ERROR_ENUM_

/* Exit statuses of the CLI and the shim (docs/policy.md, lcsb(1)). */
enum {
    LCSB_EXIT_SETUP = 97,     /* the sandbox could not be set up; nothing ran */
    LCSB_EXIT_USAGE = 125,    /* lcsb failed before running anything */
    LCSB_EXIT_NOEXEC = 126,   /* found but not executable */
    LCSB_EXIT_NOTFOUND = 127, /* not found */
};

/* Caller-allocated (on the stack will do); filled on failure, left as it is
 * on success. MESSAGE names the offending path, key or limit; it is not
 * escaped (lcsb_escape it for a terminal). */
typedef struct lcsb_error {
    int code;
    char message[1024];
} lcsb_error;

/* The TEXT of CODE, or "unknown error": a static string. */
LCSB_API const char *lcsb_strerror(int code);
/* The name of CODE, "LCSB_EINVAL" for LCSB_EINVAL, ...: a static string;
 * NULL for a code outside the set. */
LCSB_API const char *lcsb_error_name(int code);

#endif
