#!/usr/bin/env bash
# The default lowering against Halide 14's expert schedule (docs/performance.md, "The
# default lowering against Halide"): builds bench_default_lowering in build/ (configured
# with -DRISEC_BUILD_BENCH=ON) and runs it; extra arguments go to it (--quick). Then
# the CPU time of compiling each program with the default lowering and with
# `simplify ; lowerToC` (the default before issue 34), best of 5.
# Run from anywhere; never fails on time.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs"
cmake -S . -B build -DRISEC_BUILD_BENCH=ON > /dev/null
cmake --build build --target risec bench_default_lowering > /dev/null
./build/bench/bench_default_lowering "$@"
echo
echo "compile time of the default lowering (risec compile, generated C only): CPU seconds"
echo "(user + system; the wall time on a loaded machine is mostly waiting), best of 5:"
TIMEFORMAT='%3U %3S'
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for spec in "morph5 n=2048,m=2048" "box3 n=2048,m=2048" "box5 n=2048,m=2048" \
            "sharpen n=2048,m=2048" "stencil7 n=128,m=256,o=256"; do
  set -- $spec
  for strategy in "" "simplify ; lowerToC"; do
    best=""
    for _ in 1 2 3 4 5; do
      if [ -z "$strategy" ]; then
        t=$( { time ./build/risec compile "bench/default_lowering/$1.rise" --size "$2" \
                 -o "$scratch/out.c"; } 2>&1 )
      else
        t=$( { time ./build/risec compile "bench/default_lowering/$1.rise" --size "$2" \
                 --strategy "$strategy" -o "$scratch/out.c"; } 2>&1 )
      fi
      s=$(echo "$t" | awk '{ printf "%.3f", $1 + $2 }')
      if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
    done
    echo "  $1 ($2) ${strategy:-default}: ${best} s"
  done
done
