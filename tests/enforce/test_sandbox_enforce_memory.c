/* limits.memory holds what the command holds, in every form: memory it
 * never maps (a memfd written and left), memory no process counts (SysV
 * shared memory attached, filled and detached), many processes at once,
 * its private TMPDIR; and it cannot reach for the kernel's default limits
 * in an IPC namespace of its own. The rules of the enforcement suites are
 * in enforce_fixture.h.
 *
 * The attacks are memory_probe's verbs (LCSB_MEMORY_PROBE_PATH), which the
 * policies name in their exec list, each asking for four times the limit
 * or more. Each case runs its twin first, the same probe unsandboxed (or
 * under the same policy without `memory`), holding all it asked for: that
 * the attack works when nothing stops it is known before the sandbox is
 * asked to stop it.
 *
 * What a run charged the host is measured where the suite may make a
 * memory cgroup (root on cgroup v1's memory hierarchy): it runs in one of
 * its own, below which lcsb, the shim and the command run, and the kernel's
 * max_usage_in_bytes there is the most memory the host held for them at
 * once. Elsewhere the probe's own count of what it held says it.
 *
 * A memory cgroup is what holds the memfd, the processes together and the
 * tmpfs: the cases that need one skip without it (an unprivileged user on
 * a host that delegates none), and fail for root under
 * LCSB_SANDBOX_TESTS_REQUIRED=1. What holds without one (SysV shared
 * memory, by the IPC namespace's limits) is run either way, the policy
 * letting the memory part degrade where there is none. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four above, which it needs */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "detect.h"
#include "enforce_fixture.h"

#ifndef LCSB_MEMORY_PROBE_PATH
#error "build with -DLCSB_MEMORY_PROBE_PATH (tests/CMakeLists.txt)"
#endif
#define PROBE LCSB_MEMORY_PROBE_PATH

#define MIB (1024LL * 1024LL)
/* The limit every case sets, and what each attack asks for. */
#define LIMIT_MIB 64
#define LIMIT "67108864"
#define ATTACK_MIB 256
#define ATTACK "256"
/* The memory lcsb's own run may vary by between two runs, beyond the limit. */
#define SLACK_MIB 24

/* The memory cgroup this host lets lcsb make (lcsb_capability's). */
static int memory_cgroup;
/* Where lcsb makes its cgroups (the suite's own, or the one it runs in). */
static char cgroup_home[PATH_MAX];

/* ---- the host's side: what a run charged ---- */

/* The suite's own cgroup, on cgroup v1's memory hierarchy, a child of the
 * one it was started in; "" where it may make none. */
static struct {
    char dir[PATH_MAX];
    char parent[PATH_MAX];
    long long start;
} meter;

static long long read_number(const char *dir, const char *file) {
    char path[PATH_MAX + 64], text[64];
    FMT(path, "%s/%s", dir, file);
    read_file(path, text, sizeof text);
    return text[0] ? atoll(text) : -1;
}

static bool write_text(const char *dir, const char *file, const char *text) {
    char path[PATH_MAX + 64];
    FMT(path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0) close(fd);
    return ok;
}

/* Named as the shim names its own: a suite killed before its teardown
 * leaves one that the next lcsb run beside it removes. */
static void meter_setup(void) {
    char parent[PATH_MAX], self[32];
    if (geteuid() != 0 || !lcsb__own_cgroup_dir(1, parent, sizeof parent)) return;
    FMT(meter.parent, "%s", parent);
    FMT(meter.dir, "%s/lcsb-%d", parent, (int)getpid());
    FMT(self, "%d", (int)getpid());
    if (mkdir(meter.dir, 0755) != 0 || !write_text(meter.dir, "cgroup.procs", self)) {
        fprintf(stderr, "# cannot measure the host's memory in %s: %s\n", meter.dir,
                strerror(errno));
        rmdir(meter.dir);
        meter.dir[0] = '\0';
    }
}

static void meter_teardown(void) {
    char self[32];
    if (!meter.dir[0]) return;
    FMT(self, "%d", (int)getpid());
    write_text(meter.parent, "cgroup.procs", self);
    rmdir(meter.dir);
}

/* From now: the peak starts again from what is held now, once what the
 * last run held is let go of (the kernel frees an IPC namespace, and the
 * segments in it, a while after its last process). */
