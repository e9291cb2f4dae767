#!/usr/bin/env bash
# Fuzz everything lcsb parses from outside: the shim's policy argv, the
# attestation's reading of a header, the Lua tables lcsb.policy takes, the
# trust store's records and its summary of a changed policy, and what a
# command sends lcsb's proxy (with the net.domains and net.lan entries), and
# what the recorder's pipe carries, the data of a plan a later run reads, and
# a PEM bundle read into the Java truststore.
# Usage: scripts/fuzz.sh [SECONDS-PER-TARGET] (default 300). Corpora start
# from tests/fuzz/corpus; findings land in build-fuzz/findings.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
source "$root/scripts/deps.sh"
lcsb_install_deps "${LCSB_PACKAGES[@]}" clang libclang-rt-14-dev
out=$root/build-fuzz
CC=clang cmake -S "$root" -B "$out" -DLCSB_FUZZ=ON -DLCSB_SANITIZE=address,undefined \
  -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$out" -j "$(nproc)" --target fuzz_shim_policy fuzz_attest fuzz_lua_policy fuzz_trust \
  fuzz_proxy_request fuzz_refusals fuzz_plan_data fuzz_jks_pem >/dev/null
mkdir -p "$out/findings"
for target in shim_policy attest lua_policy trust proxy_request refusals plan_data jks_pem; do
  corpus=$out/corpus/$target
  mkdir -p "$corpus"
  cp -n "$root/tests/fuzz/corpus/$target/"* "$corpus/" 2>/dev/null || true
  echo "== fuzz_$target for ${seconds}s"
  "$out/tests/fuzz_$target" -max_total_time="$seconds" -close_fd_mask=2 \
    -artifact_prefix="$out/findings/$target-" "$corpus" 2>&1 | tail -n 2
done
