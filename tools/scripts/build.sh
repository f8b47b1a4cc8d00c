#!/usr/bin/env bash
# build.sh PRESET — configure and build one CMake preset (release, tsan, asan, debug).
set -euo pipefail
preset=${1:-release}
cd "$(dirname "$0")/../.."
jobs=$(nproc 2>/dev/null || echo 2)
echo "build: preset '$preset' ($jobs jobs)"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs" 2>&1 | grep -Ev '^\[ *[0-9]+%\] (Building|Linking|Built)' || true
# grep -v swallows the status; check the build really finished
cmake --build --preset "$preset" -j "$jobs" >/dev/null