static void meter_start(void) {
    if (!meter.dir[0]) return;
    long long last = -1, now = read_number(meter.dir, "memory.usage_in_bytes");
    for (int i = 0; i < 60 && (last < 0 || llabs(now - last) >= MIB); i++) {
        usleep(50 * 1000);
        last = now;
        now = read_number(meter.dir, "memory.usage_in_bytes");
    }
    assert_true(write_text(meter.dir, "memory.max_usage_in_bytes", "0"));
    meter.start = read_number(meter.dir, "memory.usage_in_bytes");
}

/* The most the host held at once since meter_start, in MiB beyond what it
 * held then; -1 where it cannot be measured. */
static long long meter_peak_mib(void) {
    if (!meter.dir[0]) return -1;
    return (read_number(meter.dir, "memory.max_usage_in_bytes") - meter.start) / MIB;
}

static int memory_group_setup(void **state) {
    lcsb_capability cap;
    lcsb_error err;
    meter_setup();
    if (lcsb_detect(&cap, NULL, &err) != 0) return -1;
    memory_cgroup = cap.memory_cgroup;
    if (memory_cgroup) lcsb__own_cgroup_dir(memory_cgroup, cgroup_home, sizeof cgroup_home);
    fprintf(stderr, "# memory cgroup: %s%s; the host's memory %s\n",
            memory_cgroup == 2   ? "cgroup v2 in "
            : memory_cgroup == 1 ? "cgroup v1 in "
                                 : "none",
            cgroup_home, meter.dir[0] ? "measured" : "not measured (the probe's count only)");
    return enforce_group_setup(state);
}

static int memory_group_teardown(void **state) {
    (void)state;
    meter_teardown();
    return 0;
}

/* ---- small things the cases share ---- */

/* A case that needs a memory cgroup: an unprivileged user may have none
 * (skip); root on a host that has one must get it. */
#define NEED_MEMORY_CGROUP()                                                                       \
    do {                                                                                           \
        NEED_LANDLOCK();                                                                           \
        if (!memory_cgroup) {                                                                      \
            if (tests_required() && geteuid() == 0)                                                \
                fail_msg("no memory cgroup lcsb may make, for root, and "                          \
                         "LCSB_SANDBOX_TESTS_REQUIRED=1");                                         \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* The run P holds, shown, then the failure. */
#define FAIL_RUN(what, cmd, ...)                                                                   \
    do {                                                                                           \
        describe(what, cmd, &P);                                                                   \
        fail_msg(__VA_ARGS__);                                                                     \
    } while (0)

/* The most the probe said it held ("held N MiB"), or 0. */
static long long held_mib(const char *out) {
    long long most = 0;
    for (const char *at = strstr(out, "held "); at; at = strstr(at + 1, "held ")) {
        long long n = strtoll(at + 5, NULL, 10);
        if (n > most) most = n;
    }
    return most;
}

/* The policy of the cases: the probe, and TAIL (limits and the like). A
 * host without a memory cgroup lets the memory part go, where MAY_DEGRADE. */
static void probe_policy(fx *f, const char *tail, bool may_degrade) {
    policy(f, "exec = { \"%s\", \"sh\", \"head\", \"ls\" }%s%s", PROBE,
           may_degrade && !memory_cgroup ? ", degrade = { \"memory\" }" : "", tail);
}

/* Is PID gone: no such process, or one that exited and waits to be reaped
 * (a shim killed with lcsb is reparented, and reaped when its new parent
 * gets to it)? */
static bool gone(long pid) {
    char path[64], stat[512];
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return true;
    FMT(path, "/proc/%ld/stat", pid);
    read_file(path, stat, sizeof stat);
    const char *state = strrchr(stat, ')');
    return state && (state[2] == 'Z' || state[2] == 'X');
}

/* The cgroups of lcsb's in the directory where it makes them, of shims
 * that are gone (another run's, beside the suite where it has no cgroup of
 * its own, is named after a shim still there), named in LEFT; how many. */
static int lcsb_cgroups(char *left, size_t size) {
    DIR *d = opendir(cgroup_home);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    left[0] = '\0';
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "lcsb-", 5) != 0 || !gone(atol(e->d_name + 5))) continue;
        n++;
        if (strlen(left) + strlen(e->d_name) + 2 < size) {
            strcat(left, " ");
            strcat(left, e->d_name);
        }
    }
    closedir(d);
    return n;
}

/* No cgroup of lcsb's is left where it makes them. */
static void assert_no_cgroup_left(const char *when) {
    char left[256];
    if (cgroup_home[0] && lcsb_cgroups(left, sizeof left))
        fail_msg("%s: lcsb left its memory cgroups in %s:%s", when, cgroup_home, left);
}

