/* What the isolation and limits suites share (test_sandbox_enforce_isolation.c,
 * test_sandbox_enforce_limits.c), beside enforce_fixture.h: the record of what
 * a case leaves running or created outside the fixture's directories, ended by
 * the teardown whichever way the case ended, and the small things both
 * suites' cases use (the probe's policy, a background lcsb, a lock that tells
 * whether processes outlived it). */
#ifndef LCSB_TESTS_ISOLATION_FIXTURE_H
#define LCSB_TESTS_ISOLATION_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "enforce_fixture.h"

#if !defined(LCSB_PROBE_PATH) || !defined(LCSB_PAYLOAD_PATH)
#error "build with -DLCSB_PROBE_PATH and -DLCSB_PAYLOAD_PATH (tests/CMakeLists.txt)"
#endif
#define PROBE LCSB_PROBE_PATH

/* cmocka's failures long-jump out of a case: whatever it started outside the
 * fixture's three directories is written down here as it is made, and the
 * teardown ends it, whichever way the case ended. */
struct iso_left {
    pid_t groups[8]; /* process groups (and their leaders) to SIGKILL */
    size_t n_groups;
    int shm, msg;
    char mq[64];
    long keys[8];
    size_t n_keys;
    char dirs[2][PATH_MAX];
    size_t n_dirs;
    bool background; /* probes that stop when PROJECT/stop appears */
};
extern struct iso_left left;

void leave_group(pid_t pid);
void leave_key(long serial);
void drop_key(long serial);
int iso_setup(void **state);
int iso_teardown(void **state);

#define TI(name) cmocka_unit_test_setup_teardown(name, iso_setup, iso_teardown)

void sleep_ms(long ms);
void probe_policy(fx *f);

/* The run P holds, shown, then the failure. */
#define FAIL_RUN(what, cmd, ...)                                                                   \
    do {                                                                                           \
        describe(what, cmd, &P);                                                                   \
        fail_msg(__VA_ARGS__);                                                                     \
    } while (0)

/* The probe did run under the sandbox (so that what it did not see counts). */
#define ASSERT_PROBE_RAN(what, cmd)                                                                \
    do {                                                                                           \
        char ran_[64];                                                                             \
        FMT(ran_, "probe: %s\n", (cmd)[1]);                                                        \
        if (!strstr(P.out, ran_)) FAIL_RUN(what, cmd, "the probe did not run");                    \
    } while (0)

/* Does PATH still grow? */
bool growing(const char *path);
/* Is the lock on PATH free: does no process hold it? */
bool lock_free(const char *path);
/* The start time of /proc/PID in clock ticks since boot, or 0. */
unsigned long long start_time(const char *pid);
/* The number after "KEY" in TEXT, or -1. */
long long number_after(const char *text, const char *key);
/* `lcsb --backend BACKEND p.lua -- CMD` started in the background. */
pid_t start_lcsb(fx *f, const char *backend, const char *const *cmd, int *out);
/* What lcsb started by start_lcsb wrote on stderr. Caller frees. */
char *lcsb_err(fx *f);

#endif
