/* Layer 1, pure: paths as text. The policy's lexical normal form, and the one
 * test of whether a path lies beneath another. */
#ifndef LCSB_PATH_H
#define LCSB_PATH_H

#include "util.h"

/* Normalize an absolute path lexically ("//", "/./", a trailing "/") into OUT
 * (PATH_MAX bytes): refused (LCSB_EINVAL, naming WHAT) when empty, relative,
 * too long or holding "..". */
int lcsb__path_normalize(const char *what, const char *path, char *out, lcsb_error *err);
/* Is PATH already in that normal form? */
bool lcsb__path_is_normal(const char *path);
/* Is PATH the directory ANCESTOR or beneath it? "/" holds every absolute
 * path; "/usr" holds "/usr/bin" but not "/usrx". */
bool lcsb__path_within(const char *path, const char *ancestor);

#endif
