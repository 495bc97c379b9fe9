#!/bin/sh
# Experiments behind the analysis in bench/results/journal/2026-11-21-mm-ladder.md and
# 2026-11-21-stencils.md: what the generated C of the mm ladder and of jacobi5 would
# gain from small code-generation changes. Each
# change is applied to risec's output with sed or a small Python edit (the generated
# code is otherwise unchanged), every variant is compiled with the runtime's flags
# (cc -O3 -march=native -ffp-contract=fast -std=gnu99, see src/runtime/jit.h) and
# timed by a small harness, variants interleaved, median of 9 calls after a warm-up.
# A change that risec's code generation already makes is labelled "no effect".
#
#   sh bench/common/codegen_experiments.sh        (from the repository root, after
#                                                  cmake --build build)
#
# mm (n = m = k = 1024), variants:
#   STEP          as generated
#   STEP+noalias  risec_alloc declared __attribute__((malloc, noinline)): GCC then
#                 knows that the buffers it returns alias nothing else
#   STEP+bcast    risec_f32x32_broadcast written as a vector operation
#                 ((risec_f32x32){0} + x) instead of a loop over the 32 lanes
#   STEP+outlined (parallel step) the body of the parallel product loop moved into a
#                 function with restrict parameters (GCC's OpenMP outlining passes
#                 the pointers through a struct and loses restrict)
#   (everything is compiled with -fopenmp and run with OMP_NUM_THREADS=2, which only
#   the parallel step uses)
# jacobi5 (4096 x 4096):
#   generated     as generated (default lowering)
#   split         the column loop split by hand into [0, 1), [1, m-1), [m-1, m), the
#                 clamps removed in the middle part (what index-set splitting in code
#                 generation would produce)
#   hand-written  the expert loop of bench/stencil/bench_stencil.cpp
set -eu
RISEC=${RISEC:-./build/risec}
CC=${CC:-cc}
CFLAGS="-O3 -march=native -ffp-contract=fast -std=gnu99 -w -Wno-psabi"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

gen() {
  target=c
  case $1 in *parallel*) target=openmp ;; esac
  "$RISEC" compile examples/mm/mm.rise --size n=1024,m=1024,k=1024 --strategy "examples/mm/$1.elv" --target $target
}
noalias() { sed 's/static inline void\* risec_alloc(size_t bytes)/__attribute__((malloc, noinline)) static void* risec_alloc(size_t bytes)/'; }
bcast() { sed 's/static inline risec_f32x32 risec_f32x32_broadcast(float x) { risec_f32x32 v; for (int l = 0; l < 32; ++l) v\[l\] = x; return v; }/static inline risec_f32x32 risec_f32x32_broadcast(float x) { return (risec_f32x32){0} + x; }/'; }
# The parallel product loop's body as a function with restrict parameters, called
# from the `#pragma omp parallel for` loop: GCC's OpenMP outlining passes the
# pointers through a shared struct and loses their restrict qualifiers.
outline() {
  python3 -c '
import re, sys
s = sys.stdin.read()
m = None
for m0 in re.finditer(r"  #pragma omp parallel for\n  for \(int (i\d+) = 0; \1 < (\d+); \1 \+= 1\) \{", s):
    if "risec_f32x32_broadcast(A[" in s[m0.end():m0.end() + 4000]: m = m0
if m is None: sys.exit("outline: no parallel product loop found")
i, depth = m.end(), 1
while depth:
    depth += {"{": 1, "}": -1}.get(s[i], 0)
    i += 1
body = s[m.end():i - 1]
tmp = re.search(r"\b(tmp\d+)\[", body).group(1)
mem = re.search(r"\b(mem__\d+)\[", body).group(1)
var = m.group(1)
fn = ("static void product_block(int %s, float* restrict %s, const float* restrict A, "
      "const float* restrict %s) {%s}\n" % (var, tmp, mem, body))
s = (s[:m.start()] + "  #pragma omp parallel for\n  for (int %s = 0; %s < %s; %s += 1) "
     "product_block(%s, %s, A, %s);\n" % (var, var, m.group(2), var, var, tmp, mem) + s[i:])
k = s.index("void mm(")
sys.stdout.write(s[:k] + fn + s[k:])
'
}
ren() { sed "s/\bmm(/mm_$1(/g; s/mm__risec_call/mm_$1__risec_call/g"; }

