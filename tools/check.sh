#!/usr/bin/env bash
# The test suite: installs what is missing, then
#   1. Release build: every test (labels unit, stress);
#   2. ThreadSanitizer build: the concurrency suites (label tsan);
#   3. AddressSanitizer + UBSan + LeakSanitizer build: the unit suites.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

step() { echo; echo "== $* =="; }

step "release build, all tests"
bash tools/scripts/build.sh release
ctest --preset release -j "$jobs" --timeout 900

step "ThreadSanitizer build, concurrency tests"
bash tools/scripts/build.sh tsan
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --preset tsan -j "$jobs" --timeout 1800

step "AddressSanitizer/UBSan/LeakSanitizer build, unit tests"
bash tools/scripts/build.sh asan
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" ctest --preset asan -L unit -j "$jobs" --timeout 900

echo
echo "check: all suites passed"
