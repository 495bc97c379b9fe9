#!/usr/bin/env bash
# Vectorised reductions on softmax and layernorm (issue 34; docs/performance.md):
# the default lowering, the default with every reduction on vector accumulators
# (vectorizeReduction2Remainder), the default with only softmax's max vectorised (exact: what
# the default lowering could do), and `risec tune` without a template, each with
# `risec run --repeat 20`, interleaved over ROUNDS rounds; the minimum of each
# variant over the rounds, with the load average at the start and the end. Run from
# the repository root after building build/risec. Never fails on time.
#   bench/autoschedule/vecreduce.sh            # c, n=4096,d=1024
#   TARGET=openmp SIZE=n=4096,d=1024 ROUNDS=5 bench/autoschedule/vecreduce.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=build/risec
SIZE=${SIZE:-n=4096,d=1024}
TARGET=${TARGET:-c}
ROUNDS=${ROUNDS:-5}
BUDGET=${BUDGET:-30}
OUT=${OUT:-build/vecreduce}
# the checks run the interpreter: a few rows of the same length (the strategies are
# written for these sizes)
CHECK_SIZE=${CHECK_SIZE:-$(echo "$SIZE" | sed 's/n=[0-9]*/n=8/')}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mkdir -p "$OUT"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), target $TARGET, $SIZE," \
  "OMP_NUM_THREADS=$OMP_NUM_THREADS"
par=""
[ "$TARGET" = openmp ] && par="try(parallelOutput) ; "
vec2="simplify ; ${par}normalize(vectorizeReduction2Remainder(lanes)) ; lowerToC"
max1="simplify ; ${par}try(vectorizeReductionRemainder(lanes) @ outermost(isFullyApplied(isReduce)))"
max1="$max1 ; lowerToC"
for p in softmax layernorm; do
  f=bench/autoschedule/programs/$p.rise
  $R tune "$f" --size "$SIZE" --target "$TARGET" --budget "$BUDGET" -o "$OUT/$p.$TARGET.elv" \
    > /dev/null 2> "$OUT/$p.$TARGET.tune.log" || true
  grep -E "^// risec tune" "$OUT/$p.$TARGET.elv" || tail -3 "$OUT/$p.$TARGET.tune.log"
  # every variant checked once against the interpreter
  for s in "" "$vec2" "$max1" "$OUT/$p.$TARGET.elv"; do
    $R run "$f" --size "$CHECK_SIZE" --target "$TARGET" ${s:+--strategy "$s"} --check \
      | grep -q "check: passed" || echo "$p: check FAILED for ${s:-the default}"
  done
done
min_of() {  # the minimum time (ms) of one risec run --repeat 20
  "$R" run "$@" --size "$SIZE" --target "$TARGET" --repeat 20 \
    | sed -n 's/^time: min \([0-9.e+-]*\) \(ms\|s\|us\).*/\1 \2/p' \
    | awk '{ v = $1; if ($2 == "s") v *= 1000; if ($2 == "us") v /= 1000; print v }'
}
declare -A best
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= ROUNDS; ++r)); do
  for p in softmax layernorm; do
    f=bench/autoschedule/programs/$p.rise
    for v in default vec2 max1 tuned; do
      case $v in
        default) t=$(min_of "$f") ;;
        vec2) t=$(min_of "$f" --strategy "$vec2") ;;
        max1) [ $p = softmax ] || continue; t=$(min_of "$f" --strategy "$max1") ;;
        tuned) t=$(min_of "$f" --strategy "$OUT/$p.$TARGET.elv") ;;
      esac
      k="$p $v"
      if [ -z "${best[$k]:-}" ] || awk "BEGIN { exit !($t < ${best[$k]}) }"; then best[$k]=$t; fi
    done
  done
done
echo "load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in softmax layernorm; do
  for v in default vec2 max1 tuned; do
    k="$p $v"
    [ -n "${best[$k]:-}" ] && printf "%-10s %-8s min %s ms\n" "$p" "$v" "${best[$k]}"
  done
done
echo "(default: compile's default lowering; vec2: every reduction on two vector accumulators;"
echo " max1: softmax's max alone on vectors (exact); tuned: risec tune without a template)"
