#!/usr/bin/env bash
# consumers.sh [BUILD_DIR] — cws used from other projects (tools/consumers/):
#   1. installs BUILD_DIR (default build/release, already built) into a
#      temporary prefix, then builds and runs
#        cmake/      find_package(cws REQUIRED), cws::cws   (CMAKE_PREFIX_PATH)
#        pkgconfig/  pkg-config --cflags --libs cws         (PKG_CONFIG_PATH)
#   2. subdir/: a parent project that adds the source tree with
#      add_subdirectory and picks its own build type (Debug) afterwards; built
#      in build/consumers/subdir (kept: later runs are incremental).
# Quiet: one line per consumer; a failing step prints its log.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
# shellcheck source=tools/scripts/steps.sh
source tools/scripts/steps.sh  # $jobs, the scratch directory $tmp, quietly
prefix=$tmp/prefix

quietly "cmake --install $build" cmake --install "$build" --prefix "$prefix"
pc=$(find "$prefix" -name cws.pc -path '*/pkgconfig/*' | head -n 1)
config=$(find "$prefix" -name cws-config.cmake | head -n 1)
[[ -n $pc && -n $config ]] || { echo "consumers: the install has no cws.pc or cws-config.cmake" >&2; exit 1; }
echo "consumers: installed $(find "$prefix" -type f | wc -l) files ($(find "$prefix/bin" -type f | wc -l) programs) into a temporary prefix"

# find_package(cws) through CMAKE_PREFIX_PATH; make sure it found this install.
quietly "configure tools/consumers/cmake" \
  cmake -S tools/consumers/cmake -B "$tmp/cmake" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
found=$(sed -n 's/^cws_DIR:PATH=//p' "$tmp/cmake/CMakeCache.txt")
[[ $found == "$(dirname "$config")" ]] || { echo "consumers: find_package(cws) found '$found', not the install" >&2; exit 1; }
quietly "build tools/consumers/cmake" cmake --build "$tmp/cmake" -j "$jobs"
"$tmp/cmake/consumer"

# pkg-config.
mkdir -p "$tmp/pkgconfig"
quietly "build tools/consumers/pkgconfig" \
  env PKG_CONFIG_PATH="$(dirname "$pc")" make -C tools/consumers/pkgconfig OUT="$tmp/pkgconfig"
"$tmp/pkgconfig/consumer"

# add_subdirectory (no build type given: the parent's default must win).
sub=build/consumers/subdir
quietly "configure tools/consumers/subdir" cmake -S tools/consumers/subdir -B "$sub"
quietly "build tools/consumers/subdir" cmake --build "$sub" -j "$jobs" --target consumer
"$sub/consumer"
