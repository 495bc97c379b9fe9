#!/bin/sh
# A/B of two risec binaries on the programs whose time is elementary functions (exp in
# bilateral and softmax), interleaved so that load on a shared machine hits both alike:
#   bench/autoschedule/math_ab.sh OLD_RISEC NEW_RISEC [ROUNDS]
# checks each binary's output against the interpreter once, then prints for each
# round (default 4), program and binary the minimum and median of 5 runs (report the
# least minimum of each), with the load average before and after. Default lowering,
# --target c, one thread. docs/codegen.md, "Elementary functions".
set -eu
old=$1 new=$2 rounds=${3:-4}
here=$(dirname "$0")
out=$(mktemp --suffix=.npy)
trap 'rm -f "$out"' EXIT
uptime
for prog in "bilateral n=1024,m=1024" "softmax n=4096,d=1024"; do
  set -- $prog
  for bin in "$old" "$new"; do  # compile (cached) and check once against the interpreter
    "$bin" run "$here/programs/$1.rise" --size "$2" --check -o "$out" | grep -i check || true
  done
  for r in $(seq "$rounds"); do
    for bin in "$old" "$new"; do
      printf '%s %s ' "$1" "$bin"
      "$bin" run "$here/programs/$1.rise" --size "$2" --repeat 5 -o "$out" 2>&1 | grep 'time:' || true
    done
  done
done
uptime