names=""
labels=""
add() {  # add NAME STEP FILTER...: risec's code for STEP through the filters
  name=$1; step=$2; shift 2
  f="$dir/$name.c"
  gen "$step" > "$f.gen"
  cp "$f.gen" "$f.in"
  for filter in "$@"; do $filter < "$f.in" > "$f.tmp"; mv "$f.tmp" "$f.in"; done
  label=$name
  # risec's code generation changes: say when a change is already in its output.
  if [ $# -gt 0 ] && cmp -s "$f.gen" "$f.in"; then label="$name (no effect: already generated)"; fi
  ren "$name" < "$f.in" > "$f"
  names="$names $name"
  labels="$labels|$label"
}
add blocking blocking
add vectorization vectorization
add vectorization_bcast vectorization bcast
add loop_permutation loop_permutation
add array_packing array_packing
add array_packing_noalias array_packing noalias
add cache_blocks cache_blocks
add cache_blocks_noalias cache_blocks noalias
add parallel parallel
add parallel_noalias parallel noalias
add parallel_outlined parallel outline

{
  echo '#define _POSIX_C_SOURCE 200112L'
  echo '#include <stdio.h>'
  echo '#include <stdlib.h>'
  echo '#include <time.h>'
  for n in $names; do echo "void mm_$n(float*, const float*, const float*);"; done
  echo 'typedef void (*F)(float*, const float*, const float*);'
  echo 'static struct { const char* name; F f; } vs[] = {'
  i=2
  for n in $names; do
    echo "  {\"$(echo "$labels" | cut -d'|' -f$i)\", mm_$n},"
    i=$((i + 1))
  done
  echo '};'
  cat <<'EOF'
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(void) {
  enum { n = 1024, R = 9, NV = sizeof vs / sizeof vs[0] };
  size_t N = (size_t)n * n;
  float *A, *B, *C;
  if (posix_memalign((void**)&A, 64, N * 4) || posix_memalign((void**)&B, 64, N * 4) ||
      posix_memalign((void**)&C, 64, N * 4)) return 1;
  for (size_t i = 0; i < N; i++) { A[i] = (i * 7 % 13) * 0.1f; B[i] = (i * 5 % 11) * 0.1f; }
  static double t[NV][R];
  double sum0 = 0;
  for (int v = 0; v < NV; v++) {
    vs[v].f(C, A, B);
    double s = 0;
    for (size_t i = 0; i < N; i++) s += C[i];
    if (v == 0) sum0 = s;
    if ((s - sum0) / sum0 > 1e-5 || (sum0 - s) / sum0 > 1e-5) printf("%s: checksum differs\n", vs[v].name);
  }
  for (int r = 0; r < R; r++)
    for (int v = 0; v < NV; v++) { double a = now(); vs[v].f(C, A, B); t[v][r] = now() - a; }
  printf("| mm 1024 variant | median ms | GFLOP/s |\n|---|---|---|\n");
  for (int v = 0; v < NV; v++) {
    qsort(t[v], R, sizeof(double), cmp);
    printf("| %s | %.2f | %.1f |\n", vs[v].name, t[v][R / 2] * 1e3, 2.0 * n * n * (double)n / t[v][R / 2] * 1e-9);
  }
  return 0;
}
EOF
} > "$dir/mm_main.c"
for n in $names; do $CC $CFLAGS -fopenmp -c "$dir/$n.c" -o "$dir/$n.o"; done
$CC -O2 -w -fopenmp "$dir/mm_main.c" "$dir"/*.o -o "$dir/mm_exp"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# The parallel variants on 2 threads; passive waiting, so that idle OpenMP threads
# do not spin while the sequential variants run.
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$dir/mm_exp"
rm -f "$dir"/*.o

# ---------------------------------------------------------------- jacobi5
"$RISEC" compile examples/jacobi5/jacobi5.rise --size n=4096,m=4096 | sed 's/\bjacobi5(/gen5(/; s/jacobi5__risec_call/gen5__risec_call/' > "$dir/gen5.c"
cat > "$dir/split5.c" <<'EOF'
static inline int risec_min(int a, int b) { return a < b ? a : b; }
static inline int risec_max(int a, int b) { return a > b ? a : b; }
/* The generated loop nest with the column loop split where the clamps change. */
void split5(float* restrict output, const float* restrict A) {
  for (int i4 = 0; i4 < 4096; i4 += 1) {
    for (int i5 = 0; i5 < 1; i5 += 1)
      output[4096*i4 + i5] = 0.200000003f * (A[i5 + 4096*risec_max(0, i4 - 1)] + A[i5 + 4096*risec_min(4095, i4 + 1)] + A[4096*i4 + risec_min(4095, i5 + 1)] + A[4096*i4 + risec_max(0, i5 - 1)] + A[4096*i4 + i5]);
    for (int i5 = 1; i5 < 4095; i5 += 1)
      output[4096*i4 + i5] = 0.200000003f * (A[i5 + 4096*risec_max(0, i4 - 1)] + A[i5 + 4096*risec_min(4095, i4 + 1)] + A[4096*i4 + i5 + 1] + A[4096*i4 + i5 - 1] + A[4096*i4 + i5]);
    for (int i5 = 4095; i5 < 4096; i5 += 1)
      output[4096*i4 + i5] = 0.200000003f * (A[i5 + 4096*risec_max(0, i4 - 1)] + A[i5 + 4096*risec_min(4095, i4 + 1)] + A[4096*i4 + risec_min(4095, i5 + 1)] + A[4096*i4 + risec_max(0, i5 - 1)] + A[4096*i4 + i5]);
  }
}
EOF
cat > "$dir/hand5.c" <<'EOF'
#define N 4096
#define M 4096
static inline void row5(float* restrict o, const float* restrict up, const float* restrict c,
                        const float* restrict dn) {
  o[0] = 0.2f * (up[0] + dn[0] + c[1] + c[0] + c[0]);
  for (int j = 1; j < M - 1; ++j) o[j] = 0.2f * (up[j] + dn[j] + c[j + 1] + c[j - 1] + c[j]);
  o[M - 1] = 0.2f * (up[M - 1] + dn[M - 1] + c[M - 1] + c[M - 2] + c[M - 1]);
}
void hand5(float* restrict out, const float* restrict A) {
  row5(out, A, A, A + M);
  for (int i = 1; i < N - 1; ++i) row5(out + M * i, A + M * (i - 1), A + M * i, A + M * (i + 1));
  row5(out + M * (N - 1), A + M * (N - 2), A + M * (N - 1), A + M * (N - 1));
}
EOF
cat > "$dir/st_main.c" <<'EOF'
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
void gen5(float*, const float*); void split5(float*, const float*); void hand5(float*, const float*);
typedef void (*F)(float*, const float*);
static struct { const char* name; F f; } vs[] = {{"generated", gen5}, {"split", split5}, {"hand-written", hand5}};
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return x < y ? -1 : x > y; }
int main(void) {
  enum { R = 21, NV = 3 };
  size_t N = (size_t)4096 * 4096;
  float *A, *o[NV];
  if (posix_memalign((void**)&A, 64, N * 4)) return 1;
  for (int v = 0; v < NV; v++) if (posix_memalign((void**)&o[v], 64, N * 4)) return 1;
  for (size_t i = 0; i < N; i++) A[i] = (i * 7 % 13) * 0.1f;
  static double t[NV][R];
  for (int v = 0; v < NV; v++) vs[v].f(o[v], A);
  for (int v = 1; v < NV; v++) if (memcmp(o[v], o[0], N * 4)) printf("%s: result differs\n", vs[v].name);
  for (int r = 0; r < R; r++)
    for (int v = 0; v < NV; v++) { double a = now(); vs[v].f(o[v], A); t[v][r] = now() - a; }
  printf("| jacobi5 4096x4096 variant | median ms |\n|---|---|\n");
  for (int v = 0; v < NV; v++) { qsort(t[v], R, sizeof(double), cmp); printf("| %s | %.3f |\n", vs[v].name, t[v][R / 2] * 1e3); }
  return 0;
}
EOF
for f in gen5 split5 hand5; do $CC $CFLAGS -c "$dir/$f.c" -o "$dir/$f.o"; done
$CC -O2 -w "$dir/st_main.c" "$dir"/gen5.o "$dir"/split5.o "$dir"/hand5.o -o "$dir/st_exp"
"$dir/st_exp"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
