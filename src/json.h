/* Layer 1, pure: JSON. The writer's string escaping, and just enough reading
 * to derive an attestation from a header lcsb itself wrote. */
#ifndef LCSB_JSON_H
#define LCSB_JSON_H

#include "util.h"

/* A JSON string literal, quotes included; bytes >= 0x80 pass through. */
void lcsb__buf_add_json_string(lcsb__buf *b, const char *s);
/* S as a JSON string of valid text, whatever bytes it holds (json.c). */
void lcsb__buf_add_json_text(lcsb__buf *b, const char *s);

/* Find KEY at the top level of the JSON object TEXT. Returns a pointer to its
 * value's first byte, or NULL. Never reads past TEXT's terminating NUL. */
const char *lcsb__json_find(const char *text, const char *key);
/* Parse a non-negative integer value at P; -1 on failure (or past LONG_MAX). */
long lcsb__json_int(const char *p);
/* Count the elements of the array at P (-1 when P is not an array); when NAME is
 * non-NULL, set *found when one element is the string NAME. */
int lcsb__json_array(const char *p, const char *name, bool *found);
/* The string value at P when it is one of CHOICES (NULL-terminated, none
 * needing an escape); NULL for anything else, another type included. */
const char *lcsb__json_choice(const char *p, const char *const *choices);

#endif