/* The twin: unsandboxed, CMD holds all of ATTACK_MIB, and the host held it. */
static void expect_held_unsandboxed(fx *f, const char *const *cmd) {
    meter_start();
    expect_unsandboxed_ok(f, cmd, &P);
    long long held = held_mib(P.out), peak = meter_peak_mib();
    if (held < ATTACK_MIB) FAIL_RUN("none", cmd, "the probe held %lld MiB unsandboxed", held);
    if (peak >= 0 && peak < ATTACK_MIB)
        FAIL_RUN("none", cmd, "the host held %lld MiB for the probe, unsandboxed", peak);
    fprintf(stderr, "# none: %s %s held %lld MiB, the host %lld MiB\n", cmd[1], cmd[2], held, peak);
}

/* What a run of a probe that does next to nothing costs the host. */
static long long baseline_mib(fx *f) {
    const char *const *cmd = CMD(PROBE, "ipc-limits");
    meter_start();
    lcsb(f, mech, cmd, &P);
    if (P.status != 0) FAIL_RUN(mech, cmd, "the probe failed under the memory limit");
    return meter_peak_mib();
}

/* Under the limit: CMD is stopped (it fails, or the kernel kills it), it
 * never held more than the limit (where its count is EXACT; else less than
 * it asked for), nor did the host for it, and the cgroup is gone. */
static void expect_held_to_limit(fx *f, const char *const *cmd, bool exact) {
    long long base = baseline_mib(f);
    meter_start();
    lcsb(f, mech, cmd, &P);
    long long held = held_mib(P.out), peak = meter_peak_mib();
    char ran[64];
    FMT(ran, "probe: %s\n", cmd[1]);
    if (!strstr(P.out, ran)) FAIL_RUN(mech, cmd, "the probe did not run");
    if (P.status == 0 || P.status == 97 || P.status == 125)
        FAIL_RUN(mech, cmd, "the probe was not stopped under limits.memory = %d MiB (%d)",
                 LIMIT_MIB, P.status);
    if (exact ? held > LIMIT_MIB : held >= ATTACK_MIB)
        FAIL_RUN(mech, cmd, "the probe held %lld MiB under limits.memory = %d MiB", held,
                 LIMIT_MIB);
    if (peak >= 0 && base >= 0 && peak > base + LIMIT_MIB + SLACK_MIB)
        FAIL_RUN(mech, cmd,
                 "the host held %lld MiB for the run (%lld MiB for a run that holds nothing) "
                 "under limits.memory = %d MiB",
                 peak, base, LIMIT_MIB);
    fprintf(stderr, "# %s: %s %s held %lld MiB, the host %lld MiB (%lld for nothing), status %d\n",
            mech, cmd[1], cmd[2], held, peak, base, P.status);
    assert_no_cgroup_left(cmd[1]);
}

/* ---- the attacks ---- */

/* A memfd written and never mapped: no address space holds it. */
static void test_memfd_held_to_the_limit(void **state) {
    NEED_MEMORY_CGROUP();
    fx *f = *state;
    const char *const *cmd = CMD(PROBE, "memfd", ATTACK);
    probe_policy(f, "", false);
    expect_held_unsandboxed(f, cmd);
    probe_policy(f, ", limits = { memory = " LIMIT " }", false);
    expect_held_to_limit(f, cmd, true);
}

/* SysV segments of 8 MiB, each attached, filled and detached: held by the
 * IPC namespace, counted against no process. The IPC namespace's limits
 * hold them with a cgroup or without one. */
static void test_shm_held_to_the_limit(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    const char *const *cmd = CMD(PROBE, "shm", ATTACK, "8");
    probe_policy(f, "", true);
    expect_held_unsandboxed(f, cmd);
    probe_policy(f, ", limits = { memory = " LIMIT " }", true);
    expect_held_to_limit(f, cmd, true);
    if (!strstr(P.out, "ENOSPC") && !memory_cgroup)
        FAIL_RUN(mech, cmd, "without a cgroup, the IPC namespace's shmall refuses the segment");
}

/* Six processes of 48 MiB each at once, every one within RLIMIT_AS. What
 * they held at once, the host's count says (the probe's is close). */
static void test_processes_held_together(void **state) {
    NEED_MEMORY_CGROUP();
    fx *f = *state;
    const char *const *cmd = CMD(PROBE, "procs", "6", "48");
    probe_policy(f, "", false);
    expect_held_unsandboxed(f, cmd);
    probe_policy(f, ", limits = { memory = " LIMIT " }", false);
    expect_held_to_limit(f, cmd, false);
}

