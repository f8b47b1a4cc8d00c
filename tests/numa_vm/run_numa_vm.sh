#!/usr/bin/env bash
# run_numa_vm.sh NODES CPUS NUMA_VM COMMAND [ARGS...]
# Runs COMMAND (a test binary) where NODES NUMA nodes exist: natively when
# this host has that many, else in a numa-vm guest with NODES nodes and CPUS
# vCPUs. Exits 77 (ctest: skipped) when neither is possible.
set -uo pipefail
nodes=$1 cpus=$2 vm=$3
shift 3
host_nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' 2>/dev/null | wc -l)
if ((host_nodes >= nodes)); then
  echo "run_numa_vm: this host has $host_nodes NUMA nodes; running natively"
  exec "$@"
fi
if [[ -z $vm || ! -x $vm ]]; then
  echo "skipped: this host has $host_nodes NUMA node(s) (need $nodes) and the numa-vm tool" \
       "(../shared/tools/numa-vm/numa-vm) was not found"
  exit 77
fi
# TCG emulation is about 10x slower than native: a small guest, a hard timeout.
"$vm" --nodes "$nodes" --cpus "$cpus" --mem-mb 2048 --timeout 600 -- "$@"
rc=$?
# 125: the guest never ran the command (no kernel could be fetched or booted):
# the tool is there but unusable here, which is a skip, not a test failure.
# 124 (timeout) and the command's own failures are failures.
if ((rc == 125)); then
  echo "skipped: numa-vm could not boot a $nodes-node guest on this host (see its message above)"
  exit 77
fi
exit "$rc"
