#!/usr/bin/env bash
# Install what is missing, build lcsb, and run the demo (examples/demo).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/deps.sh"
lcsb_install_deps "${LCSB_PACKAGES[@]}"
cmake -S "$root" -B "$root/build" -DLCSB_TESTS=OFF >/dev/null
cmake --build "$root/build" -j "$(nproc)" >/dev/null
exec "$root/examples/demo/run.sh" "$root/build/lcsb"
