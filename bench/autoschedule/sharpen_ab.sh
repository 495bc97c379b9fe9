#!/usr/bin/env bash
# Issue 34, sharpen: `risec tune --budget 60` (no template, --target openmp,
# OMP_NUM_THREADS=2, OMP_WAIT_POLICY=passive) with two builds of risec, BEFORE (default
# build/risec_before: a build of the branch's base) and AFTER (default build/risec), on
# sharpen (2048²) and on lapband and pyrdown (1024², which the change must not make
# worse). Each build tunes each program into $OUT/NAME.{before,after}.elv (skipped when
# the file exists and REUSE=1); then the default lowering and both tuned strategies are
# timed interleaved, ROUNDS rounds of `risec run --repeat 20` with AFTER's binary, and
# the minimum of each is printed with the load average after every round's minimum.
# Run from the repository root; never fails on time. PROGRAMS picks some of the three.
set -euo pipefail
cd "$(dirname "$0")/../.."
AFTER=${AFTER:-build/risec}
BEFORE=${BEFORE:-build/risec_before}
OUT=${OUT:-build/sharpen_ab}
ROUNDS=${ROUNDS:-10}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
mkdir -p "$OUT"
file_of() { case $1 in sharpen) echo bench/autoschedule/sharpen.rise ;;
  *) echo bench/autoschedule/programs/$1.rise ;; esac; }
size_of() { case $1 in sharpen) echo n=2048,m=2048 ;; *) echo n=1024,m=1024 ;; esac; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS," \
  "OMP_WAIT_POLICY=$OMP_WAIT_POLICY, source $(git rev-parse --short HEAD), $(date -u)"
PROGRAMS=${PROGRAMS:-"sharpen lapband pyrdown"}
for p in $PROGRAMS; do
  for v in before after; do
    bin=$AFTER
    [ $v = before ] && bin=$BEFORE
    f="$OUT/$p.$v.elv"
    if [ "${REUSE:-0}" = 1 ] && [ -f "$f" ]; then continue; fi
    start=$(date +%s)
    $bin tune "$(file_of $p)" --size "$(size_of $p)" --target openmp --budget 60 \
      --db "$OUT/tune.$v.db" --explain -o "$f" > /dev/null 2> "$OUT/$p.$v.tune.log" || true
    echo "$p ($v): tune took $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg);" \
      "$(grep -m1 'chosen schedule' "$OUT/$p.$v.tune.log" || echo 'no result')"
  done
done
min_of() { sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p'; }
lower() { printf '%s\n%s\n' "$1" "$2" | sed '/^$/d' | sort -g | head -1; }
for p in $PROGRAMS; do
  d="" b="" a=""
  for _ in $(seq "$ROUNDS"); do
    d=$(lower "$d" "$($AFTER run "$(file_of $p)" --target openmp --size "$(size_of $p)" --repeat 20 | min_of)")
    b=$(lower "$b" "$($AFTER run "$(file_of $p)" --target openmp --size "$(size_of $p)" --repeat 20 \
      --strategy "$OUT/$p.before.elv" | min_of)")
    a=$(lower "$a" "$($AFTER run "$(file_of $p)" --target openmp --size "$(size_of $p)" --repeat 20 \
      --strategy "$OUT/$p.after.elv" | min_of)")
  done
  echo "$p: default lowering min $d ms, tuned before min $b ms, tuned after min $a ms" \
    "($ROUNDS x 20 runs each, interleaved; load $(cut -d' ' -f1-3 /proc/loadavg))"
done
