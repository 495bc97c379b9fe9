#!/usr/bin/env bash
# Softmax or layer norm (bench/autoschedule/programs, d=1024) on N rows (N=128 keeps
# the input and output in a core's L2: the compute alone; 4096 the benchmark's size),
# every variant and oneDNN called in turn within one process, ROUNDS calls each, one
# thread, each call timed as the thread's CPU time; prints the minimum, 10th percentile
# and median per row in ns. Interleaving single calls in one process makes the
# comparison hold on a loaded machine better than separate processes
# (rows_cputime.sh). Each variant is a strategy, `default`, or a C file (risec's C,
# edited by hand); C files are compiled for N=4096 rows and their row loop bound
# rewritten to N. Checks each output against oneDNN's (prints the largest difference).
#   N=128 ROUNDS=4000 bench/autoschedule/rows_inproc.sh layernorm A.elv B.c ...
# Environment: RISEC (build/risec), N (128), ROUNDS (2000). Needs gcc, g++, libdnnl-dev.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
N=${N:-128}
ROUNDS=${ROUNDS:-2000}
prog=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $prog in
  softmax) sig="float*, const float*" call="o, x"
    prim="softmax_forward p(softmax_forward::primitive_desc(softmax_forward::desc(prop_kind::forward_inference, xm.get_desc(), 1), eng));"
    args="{{DNNL_ARG_SRC, xm}, {DNNL_ARG_DST, om}}" ;;
  layernorm) sig="float*, const float*, const float*, const float*" call="o, x, g, b"
    prim="layer_normalization_forward p(layer_normalization_forward::primitive_desc(layer_normalization_forward::desc(prop_kind::forward_inference, xm.get_desc(), 1e-5f, normalization_flags::use_scale | normalization_flags::use_shift), eng));"
    args="{{DNNL_ARG_SRC, xm}, {DNNL_ARG_SCALE, gm}, {DNNL_ARG_SHIFT, bm}, {DNNL_ARG_DST, om}}" ;;
  *) echo "rows_inproc: softmax or layernorm" >&2; exit 2 ;;
esac
decls="" list="" objs=() names=()
i=0
for v in "$@"; do
  if [ "$v" = default ]; then
    "$R" compile bench/autoschedule/programs/$prog.rise --size n=4096,d=1024 --target openmp > "$work/s$i.c"
  elif [ "${v%.c}" != "$v" ]; then
    cp "$v" "$work/s$i.c"
  else
    "$R" compile bench/autoschedule/programs/$prog.rise --size n=4096,d=1024 --target openmp \
      --strategy "$v" > "$work/s$i.c"
  fi
  sed "s/\b$prog\b/k$i/g; s/\b${prog}__/k${i}__/g; s/< 4096;/< $N;/" "$work/s$i.c" > "$work/k$i.c"
  gcc -O3 -march=native -ffp-contract=fast -fno-math-errno -fno-trapping-math -std=gnu99 \
    -fopenmp -DRISEC_OMP_SIMD -w -c "$work/k$i.c" -o "$work/k$i.o"
  decls="$decls void k$i($sig);" list="$list k$i," objs+=("$work/k$i.o") names+=("$v")
  i=$((i + 1))
done
cat > "$work/h.cpp" <<EOF
#include <dnnl.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
extern "C" { $decls }
typedef void (*fn)($sig);
static double now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(int argc, char** argv) {
  fn fs[] = {$list};
  const int nk = sizeof(fs) / sizeof(fs[0]);
  const size_t n = size_t($N) * 1024;
  float *x, *o, *g, *b;
  if (posix_memalign((void**)&x, 64, n * 4) || posix_memalign((void**)&o, 64, n * 4) ||
      posix_memalign((void**)&g, 64, 4096) || posix_memalign((void**)&b, 64, 4096)) return 1;
  srand(1);
  for (size_t i = 0; i < n; i++) x[i] = rand() / (float)RAND_MAX;
  for (int i = 0; i < 1024; i++) { g[i] = 1.0f + i / 1024.0f; b[i] = 0.5f; }
  (void)g; (void)b;
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream s(eng);
  auto md = [](long r, memory::format_tag t) { return memory::desc({r}, memory::data_type::f32, t); };
  memory xm({{$N, 1024}, memory::data_type::f32, memory::format_tag::ab}, eng, x);
  memory om({{$N, 1024}, memory::data_type::f32, memory::format_tag::ab}, eng, o);
  memory gm(md(1024, memory::format_tag::a), eng, g), bm(md(1024, memory::format_tag::a), eng, b);
  $prim
  auto peer = [&] { p.execute(s, $args); s.wait(); };
  peer();
  std::vector<float> ref(o, o + n);
  for (int k = 0; k < nk; k++) {
    fs[k]($call);
    double e = 0;
    for (size_t i = 0; i < n; i++) e = std::max(e, (double)std::fabs(o[i] - ref[i]));
    std::printf("  %s: largest difference from oneDNN %.2g\n", argv[1 + k], e);
  }
  std::vector<std::vector<double>> t(nk + 1);
  for (int r = 0; r < $ROUNDS; r++) {
    for (int k = 0; k <= nk; k++) {
      double a = now();
      if (k < nk) fs[k]($call); else peer();
      t[k].push_back((now() - a) / $N);
    }
  }
  for (int k = 0; k <= nk; k++) {
    std::sort(t[k].begin(), t[k].end());
    std::printf("  %s: ns a row min %.1f, p10 %.1f, median %.1f\n", k < nk ? argv[1 + k] : "oneDNN",
                t[k][0], t[k][t[k].size() / 10], t[k][t[k].size() / 2]);
  }
}
EOF
g++ -O2 -std=c++17 "$work/h.cpp" "${objs[@]}" -ldnnl -fopenmp -o "$work/h"
echo "$prog, $N rows of 1024, 1 thread, CPU time, $ROUNDS calls each interleaved, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
OMP_NUM_THREADS=1 "$work/h" "${names[@]}"
echo "(load $(cut -d' ' -f1-3 /proc/loadavg))"
