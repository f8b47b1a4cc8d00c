#!/usr/bin/env bash
# Installs what cws needs to build and test on Debian 12, and nothing that is
# already there. Idempotent and quiet; says what it installs.
set -euo pipefail

packages=(
  g++ cmake make pkg-config          # toolchain (gcc's sanitizer runtimes come with g++)
  libhwloc-dev libnuma-dev           # topology, pages
  libxml2-dev                        # HClib-style place-tree files (CWS_HPT)
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libboost-serialization-dev         # trace files (cws::traces)
  libgtest-dev libgmock-dev
  libbenchmark-dev                   # Google Benchmark: the micro-benchmarks (tools/bench/micro)
  libtbb-dev                         # baseline (OpenMP comes with g++)
  likwid                             # CWS_WITH_LIKWID: marker headers and library (built by tools/check.sh)
  libopenmpi-dev openmpi-bin         # cws-pcg's MPI scale-out (optional: detected, skipped visibly without)
  python3 python3-matplotlib python3-pandas  # tools/bench: the benchmark report
  qemu-system-x86 busybox-static cpio  # numa-vm guests for the numa-vm tests (../shared/tools/numa-vm)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} build dependencies present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "setup: apt-get failed (log above)" >&2
  exit 1
fi
rm -f "$log"
echo "setup: done"
