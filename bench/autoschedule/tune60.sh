#!/usr/bin/env bash
# `risec tune --budget 60` (no template) on the programs of issue 34 against their
# peers (docs/performance.md, "The autoscheduler"): sharpen and morph5 (2048²), the
# pyramid programs pyrdown and lapband and the bilateral stage (n=m=1024), the MLP,
# layer norm and softmax (bench/autoschedule/programs/), and on request (PROGRAMS picks
# some) the box blurs box3 and box5 (2048²) and the 3-D stencil7 (128 x 256 x 256) of
# bench/default_lowering/. For each program tune writes
# $OUT/NAME.elv (--target openmp, OMP_NUM_THREADS=2; skipped when the file exists and
# REUSE=1); then the default lowering and the tuned strategy are timed interleaved,
# ROUNDS rounds of `risec run --warmup 1 --repeat REPEAT` (one warm-up call, as bench_peers.py
# and the peers), and the minimum of each is printed with the load average; then the
# peers: bench_peers.py for every program (Halide's expert schedule and three
# autoschedulers, PyTorch, oneDNN; the tuned files as rows of their own; ROUNDS rounds of
# one process per variant timing REPEAT calls, the variants taking turns),
# bench_autoschedule_halide for sharpen and morph5 (Mullapudi2016; ROUNDS x REPEAT calls
# after its warm-up, as many as risec's timed calls of each schedule). Run from the
# repository root after building risec and the bench targets (-DRISEC_BUILD_BENCH=ON).
# Never fails on time. Environment: RISEC (default build/risec), BENCH_DIR (default
# build/bench), OUT, BUDGET (60), ROUNDS (10), REPEAT (5), REUSE, OMP_WAIT_POLICY (passed through:
# on a loaded machine `passive` keeps an OpenMP barrier from spinning against the
# other load).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
BENCH=${BENCH_DIR:-build/bench}
OUT=${OUT:-build/tune60}
BUDGET=${BUDGET:-60}
ROUNDS=${ROUNDS:-10}
REPEAT=${REPEAT:-5}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
mkdir -p "$OUT"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS," \
  "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}, source $(git rev-parse --short HEAD), $(date -u)"
file_of() { case $1 in sharpen | morph5) echo bench/autoschedule/$1.rise ;;
  box3 | box5 | stencil7) echo bench/default_lowering/$1.rise ;;
  *) echo bench/autoschedule/programs/$1.rise ;; esac; }
size_of() { case $1 in sharpen | morph5 | box3 | box5) echo n=2048,m=2048 ;;
  stencil7) echo n=128,m=256,o=256 ;;
  mlp) echo b=64,k=256,h=512,o=128 ;; layernorm | softmax) echo n=4096,d=1024 ;;
  *) echo n=1024,m=1024 ;; esac; }
PROGRAMS=${PROGRAMS:-"sharpen morph5 pyrdown lapband bilateral mlp layernorm softmax"}
for p in $PROGRAMS; do
  if [ "${REUSE:-0}" = 1 ] && [ -f "$OUT/$p.elv" ]; then continue; fi
  start=$(date +%s)
  $R tune "$(file_of $p)" --size "$(size_of $p)" --target openmp --budget "$BUDGET" \
    --db "$OUT/tune.db" --explain -o "$OUT/$p.elv" > /dev/null 2> "$OUT/$p.tune.log" || true
  echo "$p: tune took $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg);" \
    "$(grep -m1 'chosen schedule' "$OUT/$p.tune.log" || echo 'no result')"
done
min_of() { sed -n 's/^time: min \([0-9.]*\) ms.*/\1/p'; }
for p in $PROGRAMS; do
  best_d="" best_t=""
  for _ in $(seq "$ROUNDS"); do
    d=$($R run "$(file_of $p)" --target openmp --size "$(size_of $p)" --warmup 1 --repeat "$REPEAT" |
      min_of)
    t=$($R run "$(file_of $p)" --target openmp --size "$(size_of $p)" --warmup 1 --repeat "$REPEAT" \
      --strategy "$OUT/$p.elv" | min_of)
    best_d=$(printf '%s\n%s\n' "$best_d" "$d" | sed '/^$/d' | sort -g | head -1)
    best_t=$(printf '%s\n%s\n' "$best_t" "$t" | sed '/^$/d' | sort -g | head -1)
  done
  echo "$p: default lowering min $best_d ms, tune --budget $BUDGET min $best_t ms" \
    "($ROUNDS x $REPEAT runs each, interleaved; load $(cut -d' ' -f1-3 /proc/loadavg))"
done
if [ -x "$BENCH/bench_autoschedule_halide" ]; then
  HL_NUM_THREADS=$OMP_NUM_THREADS "$BENCH/bench_autoschedule_halide" 2048 $((ROUNDS * REPEAT))
  echo "(load $(cut -d' ' -f1-3 /proc/loadavg))"
else
  echo "$BENCH/bench_autoschedule_halide not built: no Halide numbers for sharpen and morph5"
fi
peers=$(echo $PROGRAMS | tr ' ' ,)  # bench_peers.py knows every program above
/usr/bin/python3 bench/autoschedule/bench_peers.py --only "$peers" --risec "$R" \
  --bench-dir "$BENCH" --risec-strategy "$OUT" --repeat "$REPEAT" --rounds "$ROUNDS" || true
echo "(load $(cut -d' ' -f1-3 /proc/loadavg))"
