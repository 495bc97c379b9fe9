#!/usr/bin/env bash
# The bilateral stage (bench/autoschedule/programs/bilateral.rise, n=m=1024) on ONE
# thread, timed as the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), which other load
# on a shared machine disturbs less than the wall clock: risec's code for each variant
# against Halide 14's Adams2019 autoscheduler and expert schedule (halide_peers, its
# timer switched to the same clock with HALIDE_PEERS_CPUTIME=1). Minima of REPEAT
# calls, ROUNDS rounds interleaved; prints the load average. Every variant's output is
# compared with the first one's (max |a - b| / max(1, |b|)).
#   bench/autoschedule/bilateral_ab.sh VARIANT...
# A VARIANT is `default` (the default lowering), a strategy file, or RISEC=STRATEGY
# (that risec binary's code for the strategy: RISEC=default for its default lowering),
# so that two builds can be compared on the same strategy. Environment: RISEC
# (build/risec), BENCH_DIR (build/bench, for halide_peers; skipped when not built),
# ROUNDS (5), REPEAT (20), PROG (bilateral: another image program of programs/ with
# one n x m input and an n x m output works too). Wall-clock numbers on 2 threads
# need a quiet machine (tune60.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
BENCH=${BENCH_DIR:-build/bench}
ROUNDS=${ROUNDS:-5}
REPEAT=${REPEAT:-20}
PROG=${PROG:-bilateral}
N=1024
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/harness.c" <<EOF
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void ${PROG}__risec_call(void* const* buffers, const int* sizes);
static double now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
int main(int argc, char** argv) {
  size_t n = (size_t)$N * $N;
  float *x, *o; /* 64-byte aligned, as risec's runtime allocates */
  if (posix_memalign((void**)&x, 64, n * 4) || posix_memalign((void**)&o, 64, n * 4)) return 1;
  FILE* f = fopen(argv[1], "rb");
  if (!f || fread(x, 4, n, f) != n) return 1;
  fclose(f);
  void* buffers[2] = {o, x};
  ${PROG}__risec_call(buffers, 0);  /* warm-up */
  double best = 1e9;
  for (int r = 0; r < $REPEAT; r++) { double t = now(); ${PROG}__risec_call(buffers, 0); t = now() - t; if (t < best) best = t; }
  printf("%.3f\n", best);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(o, 4, n, f) != n) return 1;
  fclose(f);
  return 0;
}
EOF
/usr/bin/python3 -c "
import numpy as np; np.random.seed(1)
np.random.rand($N, $N).astype(np.float32).tofile('$work/in.f32')"
CF="-O3 -march=native -ffp-contract=fast -fno-math-errno -fno-trapping-math -std=gnu99 -fopenmp -DRISEC_OMP_SIMD"
names=()
for v in "$@"; do
  i=${#names[@]}
  bin=$R s=$v
  case $v in *=*) bin=${v%%=*} s=${v#*=} ;; esac
  strategy=()
  [ "$s" = default ] || strategy=(--strategy "$s")
  "$bin" compile bench/autoschedule/programs/$PROG.rise --size n=$N,m=$N --target openmp \
    "${strategy[@]}" > "$work/k$i.c"
  gcc $CF -w "$work/k$i.c" "$work/harness.c" -o "$work/k$i"
  names+=("$v")
done
halide=()
if [ -x "$BENCH/halide_peers" ]; then halide=(Adams2019 expert); fi
declare -A best
for _ in $(seq "$ROUNDS"); do
  for i in "${!names[@]}"; do
    t=$(OMP_NUM_THREADS=1 "$work/k$i" "$work/in.f32" "$work/o$i.f32")
    best[$i]=$(printf '%s\n%s\n' "${best[$i]:-}" "$t" | sed '/^$/d' | sort -g | head -1)
  done
  for h in "${halide[@]}"; do
    t=$(HL_NUM_THREADS=1 HALIDE_PEERS_CPUTIME=1 "$BENCH/halide_peers" $PROG $h $N $N "$REPEAT" \
      "$work/in.f32" "$work/h.f32" 2>/dev/null | awk '{print $2}')
    best[$h]=$(printf '%s\n%s\n' "${best[$h]:-}" "$t" | sed '/^$/d' | sort -g | head -1)
  done
done
echo "$PROG n=m=$N, one thread, CPU time, minima of $ROUNDS x $REPEAT calls," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), source $(git rev-parse --short HEAD)"
for i in "${!names[@]}"; do
  err=$(/usr/bin/python3 -c "
import numpy as np
a = np.fromfile('$work/o$i.f32', np.float32); b = np.fromfile('$work/o0.f32', np.float32)
print('%.1e' % float(np.max(np.abs(a - b) / np.maximum(1, np.abs(b)))))")
  echo "  ${names[$i]}: ${best[$i]} ms (max rel. difference from the first: $err)"
done
for h in "${halide[@]}"; do echo "  Halide 14 $h: ${best[$h]} ms"; done
[ ${#halide[@]} -gt 0 ] || echo "  Halide: $BENCH/halide_peers not built (-DRISEC_BUILD_BENCH=ON)"
echo "(load $(cut -d' ' -f1-3 /proc/loadavg))"
