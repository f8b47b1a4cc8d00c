#!/usr/bin/env bash
# The test suite: installs what is missing, then
#   1. Release build: every test (labels unit, stress) except the numa-vm ones;
#      then the install and the consumers of tools/consumers/ (find_package,
#      pkg-config, add_subdirectory: tools/scripts/consumers.sh);
#   2. likwid build (-DCWS_WITH_LIKWID=ON, build/likwid): the libraries and
#      cws-fib only, run once with its marker regions (no counters needed:
#      tools/scripts/likwid.sh), so that configuration cannot rot unseen;
#   3. Release build: the kernel NUMA tests (label numa-vm), on 2 and 4 NUMA
#      nodes: natively on a NUMA host, else in numa-vm guests (one at a time:
#      each guest wants the host's cores);
#   4. ThreadSanitizer build: the concurrency suites (label tsan);
#   5. AddressSanitizer + UBSan + LeakSanitizer build: the unit suites.
# The sanitizer trees are the largest (about 75 instrumented test binaries
# each): once its suites passed, a sanitizer tree is removed to leave room for
# the next one, unless CWS_CHECK_KEEP_BUILDS=1. After every build the script
# prints the tree's size and the space left on its disk.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

step() { echo; echo "== $* =="; }
footprint() { echo "disk: $1 takes $(du -sh "$1" | cut -f1), $(df -h --output=avail "$1" | tail -1 | tr -d ' ') left"; }
remove_tree() {
  if [[ ${CWS_CHECK_KEEP_BUILDS:-0} == 1 ]]; then return; fi
  rm -rf "$1"
  echo "disk: removed $1 after its suites passed (CWS_CHECK_KEEP_BUILDS=1 keeps it)"
}

step "release build, all tests but numa-vm"
bash tools/scripts/build.sh release
footprint build/release
ctest --preset release -LE numa-vm -j "$jobs" --timeout 900

step "install + consumers (find_package, pkg-config, add_subdirectory)"
bash tools/scripts/consumers.sh build/release

step "likwid build (CWS_WITH_LIKWID=ON), cws-fib run once with markers"
bash tools/scripts/likwid.sh build/likwid

step "release build, kernel NUMA tests (numa-vm)"
ctest --preset release -L numa-vm --timeout 900

step "ThreadSanitizer build, concurrency tests"
bash tools/scripts/build.sh tsan
footprint build/tsan
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --preset tsan -j "$jobs" --timeout 1800
remove_tree build/tsan

step "AddressSanitizer/UBSan/LeakSanitizer build, unit tests"
bash tools/scripts/build.sh asan
footprint build/asan
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" ctest --preset asan -L unit -j "$jobs" --timeout 900
remove_tree build/asan

echo
echo "check: all suites passed"
