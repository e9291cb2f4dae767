/* Part of <lcsb.h>: the text lcsb hands back. An lcsb argv, the array most
 * calls return, and how it is freed; an argv as JSON; and lcsb_escape, the
 * one way lcsb makes text safe for a terminal. Apart because every part that
 * returns lines or argvs hands them back in these terms. */
#ifndef LCSB_PUBLIC_TEXT_H
#define LCSB_PUBLIC_TEXT_H
#ifndef LCSB_H
#error "include <lcsb.h>: lcsb/text.h is one part of it"
#endif

/* Escapes LEN bytes of TEXT for a terminal into the caller's OUT (SIZE
 * bytes; NULL with SIZE 0 only measures); TEXT is only read. Each control
 * character (C0 but tab, DEL, the C1 controls) and each byte that is not
 * valid UTF-8 as \xHH, CR and LF as \r and \n, the characters that show
 * as nothing (bidi controls, zero-width and format characters, fillers,
 * variation selectors, tags) as \u{HHHH}, the rest as it is (a backslash
 * too: escaping twice changes nothing). OUT is NUL-terminated when SIZE > 0
 * and cut between whole characters only; returns the length of the whole
 * result, as snprintf does. Pure: safe from any thread. Every line lcsb
 * writes goes through it; a host that prints text of lcsb's own (a hint, a
 * trailer) gets it escaped already. */
LCSB_API size_t lcsb_escape(char *out, size_t size, const char *text, size_t len);

/* ---- argv: NULL-terminated arrays allocated by lcsb; free with lcsb_argv_free. ---- */

/* Frees ARGV, an lcsb argv (the array and each string in it); NULL-safe.
 * Only for arrays lcsb returned: the caller's own are the caller's to free. */
LCSB_API void lcsb_argv_free(char **argv);
/* Returns ARGV as a JSON array of strings, which the caller frees with free();
 * ARGV is only read. NULL on ENOMEM. */
LCSB_API char *lcsb_argv_json(const char *const *argv);

#endif
