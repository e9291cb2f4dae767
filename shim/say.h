/* lcsb-exec's messages. Every one is a line on stderr that starts
 * "lcsb-exec: " (lcsb(1), STDERR), whether the enforcement or the wire parser
 * says it. */
#ifndef LCSB_SHIM_SAY_H
#define LCSB_SHIM_SAY_H

#include <stdarg.h>

/* LEAD, then FMT with AP, then a newline. */
__attribute__((format(printf, 2, 0))) void say(const char *lead, const char *fmt, va_list ap);

/* "cannot VERB OBJECT: REASON"; returns -1 for the caller to pass on. */
__attribute__((format(printf, 1, 2))) int fail(const char *fmt, ...);

/* Only where the user has a real remedy. */
__attribute__((format(printf, 1, 2))) void hint(const char *fmt, ...);

/* A decoded string made safe for a terminal: paths need not be text, and a
 * hostile one must not write escape sequences to the user's stderr. One
 * result is live at a time, so use it once per message. */
const char *show(const char *s);

#endif
