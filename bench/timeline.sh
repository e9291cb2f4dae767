#!/usr/bin/env bash
# Who waits for whom on a warm run: the world the guessed shim makes ahead,
# or lcsb's own work before it hands the command over. From the kernel's own
# events (perf's sched and syscall tracepoints; nothing in lcsb is timed), N
# warm runs of POLICY -- /bin/true in a project of its own, each event's
# median in ms after lcsb's exec, and in how many runs lcsb was the later
# one. Needs perf (Debian's linux-perf) and root for the tracepoints.
# Usage: bench/timeline.sh [--runs N] [--lcsb PATH] [POLICY.lua]
#   POLICY.lua defaults to the minimal exec_policy; PATH to build/lcsb.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=40
lcsb=$root/build/lcsb
policy=
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --lcsb) lcsb=$2; shift 2 ;;
    -*) echo "timeline: unknown option $1" >&2; exit 2 ;;
    *) policy=$1; shift ;;
  esac
done
command -v perf >/dev/null || { echo "timeline: needs perf (apt-get install linux-perf)" >&2; exit 2; }
[[ -x $lcsb ]] || { echo "timeline: no lcsb at $lcsb (build it, or --lcsb PATH)" >&2; exit 2; }

dir=$(mktemp -d /tmp/lcsb-timeline.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/project" "$dir/state"
if [[ -n $policy ]]; then
  cp "$policy" "$dir/project/policy.lua"
else
  echo 'return function(run) return require("lcsb").exec_policy { project = run.cwd } end' \
    >"$dir/project/policy.lua"
fi
cd "$dir/project"
export XDG_STATE_HOME=$dir/state
said=$("$lcsb" trust policy.lua 2>&1) || { echo "$said" >&2; exit 1; }
# Warm: the plan and the guess kept by the first runs, a second apart so
# that nothing they rest on changed within a second of their making.
"$lcsb" policy.lua -- /bin/true
sleep 1.1
"$lcsb" policy.lua -- /bin/true

perf record -q -o "$dir/perf.data" \
  -e sched:sched_process_exec,sched:sched_process_fork,sched:sched_process_exit \
  -e syscalls:sys_enter_sendmsg,syscalls:sys_enter_landlock_restrict_self \
  -- bash -c "for i in \$(seq $runs); do '$lcsb' policy.lua -- /bin/true; done" >/dev/null
perf script -i "$dir/perf.data" -F comm,pid,time,event 2>/dev/null | python3 -c '
import re, statistics, sys
# One run: from lcsb exec to its exit. Each event its first time in the
# run, by the process name that met it: the first fork of lcsb is the
# guessed shim, its init entering Landlock the world ready, lcsb sendmsg
# the command handed over; lcsb exit is the exit of the pid that began the run.
EVENTS = [
    ("the guessed shim forked", "lcsb", "sched:sched_process_fork"),
    ("its exec", "lcsb-exec", "sched:sched_process_exec"),
    ("its world ready", "lcsb-exec", "syscalls:sys_enter_landlock_restrict_self"),
    ("lcsb hands the command over", "lcsb", "syscalls:sys_enter_sendmsg"),
    ("the command exec", "true", "sched:sched_process_exec"),
    ("the command exit", "true", "sched:sched_process_exit"),
    ("lcsb exit", "lcsb", "sched:sched_process_exit"),
]
runs, cur = [], None
for line in sys.stdin:
    m = re.match(r"\s*(\S+)\s+(\d+)\s+([\d.]+):\s+(\S+):", line)
    if not m:
        continue
    comm, pid, t, event = m.group(1), int(m.group(2)), float(m.group(3)), m.group(4)
    if event == "sched:sched_process_exec" and comm == "lcsb":
        cur = {"t0": t, "pid": pid}
        runs.append(cur)
        continue
    for name, by, what in EVENTS if cur else []:
        if (by, what) == (comm, event) and (name != "lcsb exit" or pid == cur["pid"]):
            cur.setdefault(name, (t - cur["t0"]) * 1000)
            break
names = [name for name, _, _ in EVENTS]
print("ms after lcsb exec, medians of %d warm runs:" % len(runs))
for name in names:
    seen = [r[name] for r in runs if name in r]
    print("  %-28s %7s" % (name, "%.3f" % statistics.median(seen) if seen else "-"))
late = [r["lcsb hands the command over"] - r["its world ready"] for r in runs
        if "lcsb hands the command over" in r and "its world ready" in r]
if late:
    print("lcsb later than the world in %d of %d runs, by a median %.3f ms"
          % (sum(1 for x in late if x > 0), len(late), statistics.median(late)))
else:
    print("no run handed its command to a world made ahead (no guess taken?)")
'
