#!/usr/bin/env bash
# Measure what lcsb costs in front of a command (issue 7): build a Release
# tree of its own, run the harness, keep its JSON and a plot of the shim's
# cost by policy size. Machine-specific, so bench/results/ is not committed.
# Then the build benchmark (bench-project: make -j2 on 200 generated C files,
# bare, under lcsb with and without the refusal recorder, under bwrap), whose
# exit status is the script's: 3 when the recorder's 5% gate is exceeded.
# Usage: bench/run.sh [--iterations N] [--quick]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
lcsb_install_deps "${LCSB_PACKAGES[@]}" "${LCSB_BENCH_PACKAGES[@]}"
build=$root/build-bench
results=$root/bench/results

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLCSB_BENCH=ON -DLCSB_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target bench bench-project >/dev/null
mkdir -p "$results"
# The podman row, as root on this kind of host, needs what the tests use.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/scripts/containers.conf}
"$build/bench/bench" --json "$results/latest.json" "$@"

# The scaling points as "rules median min max", which gnuplot reads.
python3 - "$results/latest.json" >"$results/scaling.dat" <<'EOF'
import json, sys
for p in json.load(open(sys.argv[1]))["scaling"]["points"]:
    if p["status"] == "ok":
        print(p["rules"], p["median_ms"], p["min_ms"], p["max_ms"])
EOF
gnuplot <<EOF
set terminal pngcairo size 900,560
set output "$results/scaling.png"
set title "lcsb-exec running /bin/true: wall time by policy size"
set xlabel "path rules in the policy"
set ylabel "ms (median, bars: min-max)"
set key top left
set offsets graph 0.02, graph 0.02, graph 0.05, 0
set grid
set fit quiet
set fit logfile "/dev/null"
f(x) = a + b * x
fit f(x) "$results/scaling.dat" using 1:2 via a, b
plot "$results/scaling.dat" using 1:2:3:4 with yerrorbars pt 7 title "measured", \
     f(x) title sprintf("fit: %.2f ms + %.2f us per rule", a, b * 1000)
EOF
echo "wrote $results/latest.json and $results/scaling.png"

# Minutes, not seconds: every row builds the project from clean each round.
project_args=()
for a in "$@"; do
  if [[ $a == --quick ]]; then project_args+=(--quick); fi
done
"$build/bench/bench-project" "${project_args[@]}"
