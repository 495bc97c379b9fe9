#!/bin/sh
# A/B of two risec binaries on morph5 (5 x 5 grey dilation, 2048 x 2048, --target openmp,
# 2 threads): the default lowering and the tuned strategy (issue 34), interleaved so that
# load on a shared machine hits both alike:
#   bench/autoschedule/morph5_ab.sh OLD_RISEC NEW_RISEC [ROUNDS]
# (HALIDE=build/bench/bench_autoschedule_halide adds Halide's Mullapudi2016 schedule to each
# round: its morph5 line, 20 runs.)
# checks each binary's output against the interpreter once (at 256 x 256), then prints
# for each round (default 4), variant and binary the time line of 20 runs (report the
# least minimum of each), with the load average before and after. docs/codegen.md,
# fmax and fmin with an operand that cannot be NaN.
set -eu
old=$1 new=$2 rounds=${3:-4}
here=$(dirname "$0")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=passive
tuned="RNF ; body(mapFusion) ; body(function(argument(body(mapFusion)))) ; body(mapFusion) ; normalize(expandReduce) ; partialEval ; parallelOutput ; lowerToC"
out=$(mktemp --suffix=.npy)
trap 'rm -f "$out"' EXIT
uptime
for bin in "$old" "$new"; do
  "$bin" run "$here/morph5.rise" --target openmp --size n=256,m=256 --check -o "$out" | grep -i check || true
  "$bin" run "$here/morph5.rise" --target openmp --size n=256,m=256 --strategy "$tuned" --check -o "$out" | grep -i check || true
done
for r in $(seq "$rounds"); do
  for variant in default tuned; do
    for bin in "$old" "$new"; do
      printf '%s %s ' "$variant" "$bin"
      if [ "$variant" = default ]; then
        "$bin" run "$here/morph5.rise" --target openmp --size n=2048,m=2048 --repeat 20 -o "$out" 2>&1 | grep 'time:' || true
      else
        "$bin" run "$here/morph5.rise" --target openmp --size n=2048,m=2048 --repeat 20 --strategy "$tuned" -o "$out" 2>&1 | grep 'time:' || true
      fi
    done
  done
  if [ -n "${HALIDE:-}" ]; then
    printf 'halide '
    "$HALIDE" 2048 20 2>&1 | grep '^morph5' || true
  fi
done
uptime
