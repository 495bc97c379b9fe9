#!/usr/bin/env bash
# Strategies for the MLP of bench/autoschedule/programs (b=64, k=256, h=512, o=128,
# --target openmp) timed interleaved on 1 and 2 threads: ROUNDS rounds of `risec run
# --repeat 10` of each file given (and of the default lowering), the minimum of each,
# with the load average at the start and the end. Never fails on time.
#   bench/autoschedule/mlp_ab.sh A.elv B.elv ...
# Environment: RISEC (build/risec), ROUNDS (10), THREADS ("1 2"), OMP_WAIT_POLICY
# (passed through).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
P=bench/autoschedule/programs/mlp.rise
S=b=64,k=256,h=512,o=128
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset};" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "$@"; do $R run $P --size $S --target openmp --strategy "$f" --check > /dev/null; done
min_of() { sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p'; }
for t in ${THREADS:-1 2}; do
  declare -A best=()
  for _ in $(seq "${ROUNDS:-10}"); do
    for f in default "$@"; do
      args=()
      [ "$f" = default ] || args=(--strategy "$f")
      v=$(OMP_NUM_THREADS=$t $R run $P --size $S --target openmp --repeat 10 "${args[@]}" | min_of)
      if [ -z "${best[$f]:-}" ] || awk "BEGIN{exit !($v < ${best[$f]})}"; then best[$f]=$v; fi
    done
  done
  for f in default "$@"; do echo "threads $t: $f min ${best[$f]} ms"; done
  unset best
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
