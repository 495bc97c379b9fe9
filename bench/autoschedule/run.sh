#!/usr/bin/env bash
# The autoscheduler against the default lowering (docs/performance.md, "The
# autoscheduler"): for each program of this folder (written for issue 34, not by the
# team's experts), `risec tune` without a template (--budget 30, OpenMP, 2 threads)
# writes its best strategy; then the default lowering and that strategy are each run
# with `risec run --repeat 20 --check`, minimum and median. Run from the repository
# root after building (build/risec). Never fails on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=build/risec
SIZE=${SIZE:-n=2048,m=2048}
BUDGET=${BUDGET:-30}
OUT=${OUT:-build/autoschedule}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mkdir -p "$OUT"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS"
for p in sharpen morph5; do
  f=bench/autoschedule/$p.rise
  /usr/bin/time -f "$p: tune took %e s" $R tune "$f" --size "$SIZE" --target openmp \
    --budget "$BUDGET" --explain -o "$OUT/$p.elv" > /dev/null 2> "$OUT/$p.tune.log" || true
  grep -E "^autoschedule: [0-9]|^autoschedule: \[1/|chosen|^  |tune took" "$OUT/$p.tune.log" || true
  echo "$p default:   $($R run "$f" --target openmp --size "$SIZE" --repeat 20 --check | grep '^time')"
  echo "$p autosched: $($R run "$f" --target openmp --size "$SIZE" --repeat 20 --check \
    --strategy "$OUT/$p.elv" | grep '^time')"
done
if [ -x build/bench/bench_autoschedule_halide ]; then
  HL_NUM_THREADS=$OMP_NUM_THREADS build/bench/bench_autoschedule_halide "${SIZE##*=}" 20
else
  echo "build/bench/bench_autoschedule_halide not built (-DRISEC_BUILD_BENCH=ON, Halide 14): no Halide numbers"
fi
