#!/usr/bin/env bash
# Install the Debian packages lcsb builds and tests with, when any is missing
# (libssl-dev: OpenSSL 3, which the proxy terminates TLS with where a rule reads).
# Sourced by demo.sh and test.sh; safe to run on its own.
set -euo pipefail

LCSB_PACKAGES=(cmake make gcc musl-tools pkg-config liblua5.4-dev lua5.4 lua-cjson libcmocka-dev libssl-dev
               python3 util-linux procps)
# podman runs the OCI cases: runc (crun fails on this kind of host's hybrid
# cgroups), uidmap and slirp4netns for rootless runs, iptables for its network;
# busybox-static makes the small image one case needs; libc6-dev's libc.a links
# the static payload of the isolation cases; curl, openssl and pip are clients
# (and the certificate) of the net.domains cases, with nodejs's npm where it
# has one (Debian's npm package would replace a newer nodejs); venv and pytest
# are the Python workload's (tests/cli/test_sandbox_workloads.sh); strace counts
# the system calls of lcsb's own process in bench's quick run (issue 28).
LCSB_TEST_PACKAGES=(valgrind bubblewrap clang libclang-rt-14-dev man-db binutils git nodejs
                    podman runc uidmap slirp4netns iptables busybox-static libc6-dev
                    curl openssl python3-pip python3-venv python3-pytest ca-certificates strace)
# The examples' toolchains (tests/cli/test_sandbox_workloads.sh runs each): npm
# comes with some builds of nodejs and is a package of its own in Debian's
# (which would replace such a nodejs), and cargo may come from rustup: each
# only where none is on PATH.
# The go, java, ruby and autotools presets are each tested on Debian's
# toolchain: go, the JDK with junit, ruby with rake and minitest, and
# autoconf, automake and libtool.
LCSB_TEST_PACKAGES+=(golang-go default-jdk-headless junit4 ruby rake ruby-minitest
                     autoconf automake libtool)
command -v npm >/dev/null 2>&1 || LCSB_TEST_PACKAGES+=(npm)
command -v cargo >/dev/null 2>&1 || LCSB_TEST_PACKAGES+=(cargo)
# bench/run.sh: the benchmark's peers (bwrap, firejail; podman comes with the
# tests), gnuplot, which draws the scaling curve, and strace, which counts the
# system calls of lcsb's own process per run (issue 28).
LCSB_BENCH_PACKAGES=(bubblewrap firejail gnuplot-nox strace)

lcsb_install_deps() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  lcsb_install_deps "${LCSB_PACKAGES[@]}" "${LCSB_TEST_PACKAGES[@]}"
fi
