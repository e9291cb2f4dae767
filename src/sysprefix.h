/* Layer 2, pure: rule 3 and the system's own trees, as a lexical check on
 * normalized paths. The symlink half of rule 3 needs the disk and lives in
 * validation. */
#ifndef LCSB_SYSPREFIX_H
#define LCSB_SYSPREFIX_H

#include "util.h"

/* The first system prefix DIR equals or contains, for messages; NULL when none. */
const char *lcsb__system_prefix_within(const char *dir);
/* The system's own tree PATH lies in (/usr but not /usr/local, /etc, /bin,
 * /sbin, /lib*, /boot), or NULL. */
const char *lcsb__system_tree_of(const char *path);
/* Rule 3's refusal of exec directory PATH, which is or contains PREFIX; RIGHT
 * names the mechanism's exec right ("EXECUTE", "process-exec"). */
int lcsb__refuse_exec_dir(const char *path, const char *right, const char *prefix, lcsb_error *err);
/* Refuse (as above) every exec entry of POLICY that is or contains a system
 * prefix, unless exec is open. */
int lcsb__check_exec_dirs(const lcsb_policy *policy, const char *right, lcsb_error *err);

#endif
