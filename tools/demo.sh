#!/usr/bin/env bash
# The demo: installs what is missing, builds (Release), runs the fib and
# memcopy comparisons against TBB and OpenMP static, inspects the trace
# recorded during memcopy with cws-trace, runs a short heat stencil under
# the random, stows and evolve policies, measures what one parallel phase
# costs (and what the runtimes burn between phases), and shows data placement
# (locality share, pages relocalized) for heat on a synthetic 4-node topology,
# then PufferFish's hinted mode against random and evolve on red-black SOR there.
# Every app times every variant by the wall clock around the user's call.
# No output is piped into head or tail: under pipefail their early exit
# would fail the demo; cws-trace cuts its own listings (--first / --last).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/scripts/setup.sh
bash tools/scripts/build.sh release
bin=build/release/apps
echo
echo "== fib(30): one spawn per call, no cutoff =="
"$bin/cws-fib" --n 30 --runs 7
echo
echo "== memcopy (SC14): A[i]=B[i]=0, then B[i]=A[i] =="
"$bin/cws-memcopy" --runs 5 --trace-out build/memcopy.cwst
echo
echo "== the steal trees recorded during memcopy: cws-trace info =="
build/release/tools/cws-trace/cws-trace info build/memcopy.cwst
echo
echo "== heat (SC14 Jacobi stencil, 1024 x 1024): 10 step phases per run; iteration lines of the first run =="
"$bin/cws-heat" --size 1024 --iters 10 --runs 3 --policies random,stows,evolve
echo
echo "== phase cost: one parallel loop of 2 leaves, empty to 4 MiB per array; CPU burnt in serial gaps between phases =="
"$bin/cws-phases" --sizes 0,1,64,4096 --runs 3 --iters 100
echo
echo "== data placement: heat on a synthetic 4-node topology (simulated page homes): local % and pages moved =="
# 4 workers share the 2 cores here, so run times are noise: evolve must not
# return to relws on a slow run (CWS_EVOLVE_SLOWDOWN=0).
CWS_EVOLVE_SLOWDOWN=0 CWS_TOPOLOGY="pack:4 numa:1 core:1 pu:1" "$bin/cws-heat" --size 1024 --iters 10 --runs 3 \
  --policies random,stows,evolve -q --trace-out build/heat-4nodes.cwst
echo
echo "== cws-trace locality: evolve's first step phases, relocalized while it learns its template =="
build/release/tools/cws-trace/cws-trace locality build/heat-4nodes.cwst --phase heat-step/evolve --first 6
echo
echo "== ... and its last ones: the share local on each node under evolve's latest template (4 workers share 2 cores here, so not every node keeps a busy worker; balance: cws-trace info) =="
build/release/tools/cws-trace/cws-trace locality build/heat-4nodes.cwst --phase heat-step/evolve --last 3
echo
echo "== hinted mode (PufferFish): red-black SOR on the synthetic 4-node topology, hints on every child =="
CWS_EVOLVE_SLOWDOWN=0 CWS_TOPOLOGY="pack:4 numa:1 core:1 pu:1" "$bin/sor/cws-sor" --size 1024 --iters 10 --runs 3 \
  --variants serial,cws-hinted,cws-hinted-hpt,cws-random-ft,cws-random-il,cws-evolve,cws-evolve-hinted
