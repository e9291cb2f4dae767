/* Layer 6: plans, policies composed once and kept for the runs after.
 *
 * A plan is what exec_policy's composition made of a policy's options
 * (bytes the Lua side encodes, lua_data.c), kept per user beside the trust
 * store, in $XDG_STATE_HOME/lcsb/plans: a directory of the user's own that no
 * one else may write, one file per key, each the user's own too. With it
 * goes the record of what the composition rested on (facts.h), each thing in
 * the cheapest form that still tells a change:
 *
 *   - a directory of the system's (root's, written by no one else, outside
 *     the user's HOME and where the command writes) by its identity and
 *     times: any entry made, removed or renamed in it changes them;
 *   - anything else it looked up by its own identity and times (or that
 *     there is none): a program in the user's HOME, a link in the project,
 *     re-pointed or rewritten in place;
 *   - a directory it listed by its identity and times.
 *
 * A later run finds the plan by the same key and uses it only when every
 * line still holds; anything changed, and the policy is composed again. A
 * plan is not kept when what it rests on changed within a second of the
 * composition (a file system's clock can hide a second change in the same
 * tick), nor when the composition asked what the record cannot hold. */
#ifndef LCSB_PLAN_H
#define LCSB_PLAN_H

#include "facts.h"
#include "util.h"

#include <stddef.h>
#include <time.h>

/* The most a plan file may hold. */
#define LCSB__PLAN_MAX ((size_t)16 << 20)

/* The plan for KEY (LEN bytes) whose record still holds: its data into
 * *DATA (caller frees), *DATA_LEN bytes, and 0. 1 when there is none to
 * use, with why in WHY (WHY_SIZE bytes): none kept, a change ("PATH
 * changed"), a store or a file others may write (those are refused, never
 * used). */
int lcsb__plan_find(const char *key, size_t len, char **data, size_t *data_len, char *why,
                    size_t why_size);

/* Keeps DATA (LEN bytes) as the plan for KEY (KEY_LEN bytes), with the
 * record of what FACTS marked while recording, composed from MADE (a time
 * lcsb__fs_now gave before it began), the N paths of AREAS being where the
 * command may write. 0 when kept; 1, with why in WHY, when it is not (the
 * record could not hold the composition, a change too recent, a store
 * others may write, a file system that refused). */
int lcsb__plan_save(const char *key, size_t key_len, const lcsb__facts *facts, struct timespec made,
                    const char *const *areas, size_t n, const char *data, size_t len, char *why,
                    size_t why_size);

/* A guess (run.c, lcsb_runner_start): bytes kept in the plan store under
 * KEY (LEN bytes), for a later run to start what it will probably need;
 * nothing is enforced from it. Taken under a lock held by *HELD (a
 * descriptor the caller closes once the run is over: a run at the same
 * time finds it locked and takes none), and used only when the file is the
 * user's own, written by no one else: 0 and *DATA (caller frees, *DATA_LEN
 * bytes), else 1. */
int lcsb__plan_guess_take(const char *key, size_t len, char **data, size_t *data_len, int *held);
/* Keeps DATA (DATA_LEN bytes) as the guess for KEY: 0, or 1 when it
 * cannot. */
int lcsb__plan_guess_keep(const char *key, size_t len, const char *data, size_t data_len);

/* The directory plans are kept in, into OUT (SIZE bytes). */
int lcsb__plan_store(char *out, size_t size, lcsb_error *err);

#endif
