#!/usr/bin/env bash
# The MLP of bench/autoschedule/programs (b=64, k=256, h=512, o=128, --target openmp)
# compiled by different risec builds and strategies, timed interleaved in one C
# harness each: on 1 thread the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
# which other load on a shared machine disturbs much less than wall-clock time) and
# the wall-clock time, on 2 threads the wall-clock time; minima of REPEAT calls over
# ROUNDS rounds, with the load average at the start and the end. Each entry is
# RISEC=STRATEGY (a risec binary and a .elv file, or `default` for the default
# lowering), or `dnnl`: oneDNN (BENCH_DIR/dnnl_peers, built with -DRISEC_BUILD_BENCH=ON,
# on the same inputs; its own wall-clock timer, so no CPU-time row); every risec entry's
# output is checked against the first's (a checksum). On this 2-vCPU machine a run
# whose other vCPU is busy is 10-15% slower: only minima over many runs compare.
#   bench/autoschedule/mlp_builds_ab.sh OLD/risec=old.elv build/risec=new.elv dnnl
# Environment: ROUNDS (10), REPEAT (50), THREADS ("1 2"), BENCH_DIR (build/bench),
# OMP_WAIT_POLICY (passed through). Never fails on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-10}
REPEAT=${REPEAT:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/harness.c" <<EOF
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void mlp(float* restrict out, const float* restrict x, const float* restrict w1,
         const float* restrict b1, const float* restrict w2, const float* restrict b2);
static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static float* fill(size_t n, unsigned seed) {
  float* p; /* 64-byte aligned, as risec's runtime allocates */
  if (posix_memalign((void**)&p, 64, n * 4)) exit(1);
  srand(seed);
  for (size_t i = 0; i < n; i++) p[i] = rand() / (float)RAND_MAX - 0.5f;
  return p;
}
static void dump(const char* path, const float* p, size_t n) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(p, 4, n, f) != n) exit(1);
  fclose(f);
}
int main(int argc, char** argv) {
  clockid_t c = argc > 1 && strcmp(argv[1], "cpu") == 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
  float *x = fill(64 * 256, 1), *w1 = fill(256 * 512, 2), *b1 = fill(512, 3);
  float *w2 = fill(512 * 128, 4), *b2 = fill(128, 5), *o = fill(64 * 128, 6);
  if (argc > 2 && strcmp(argv[1], "dump") == 0) { /* the inputs, for oneDNN */
    char p[4096];
    const char* names[] = {"x", "w1", "b1", "w2", "b2"};
    const float* data[] = {x, w1, b1, w2, b2};
    size_t sizes[] = {64 * 256, 256 * 512, 512, 512 * 128, 128};
    for (int i = 0; i < 5; i++) { snprintf(p, sizeof p, "%s/%s.f32", argv[2], names[i]); dump(p, data[i], sizes[i]); }
    return 0;
  }
  double best = 1e9;
  for (int r = 0; r < $REPEAT; r++) {
    double t = now(c);
    mlp(o, x, w1, b1, w2, b2);
    t = now(c) - t;
    if (t < best) best = t;
  }
  double sum = 0;
  for (int i = 0; i < 64 * 128; i++) sum += o[i] * (1 + i % 7);
  printf("%.4f %.3f\n", best, sum);
  return 0;
}
EOF
CF="-O3 -march=native -ffp-contract=fast -fno-math-errno -fno-trapping-math -std=gnu99 -fopenmp -DRISEC_OMP_SIMD"
names=()
for e in "$@"; do
  i=${#names[@]}
  if [ "$e" = dnnl ]; then names+=(dnnl); continue; fi
  bin=${e%%=*} s=${e#*=}
  args=()
  [ "$s" = default ] || args=(--strategy "$s")
  "$bin" compile bench/autoschedule/programs/mlp.rise --size b=64,k=256,h=512,o=128 \
    --target openmp "${args[@]}" > "$work/k$i.c"
  gcc $CF -w "$work/k$i.c" "$work/harness.c" -o "$work/k$i" -lm
  names+=("$e")
done
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset};" \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
D=${BENCH_DIR:-build/bench}/dnnl_peers
first=""
for i in "${!names[@]}"; do
  [ "${names[$i]}" = dnnl ] && continue
  [ -n "$first" ] || { first=$i; "$work/k$i" dump "$work" > /dev/null; }
done
ref=$(OMP_NUM_THREADS=1 "$work/k$first" | cut -d' ' -f2)
for i in "${!names[@]}"; do
  [ "${names[$i]}" = dnnl ] && continue
  sum=$(OMP_NUM_THREADS=1 "$work/k$i" | cut -d' ' -f2)
  awk -v a="$sum" -v b="$ref" 'BEGIN{d=a-b; if (d<0) d=-d; s=b<0?-b:b; exit !(d <= 1e-3 * (s + 1))}' ||
    echo "warning: ${names[$i]} computes another result (checksum $sum, the first's $ref)"
done
for t in ${THREADS:-1 2}; do
  modes=wall
  [ "$t" = 1 ] && modes="cpu wall"
  for m in $modes; do
    declare -A best=()
    for _ in $(seq "$ROUNDS"); do
      for i in "${!names[@]}"; do
        if [ "${names[$i]}" = dnnl ]; then
          [ "$m" = wall ] || continue
          v=$(OMP_NUM_THREADS=$t "$D" mlp "$REPEAT" "$work/o.f32" 64 256 512 128 "$work/x.f32" \
            "$work/w1.f32" "$work/b1.f32" "$work/w2.f32" "$work/b2.f32" | sed -n 's/^min_ms \([0-9.]*\).*/\1/p')
        else
          v=$(OMP_NUM_THREADS=$t "$work/k$i" "$m" | cut -d' ' -f1)
        fi
        if [ -z "${best[$i]:-}" ] || awk "BEGIN{exit !($v < ${best[$i]})}"; then best[$i]=$v; fi
      done
    done
    for i in "${!names[@]}"; do
      [ -n "${best[$i]:-}" ] && echo "threads $t, $m: ${names[$i]} min ${best[$i]} ms"
    done
    unset best
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
