#!/usr/bin/env bash
# lapband.rise (n=m=1024, --target openmp, OMP_NUM_THREADS=2): the default lowering,
# the schedule the autoscheduler chose before the stages decision could go through
# joins (simplify, taps unrolled, tile 64, every stage parallel: the journal's
# 2026-11-28-stencil choice), and FILE (default: $OUT/lapband.elv as tune60.sh writes
# it; tuned here with --budget 60 when missing), timed interleaved, ROUNDS rounds of
# `risec run --repeat 5`; prints each minimum with the load average. Run from the
# repository root after building risec. Never fails on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
OUT=${OUT:-build/tune60}
ROUNDS=${ROUNDS:-10}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
P=bench/autoschedule/programs/lapband.rise
SIZE=n=1024,m=1024
FILE=${1:-$OUT/lapband.elv}
mkdir -p "$OUT"
if [ ! -f "$FILE" ]; then
  $R tune $P --size $SIZE --target openmp --budget 60 --db "$OUT/tune.db" -o "$FILE" > /dev/null
fi
OLD="$OUT/lapband_before.elv"
printf '%s\n' 'let main = simplify ; normalize(expandReduce) ; partialEval ;' \
  '  tile(64, 64) @ outermost(mapNest(2)) ; lowerToC ; parallelStages;' > "$OLD"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS," \
  "source $(git rev-parse --short HEAD), $(date -u)"
min_of() { sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p'; }
lower() { printf '%s\n%s\n' "$1" "$2" | sed '/^$/d' | sort -g | head -1; }
d="" o="" t=""
for _ in $(seq "$ROUNDS"); do
  d=$(lower "$d" "$($R run $P --target openmp --size $SIZE --repeat 5 | min_of)")
  o=$(lower "$o" "$($R run $P --target openmp --size $SIZE --repeat 5 --strategy "$OLD" | min_of)")
  t=$(lower "$t" "$($R run $P --target openmp --size $SIZE --repeat 5 --strategy "$FILE" | min_of)")
done
echo "lapband: default min $d ms, before (tile 64, every stage parallel) min $o ms," \
  "$FILE min $t ms ($ROUNDS x 5 runs each, interleaved; load $(cut -d' ' -f1-3 /proc/loadavg))"