/* The private TMPDIR is a tmpfs, memory: `tmp` above `memory` holds no more
 * than `memory`. The twin is the same policy without `memory`. */
static void test_tmp_held_to_the_limit(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    const char *const *cmd =
        CMD("sh", "-c", "head -c 134217728 /dev/zero > \"$TMPDIR/big\" && ls -l \"$TMPDIR/big\"");
    probe_policy(f, ", limits = { tmp = 1 << 30 }", true);
    expect_allowed(f, cmd, &P);
    assert_contains(P.out, "134217728", "stdout");
    probe_policy(f, ", limits = { tmp = 1 << 30, memory = " LIMIT " }", true);
    expect_denied(f, cmd, -1, &P);
    assert_lacks(P.out, "134217728", "stdout");
    assert_no_cgroup_left("tmp");
}

/* A user namespace of its own, and in it an IPC namespace, would start from
 * the kernel's limits again: refused. The limits themselves are not the
 * command's to raise. */
static void test_ipc_limits_are_the_sandbox_s(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    const char *const *escape = CMD(PROBE, "new-ipc");
    const char *const *raise = CMD(PROBE, "raise-shm");
    const char *const *limits = CMD(PROBE, "ipc-limits");
    probe_policy(f, "", true);
    expect_unsandboxed_ok(f, escape, &P);
    assert_contains(P.out, "new-ipc: ok", "stdout");
    if (geteuid() == 0) {
        expect_unsandboxed_ok(f, raise, &P);
        assert_contains(P.out, "open for writing", "stdout");
    }
    probe_policy(f, ", limits = { memory = " LIMIT " }", true);
    expect_denied(f, escape, 1, &P);
    assert_contains(P.out, "new-ipc: ENOSPC", "stdout");
    expect_denied(f, raise, 1, &P);
    assert_contains(P.out, "raise-shm: EACCES", "stdout");
    /* As docs/policy.md says: shared memory to the limit, message queues
     * and semaphores to about it. */
    char want[128];
    expect_allowed(f, limits, &P);
    assert_contains(P.out, "shmmax=" LIMIT "\n", "stdout");
    FMT(want, "shmall=%lld\n", LIMIT_MIB * MIB / sysconf(_SC_PAGESIZE));
    assert_contains(P.out, want, "stdout");
    FMT(want, "msgmni=%lld\n", LIMIT_MIB * MIB / (65 * 16384));
    assert_contains(P.out, want, "stdout");
    FMT(want, "sem=32000 %lld 500 32000\n", LIMIT_MIB * MIB / 128);
    assert_contains(P.out, want, "stdout");
}

/* ---- what is said ---- */

/* The attestation names what holds the limit. Without a memory cgroup the
 * run is refused unless the policy lets memory degrade; then it is said
 * dropped, held per process and in the IPC namespace only. */
static void test_memory_attested(void **state) {
    NEED_LANDLOCK();
    fx *f = *state;
    char attest[PATH_MAX];
    path_in(attest, f->outside, "attest.json");
    const char *const *cmd = CMD(PROBE, "ipc-limits");
    const char *const options[] = {"--attest", attest, NULL};
    if (memory_cgroup) {
        probe_policy(f, ", limits = { memory = " LIMIT " }", false);
        lcsb_opts(f, mech, options, cmd, NULL, &P);
        if (P.status != 0) FAIL_RUN(mech, cmd, "the run failed");
        char *json = slurp(attest);
        assert_non_null(json);
        assert_contains(
            json, memory_cgroup == 2 ? "\"memory_by\":\"cgroup2\"" : "\"memory_by\":\"cgroup1\"",
            "the attestation");
        assert_contains(json, "\"dropped\":[]", "the attestation");
        free(json);
        assert_no_cgroup_left("attested");
        return;
    }
    probe_policy(f, ", limits = { memory = " LIMIT " }", false);
    lcsb_opts(f, mech, options, cmd, NULL, &P);
    if (P.status != 125) FAIL_RUN(mech, cmd, "no memory cgroup: expected a refusal (125)");
    if (!has_line(P.err, "lcsb: ", CMD("cannot enforce memory", "degrade = { \"memory\" }")))
        FAIL_RUN(mech, cmd, "the refusal does not name the memory part and its degrade word");
    assert_lacks(P.out, "probe:", "stdout");
    probe_policy(f, ", limits = { memory = " LIMIT " }", true);
    lcsb_opts(f, mech, options, cmd, NULL, &P);
    if (P.status != 0) FAIL_RUN(mech, cmd, "the run failed with memory allowed to degrade");
    char *json = slurp(attest);
    assert_non_null(json);
    assert_contains(json, "\"dropped\":[\"memory\"]", "the attestation");
    assert_contains(json, "\"limits\":\"memory=" LIMIT "\",\"memory_by\":\"rlimit\"",
                    "the attestation");
    free(json);
}

