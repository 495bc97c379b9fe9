#!/usr/bin/env bash
# The default lowering against Halide 14's expert schedule (docs/performance.md, "The
# default lowering against Halide"): builds bench_default_lowering in build/ (configured
# with -DRISEC_BUILD_BENCH=ON) and runs it; extra arguments go to it (--quick). Then
# the compile time of each program's default lowering (risec compile, best of 5).
# Run from anywhere; never fails on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs"
cmake -S . -B build -DRISEC_BUILD_BENCH=ON > /dev/null
cmake --build build --target risec bench_default_lowering > /dev/null
./build/bench/bench_default_lowering "$@"
echo
echo "compile time of the default lowering (risec compile, generated C only; best of 5):"
for spec in "morph5 n=2048,m=2048" "box3 n=2048,m=2048" "box5 n=2048,m=2048" \
            "sharpen n=2048,m=2048" "stencil7 n=128,m=256,o=256"; do
  set -- $spec
  best=""
  for _ in 1 2 3 4 5; do
    t0=$(date +%s%N)
    ./build/risec compile "bench/default_lowering/$1.rise" --size "$2" -o /dev/null
    t=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "  $1 ($2): ${best} ms"
done
