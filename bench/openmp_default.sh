#!/usr/bin/env bash
# The default lowering on the C and OpenMP targets side by side (docs/performance.md,
# "The OpenMP default"): risec run --repeat 20 of each program, minimum and median.
# Run from the repository root after building (build/risec). Never fails on time.
set -euo pipefail
cd "$(dirname "$0")/.."
R=build/risec
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
for spec in "blur5 n=2048,m=2048" "gaussian n=2048,m=2048" "harris n=2048,m=2048" \
            "mm n=512,m=512,k=512" "blackscholes n=4194304" "mv n=4096,m=4096" \
            "jacobi5 n=2048,m=2048"; do
  set -- $spec
  for t in c openmp; do
    echo "$1 $2 $t: $($R run "examples/$1/$1.rise" --target "$t" --size "$2" --repeat 20 | grep '^time')"
  done
done
