#!/usr/bin/env bash
# Softmax and layer norm (bench/autoschedule/programs, n=4096, d=1024), by default on
# one thread timed as the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), which
# other load on a shared machine disturbs much less than wall-clock time: risec's code
# for each strategy given, against oneDNN (dnnl_peers.cpp, its timer switched to the
# same clock). Minima of REPEAT calls, ROUNDS rounds interleaved; prints the load
# average. Wall-clock numbers on 2 threads (THREADS=2) need a quiet machine.
#   bench/autoschedule/rows_cputime.sh softmax A.elv B.elv ...   (or layernorm)
# A strategy named `default` is the default lowering; a file ending in `.c` is a kernel
# compiled as it is (risec's C, edited by hand to try a change before making it); a
# strategy or `default` prefixed with `base:` is compiled by $RISEC_BASE instead (a build
# of the base commit: the A/B of a compiler change), and BIN=STRATEGY by that risec
# binary. Environment: RISEC (build/risec),
# RISEC_BASE, ROUNDS (5), REPEAT (30), THREADS (OMP_NUM_THREADS, 1), CLOCK (cpu, the
# thread's CPU time, where THREADS is 1; else wall, the wall clock, which needs a quiet
# machine), OFFSET (0: risec's output at the same offset in its page as the input's,
# as oneDNN's are; 64 moves it 64 bytes further, where `risec run` put it before:
# docs/performance.md, "Softmax and layer norm, where the time goes"). Needs gcc, g++
# and libdnnl-dev (oneDNN skipped without).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
ROUNDS=${ROUNDS:-5}
REPEAT=${REPEAT:-30}
prog=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $prog in
  softmax) params="float* restrict o, const float* restrict x" args="o, x" ;;
  layernorm)
    params="float* restrict o, const float* restrict x, const float* restrict g, const float* restrict b"
    args="o, x, g, b" ;;
  *) echo "rows_cputime: softmax or layernorm" >&2; exit 2 ;;
esac
cat > "$work/harness.c" <<EOF
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void $prog($params);
static double now(void) { struct timespec t; clock_gettime(CLOCK_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
int main(void) {
  size_t n = 4096 * 1024;
  float *x, *o, *g, *b; /* 64-byte aligned, as risec's runtime allocates */
  if (posix_memalign((void**)&x, 64, n * 4) || posix_memalign((void**)&o, 64, n * 4 + 8192) ||
      posix_memalign((void**)&g, 64, 4096) || posix_memalign((void**)&b, 64, 4096)) return 1;
  o += OUT_SHIFT / 4; /* OFFSET: the output that many bytes further into its page */
  srand(1);
  for (size_t i = 0; i < n; i++) x[i] = rand() / (float)RAND_MAX;
  for (int i = 0; i < 1024; i++) { g[i] = 1.0f + i / 1024.0f; b[i] = 0.5f; }
  (void)g; (void)b;
  double best = 1e9;
  for (int r = 0; r < $REPEAT; r++) { double t = now(); $prog($args); t = now() - t; if (t < best) best = t; }
  printf("%.3f\n", best);
  return 0;
}
EOF
THREADS=${THREADS:-1}
CLOCK=${CLOCK:-$([ "$THREADS" = 1 ] && echo cpu || echo wall)}
if [ "$CLOCK" = cpu ]; then clock=CLOCK_THREAD_CPUTIME_ID; else clock=CLOCK_MONOTONIC; fi
CF="-DCLOCK_ID=$clock -DOUT_SHIFT=${OFFSET:-0} -O3 -march=native -ffp-contract=fast -fno-math-errno -fno-trapping-math -std=gnu99 -fopenmp -DRISEC_OMP_SIMD"
names=()
for v in "$@"; do
  i=${#names[@]}
  r=$R what=$v
  case $v in
    base:*) r=${RISEC_BASE:?base: needs RISEC_BASE} what=${v#base:} ;;
    *=*) r=${v%%=*} what=${v#*=} ;;
  esac
  if [ "$what" = default ]; then
    "$r" compile bench/autoschedule/programs/$prog.rise --size n=4096,d=1024 --target openmp > "$work/k$i.c"
  elif [ "${what%.c}" != "$what" ]; then
    cp "$what" "$work/k$i.c"
  else
    "$r" compile bench/autoschedule/programs/$prog.rise --size n=4096,d=1024 --target openmp \
      --strategy "$what" > "$work/k$i.c"
  fi
  gcc $CF -w "$work/k$i.c" "$work/harness.c" -o "$work/k$i"
  names+=("$v")
done
dnnl=""
if [ "$CLOCK" = cpu ]; then timer='s/std::chrono::steady_clock::now()/cpu_now()/g'; else timer=''; fi
if sed "$timer" bench/autoschedule/dnnl_peers.cpp |
  sed '0,/^namespace {/s//namespace {\nstd::chrono::steady_clock::time_point cpu_now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, \&t); return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(t.tv_sec * 1000000000LL + t.tv_nsec)); }/' \
    > "$work/dnnl.cpp" && g++ -O2 -std=c++17 -include time.h "$work/dnnl.cpp" -ldnnl -o "$work/dnnl" 2>/dev/null; then
  /usr/bin/python3 -c "
import numpy as np; np.random.seed(1)
np.random.rand(4096, 1024).astype(np.float32).tofile('$work/x.f32')
(1 + np.arange(1024) / 1024).astype(np.float32).tofile('$work/g.f32')
np.full(1024, 0.5, np.float32).tofile('$work/b.f32')" && dnnl="$work/dnnl"
fi
declare -A best
for _ in $(seq "$ROUNDS"); do
  for i in "${!names[@]}"; do
    t=$(OMP_NUM_THREADS=${THREADS:-1} "$work/k$i")
    best[$i]=$(printf '%s\n%s\n' "${best[$i]:-}" "$t" | sed '/^$/d' | sort -g | head -1)
  done
  if [ -n "$dnnl" ]; then
    if [ $prog = softmax ]; then extra=("$work/x.f32"); else extra=("$work/x.f32" "$work/g.f32" "$work/b.f32"); fi
    t=$(OMP_NUM_THREADS=${THREADS:-1} "$dnnl" $prog "$REPEAT" "$work/o.f32" 4096 1024 "${extra[@]}" | awk '{print $2}')
    best[dnnl]=$(printf '%s\n%s\n' "${best[dnnl]:-}" "$t" | sed '/^$/d' | sort -g | head -1)
  fi
done
echo "$prog n=4096 d=1024, ${THREADS:-1} thread(s), $([ "$CLOCK" = cpu ] && echo "CPU time" || echo "wall clock"), minima of $ROUNDS x $REPEAT calls, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
for i in "${!names[@]}"; do echo "  ${names[$i]}: ${best[$i]} ms"; done
[ -n "$dnnl" ] && echo "  oneDNN: ${best[dnnl]} ms" || echo "  oneDNN: not built (libdnnl-dev)"
echo "(load $(cut -d' ' -f1-3 /proc/loadavg))"
