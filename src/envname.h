/* Layer 1, pure: the names of environment variables, as the seam judges
 * them. Which names the command gets by default (the base set), which look
 * like secrets or grant access (sensitive: passed only when named exactly),
 * and how a pass entry with '*' matches a name. */
#ifndef LCSB_ENVNAME_H
#define LCSB_ENVNAME_H

#include "util.h"

/* The base set: what every command gets of the caller's environment, names
 * and LC_* (docs/policy.md says why each). NULL-terminated. */
extern const char *const lcsb__env_base[];

/* Does NAME match PATTERN, where each '*' stands for any run of bytes
 * (none included) and every other byte for itself? */
bool lcsb__env_match(const char *pattern, const char *name);

/* PATTERN holds a '*': it passes only names that are not sensitive. */
bool lcsb__env_is_pattern(const char *pattern);

/* NAME is a name a pass entry may give: not empty, no '='. */
bool lcsb__env_valid_entry(const char *name);

#endif
