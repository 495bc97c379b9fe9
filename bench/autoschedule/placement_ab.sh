#!/usr/bin/env bash
# The same tuned strategy timed the two ways the benchmarks call `risec run` (issue 34):
# on risec's seeded inputs (`--size`, as tune60.sh's own loop) and on inputs read from
# .npy files with `--output` (as bench_peers.py), interleaved, ROUNDS rounds of
# `--repeat 5` each; prints each way's minimum and the load average. With RISEC_BASE
# (a build of the base commit) the base's two ways are timed in the same rounds: before
# kPlacementOffset, the inputs read from files lay at another offset in their pages
# than the seeded ones (glibc's heap), and the two ways timed one code differently.
#   bench/autoschedule/placement_ab.sh softmax STRATEGY.elv   (or layernorm)
# Environment: RISEC (build/risec), RISEC_BASE, ROUNDS (10), OMP_NUM_THREADS (2),
# OMP_WAIT_POLICY (passed through). Never fails on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
prog=$1
elv=$2
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -c "
import numpy as np
rng = np.random.default_rng(4242)  # bench_peers.py's inputs
for p, sh in [('x', (4096, 1024)), ('gamma', (1024,)), ('beta', (1024,))]:
    np.save('$work/' + p + '.npy', (rng.random(sh, dtype=np.float32) * 2 - 1).astype(np.float32))"
ins=(--input "x=$work/x.npy")
[ "$prog" = layernorm ] && ins+=(--input "gamma=$work/gamma.npy" --input "beta=$work/beta.npy")
bins=("${RISEC:-build/risec}")
[ -n "${RISEC_BASE:-}" ] && bins+=("$RISEC_BASE")
declare -A best
min_of() { sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p'; }
keep() { best[$1]=$(printf '%s\n%s\n' "${best[$1]:-}" "$2" | sed '/^$/d' | sort -g | head -1); }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS," \
  "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}, $(date -u), load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "${ROUNDS:-10}"); do
  for i in "${!bins[@]}"; do
    run=("${bins[$i]}" run "bench/autoschedule/programs/$prog.rise" --target openmp
      --size n=4096,d=1024 --repeat 5 --strategy "$elv")
    keep "$i seeded" "$("${run[@]}" | min_of)"
    keep "$i files" "$("${run[@]}" "${ins[@]}" --output "$work/o.npy" | min_of)"
  done
done
for i in "${!bins[@]}"; do
  for way in seeded files; do echo "  ${bins[$i]} $prog, $way inputs: min ${best[$i $way]} ms"; done
done
echo "(load $(cut -d' ' -f1-3 /proc/loadavg))"