/* The kernel's kill for memory is named before the trailer: one of six
 * processes touching memory it faults in, which the kernel answers with a
 * kill, not an error. */
static void test_out_of_memory_said(void **state) {
    NEED_MEMORY_CGROUP();
    fx *f = *state;
    const char *const *cmd = CMD(PROBE, "procs", "6", "48");
    probe_policy(f, ", limits = { memory = " LIMIT " }", false);
    lcsb(f, mech, cmd, &P);
    if (P.status == 0) FAIL_RUN(mech, cmd, "the probe was not stopped");
    if (!has_line(P.err, "lcsb: ", CMD("memory limit (limits.memory)", "killed")))
        FAIL_RUN(mech, cmd, "no lcsb: line names the memory limit");
    assert_trailer(&P, mech);
}

/* ---- nothing left behind ---- */

/* Any cgroup of lcsb's where it makes them, its shim gone or not. */
static bool any_lcsb_cgroup(void) {
    DIR *d = opendir(cgroup_home);
    assert_non_null(d);
    struct dirent *e;
    bool any = false;
    while ((e = readdir(d))) any = any || strncmp(e->d_name, "lcsb-", 5) == 0;
    closedir(d);
    return any;
}

/* lcsb killed by SIGKILL: the shim mostly dies with it before it can
 * remove the cgroup, and the next run removes it; at times (one run in
 * two under ASan) the shim outlives it long enough to remove the cgroup
 * itself. Either way nothing of the run stays in use, and nothing is left
 * after the next run. */
static void test_cgroup_of_a_killed_run_removed(void **state) {
    NEED_MEMORY_CGROUP();
    fx *f = *state;
    probe_policy(f, ", limits = { memory = " LIMIT " }", false);
    char err[PATH_MAX];
    path_in(err, f->outside, "lcsb.err");
    int out[2];
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        dup2(out[1], 1);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (e >= 0) dup2(e, 2);
        if (chdir(f->project) != 0) _exit(126);
        execl(LCSB_CLI_PATH, LCSB_CLI_PATH, "--no-trust-check", "--backend", mech, f->policy, "--",
              "sh", "-c", "echo started; sleep 30", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    char line[64];
    bool started = read_line(out[0], line, sizeof line);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(out[0]);
    if (!started) {
        char *said = slurp(err);
        fail_msg("%s: the command did not start; lcsb said:\n%s", mech, said ? said : "");
    }
    /* The shim and the command die of lcsb's death (the parent-death
     * signal), and leave their cgroup, empty. */
    char left[256], procs[PATH_MAX + 300], text[64] = "x";
    bool removed = false;
    for (int i = 0; i < 100 && text[0] && !removed; i++) {
        usleep(20 * 1000);
        text[0] = '\0';
        removed = !any_lcsb_cgroup();
        if (removed || lcsb_cgroups(left, sizeof left) != 1) continue;
        FMT(procs, "%s/%s/cgroup.procs", cgroup_home, left + 1);
        read_file(procs, text, sizeof text);
    }
    if (!removed && (lcsb_cgroups(left, sizeof left) != 1 || text[0]))
        fail_msg("%s: lcsb killed by SIGKILL: expected its cgroup left empty or removed, found%s%s",
                 mech, left[0] ? left : " one whose shim is still running",
                 text[0] ? " (still in use)" : "");
    const char *const *cmd = CMD(PROBE, "ipc-limits");
    expect_allowed(f, cmd, &P);
    assert_no_cgroup_left("the run after one killed with SIGKILL");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* the attacks */
        T(test_memfd_held_to_the_limit),
        T(test_shm_held_to_the_limit),
        T(test_processes_held_together),
        T(test_tmp_held_to_the_limit),
        T(test_ipc_limits_are_the_sandbox_s),
        /* what is said */
        T(test_memory_attested),
        T(test_out_of_memory_said),
        /* nothing left behind */
        T(test_cgroup_of_a_killed_run_removed),
    };
    return cmocka_run_group_tests_name("sandbox_enforce_memory", tests, memory_group_setup,
                                       memory_group_teardown);
}
