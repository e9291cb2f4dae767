/* Layer 6, impure: the recorder's reports read into the attestation's
 * refusals, keeping those the policy accounts for (refusals.c). */
#ifndef LCSB_REFUSALS_H
#define LCSB_REFUSALS_H

#include "policy.h"

typedef struct lcsb__refusals lcsb__refusals;

/* A reader for a run of POLICY, which must outlive it. NULL on ENOMEM. */
lcsb__refusals *lcsb__refusals_new(const lcsb_policy *policy);
/* N more bytes of the recorder's pipe, in any pieces: whole lines are read
 * as they complete. Bytes that are no record are passed over. */
void lcsb__refusals_feed(lcsb__refusals *r, const char *bytes, size_t n);
/* What was kept, into ATT's refused and refused_count: an exec only seen
 * asked for (an "exec_seen" record) only when the run FAILED. */
void lcsb__refusals_finish(const lcsb__refusals *r, bool failed, lcsb_attestation *att);
/* The same for a learning run (lcsb_run_options.judge): the execs only seen
 * asked for first, whatever the status, as they are what it learns; then
 * the kernel's refusals, while the list has room. */
void lcsb__refusals_finish_learning(const lcsb__refusals *r, lcsb_attestation *att);
void lcsb__refusals_free(lcsb__refusals *r);

#endif
