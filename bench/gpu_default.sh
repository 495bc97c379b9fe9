#!/usr/bin/env bash
# The default lowering of --target opencl before and after it mapped each stage on
# global threads (docs/performance.md, "The GPU default on PoCL"): "before" is the
# former default's exact text, `simplify ; lowerToC` (one work item), "2-d" the 2-D
# mapping (`simplify ; try(globalOutput(2)) ; lowerToC`, CUDA's default), "after" no
# strategy (OpenCL's default, `simplify ; try(globalOutput(1)) ; lowerToC`). ROUNDS (3) interleaved
# rounds of risec run --repeat 5 each; the minimum and median of each run are printed.
# Run from the repository root after building (build/risec), on the OpenCL platform
# found first ($RISEC_OPENCL_PLATFORM). Never fails on time.
set -euo pipefail
cd "$(dirname "$0")/.."
R=${RISEC:-build/risec}
ROUNDS=${ROUNDS:-3}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for spec in "examples/mm/mm.rise n=512,m=512,k=512" \
              "examples/gaussian/gaussian.rise n=2048,m=2048" \
              "bench/autoschedule/programs/softmax.rise n=4096,d=1024"; do
    set -- $spec
    name=$(basename "$1" .rise)
    before=$($R run "$1" --target opencl --size "$2" --repeat 5 --strategy "simplify ; lowerToC" | grep '^time')
    twod=$($R run "$1" --target opencl --size "$2" --repeat 5 --strategy "simplify ; try(globalOutput(2)) ; lowerToC" | grep '^time')
    after=$($R run "$1" --target opencl --size "$2" --repeat 5 | grep '^time')
    echo "round $round $name $2 before: $before"
    echo "round $round $name $2 2-d:    $twod"
    echo "round $round $name $2 after:  $after"
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
