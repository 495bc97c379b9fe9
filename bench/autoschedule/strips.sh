#!/usr/bin/env bash
# The strips decision of the autoscheduler (src/driver/schedule_strips.h) A/B:
# `risec tune --budget 60 --target openmp` without a template, with the strips in the
# space and without them (RISEC_TUNE_NO_STRIPS=1), on sharpen and morph5 at 2048²
# (PROGRAMS and SIZE change that), OMP_NUM_THREADS=2. Each tune writes
# $OUT/NAME.{strips,nostrips}.elv and its log (the chosen schedule and whether any
# strip candidate was measured); then the default lowering and the two tuned
# strategies are timed interleaved, ROUNDS rounds of `risec run --repeat 5`, and the
# minimum of each is printed with the load average. Run from the repository root after
# building risec. Never fails on time. Environment: RISEC (default build/risec), OUT
# (default build/strips), BUDGET (60), ROUNDS (10), SIZE (n=2048,m=2048), REUSE=1
# (keep existing .elv files).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
OUT=${OUT:-build/strips}
BUDGET=${BUDGET:-60}
ROUNDS=${ROUNDS:-10}
SIZE=${SIZE:-n=2048,m=2048}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mkdir -p "$OUT"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS," \
  "source $(git rev-parse --short HEAD), $(date -u), load $(cut -d' ' -f1-3 /proc/loadavg)"
PROGRAMS=${PROGRAMS:-"sharpen morph5"}
for p in $PROGRAMS; do
  for v in strips nostrips; do
    if [ "${REUSE:-0}" = 1 ] && [ -f "$OUT/$p.$v.elv" ]; then continue; fi
    start=$(date +%s)
    off=0
    [ $v = nostrips ] && off=1
    RISEC_TUNE_NO_STRIPS=$off $R tune bench/autoschedule/$p.rise --size "$SIZE" --target openmp \
      --budget "$BUDGET" --db "$OUT/tune.db" --explain -o "$OUT/$p.$v.elv" \
      > /dev/null 2> "$OUT/$p.$v.log" || true
    echo "$p ($v): tune took $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg);" \
      "$(grep -c 'strips of' "$OUT/$p.$v.log" || true) strip line(s) in the log;" \
      "$(grep -m1 'chosen schedule' "$OUT/$p.$v.log" || echo 'no result')"
  done
done
min_of() { sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p'; }
lower() { printf '%s\n%s\n' "$1" "$2" | sed '/^$/d' | sort -g | head -1; }
for p in $PROGRAMS; do
  d_min="" s_min="" n_min=""
  for _ in $(seq "$ROUNDS"); do
    d=$($R run bench/autoschedule/$p.rise --target openmp --size "$SIZE" --repeat 5 | min_of)
    s=$($R run bench/autoschedule/$p.rise --target openmp --size "$SIZE" --repeat 5 \
      --strategy "$OUT/$p.strips.elv" | min_of)
    n=$($R run bench/autoschedule/$p.rise --target openmp --size "$SIZE" --repeat 5 \
      --strategy "$OUT/$p.nostrips.elv" | min_of)
    d_min=$(lower "$d_min" "$d")
    s_min=$(lower "$s_min" "$s")
    n_min=$(lower "$n_min" "$n")
  done
  echo "$p $SIZE: default lowering min $d_min ms; tune without strips min $n_min ms;" \
    "tune with strips min $s_min ms ($ROUNDS x 5 runs each, interleaved; load" \
    "$(cut -d' ' -f1-3 /proc/loadavg))"
done
