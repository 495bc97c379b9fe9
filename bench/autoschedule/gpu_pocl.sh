#!/bin/sh
# The GPU autoscheduler on the OpenCL device present (PoCL on this project's machines):
# for mm and a 3 x 3 stencil, `risec tune --target opencl` without a template, then the
# default lowering and the tuned strategy timed interleaved (rounds of `risec run
# --repeat 10`, kernel time), the minimum of each printed with the load average.
# usage: bench/autoschedule/gpu_pocl.sh [BUDGET] (default 12); RISEC=path/to/risec.
set -eu
R=${RISEC:-build/risec}
BUDGET=${1:-12}
OUT=${OUT:-$(mktemp -d /tmp/gpu_pocl.XXXXXX)}
echo "device: $(clinfo -l 2>/dev/null | tail -1 | sed 's/^ *//')"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for c in "mm examples/mm/mm.rise n=512,m=512,k=512" \
         "gaussian examples/gaussian/gaussian.rise n=2048,m=2048"; do
  set -- $c
  name=$1 file=$2 sizes=$3
  echo "== $name ($sizes), load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$R" tune "$file" --size "$sizes" --target opencl --budget "$BUDGET" --repeat 5 \
    --db "$OUT/tune.db" -o "$OUT/$name.elv" --explain 2>"$OUT/$name.tune.log" >/dev/null
  grep -E "^autoschedule: \[|the chosen schedule|measured:" "$OUT/$name.tune.log"
  best_default= best_tuned=
  for round in 1 2 3; do
    for v in default tuned; do
      if [ $v = default ]; then s=""; else s="--strategy $OUT/$name.elv"; fi
      t=$("$R" run "$file" --size "$sizes" --target opencl $s --repeat 10 2>&1 |
          sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p')
      echo "round $round $v: min $t ms (load $(cut -d' ' -f1 /proc/loadavg))"
      if [ $v = default ]; then best_default=$(python3 -c "print(min(x for x in [$t, ${best_default:-1e9}]))");
      else best_tuned=$(python3 -c "print(min(x for x in [$t, ${best_tuned:-1e9}]))"); fi
    done
  done
  echo "$name: default $best_default ms, tuned $best_tuned ms, speed-up $(python3 -c "print(round($best_default/$best_tuned, 2))")x"
done
echo "files in $OUT"
