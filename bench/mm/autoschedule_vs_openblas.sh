#!/usr/bin/env bash
# mm without a template against OpenBLAS (issue 34; bench/results/journal/2026-11-28-mmblas.md):
# for each size and instruction set, `risec tune examples/mm/mm.rise` without
# --strategy (OpenMP, 2 threads) writes its best strategy; then bench_mm times that
# strategy beside OpenBLAS's cblas_sgemm in one process, on 1 and 2 threads, calls
# interleaved, minimum and median (--reps). AVX2: RISEC_LANES=8 and
# RISEC_CFLAGS=-march=x86-64-v3 (the generated code and the search's `lanes`), and
# OpenBLAS forced to its Haswell kernel. Run from the repository root after
# `cmake -DRISEC_BUILD_BENCH=ON` and building risec and bench_mm. Never fails on time.
#   SIZES="1024 2048" ISAS="avx512 avx2" BUDGET=40 REPS=10 bench/mm/autoschedule_vs_openblas.sh
# RISEC and BENCH_DIR (default build/risec, build/bench) name other binaries (a snapshot).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
B=${BENCH_DIR:-build/bench}/bench_mm
SIZES=${SIZES:-1024 2048}
ISAS=${ISAS:-avx512 avx2}
BUDGET=${BUDGET:-40}
REPS=${REPS:-10}
OUT=${OUT:-build/mm_autoschedule}
mkdir -p "$OUT"
OUT=$(realpath --relative-to=. "$OUT")  # bench_mm reads --tuned relative to the root
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); $(nproc) CPUs;" \
  "source $(git rev-parse --short HEAD 2>/dev/null || echo '?'); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for isa in $ISAS; do
  if [ "$isa" = avx2 ]; then
    env=(RISEC_LANES=8 RISEC_CFLAGS=-march=x86-64-v3)
    core=(--openblas-coretype Haswell)
  else
    env=(RISEC_LANES=)  # the host's width
    core=()             # bench_mm's default: SkylakeX where the CPU has its AVX-512 subsets
  fi
  for n in $SIZES; do
    f="$OUT/mm${n}_${isa}.elv"
    echo "== $isa, n = m = k = $n: risec tune --budget $BUDGET (load $(cut -d' ' -f1 /proc/loadavg))"
    env "${env[@]}" OMP_NUM_THREADS=2 /usr/bin/time -f "tune took %e s" $R tune examples/mm/mm.rise \
      --size "n=$n,m=$n,k=$n" --target openmp --budget "$BUDGET" --repeat 3 --explain \
      --db "$OUT/tune.db" -o "$f" > /dev/null 2> "$OUT/mm${n}_${isa}.tune.log" || true
    grep -E "chosen|blocked:|measured:|tune took" "$OUT/mm${n}_${isa}.tune.log" || true
    env "${env[@]}" $B --parallel-only --tuned "$f" --n "$n" --reps "$REPS" \
      "${core[@]}" | grep -E "OpenBLAS|tuned|load|CPU used|^source" || true
  done
done
