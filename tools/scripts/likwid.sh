#!/usr/bin/env bash
# likwid.sh [BUILD_DIR] — keeps the likwid configuration (-DCWS_WITH_LIKWID=ON)
# compiling: configures BUILD_DIR (default build/likwid; kept, so later runs
# are incremental) without tests and tools, builds only the libraries and
# cws-fib (its timed calls are likwid marker regions, apps/common/timing.hpp),
# and runs cws-fib once. Without likwid-perfctr the marker calls run and
# count nothing (likwid says "Running without Marker API"); the run checks
# that the markers were compiled in and that the app exits 0.
# Needs likwid's headers and library (Debian: the likwid package, which
# tools/scripts/setup.sh installs); without them the configure step fails,
# naming the package.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/likwid}
# shellcheck source=tools/scripts/steps.sh
source tools/scripts/steps.sh  # $jobs, the scratch directory $tmp, quietly

launcher=()
if [[ -z ${CMAKE_CXX_COMPILER_LAUNCHER:-} ]] && command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
quietly "configure ($build)" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCWS_WITH_LIKWID=ON \
  -DCWS_BUILD_TESTS=OFF -DCWS_BUILD_TOOLS=OFF -DCWS_INSTALL=OFF "${launcher[@]}"
quietly "build of cws-fib" cmake --build "$build" -j "$jobs" --target fib

quietly "run of cws-fib" "$build/apps/cws-fib" -n 18 --iters 1 --runs 1 --warmup 0
if ! grep -q "likwid markers on" "$tmp/log"; then
  cat "$tmp/log" >&2
  echo "likwid: cws-fib was built without its likwid markers (no 'likwid markers on' line)" >&2
  exit 1
fi
echo "likwid: cws-fib built with likwid markers and ran once ($build)"
