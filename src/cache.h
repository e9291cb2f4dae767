/* Layer 6, impure: the caches lcsb keeps per project (cache.c), for
 * exec_policy's cache = { ... } and `lcsb cache`. */
#ifndef LCSB_CACHE_H
#define LCSB_CACHE_H

#include "util.h"

#include <limits.h>

/* The directory PROJECT keeps for REL (a path relative to HOME, such as
 * ".cache/pip": no "..", ".", empty or leading "/" component), made on
 * demand (0700) with every directory above it that lcsb owns, into OUT
 * (PATH_MAX bytes) by its real path. Refused (LCSB_EINVAL) when a cache
 * directory is a symlink or not the user's, or when the cache lies in
 * lcsb's own configuration or state. */
int lcsb__cache_make(const char *project, const char *rel, char out[PATH_MAX], lcsb_error *err);

/* REL as the one file name it is kept under ("/" as "%2F", "%" as "%25"),
 * into OUT (SIZE bytes); false when it does not fit a name. And back. */
bool lcsb__cache_encode(const char *rel, char *out, size_t size);
bool lcsb__cache_decode(const char *name, char *out, size_t size);

#endif
