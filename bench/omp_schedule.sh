#!/usr/bin/env bash
# OpenMP schedules side by side (docs/targets.md, "OpenMP"; the autoscheduler's
# schedule choice, docs/tuning.md): a program whose iterations cost unequal time
# (Mandelbrot: escaped points stop early) and one whose do not (mv), each with its
# result loop parallel and OpenMP's default static schedule, schedule(dynamic, 16) and
# schedule(guided); the variants interleaved, ROUNDS rounds of risec run --repeat 10,
# the minimum of each printed with the load average. Run from the repository root after
# building (build/risec). OMP_NUM_THREADS as set (default: the cores).
set -euo pipefail
cd "$(dirname "$0")/.."
R=build/risec
ROUNDS=${ROUNDS:-10}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), threads ${OMP_NUM_THREADS:-all}"
base="parallelOutput ; lowerToC"
for spec in "mandelbrot n=262144,b=16" "mv n=4096,m=4096"; do
  set -- $spec
  declare -A best=()
  for ((r = 0; r < ROUNDS; r++)); do
    for s in default "dynamic, 16" guided; do
      strategy="$base"
      [ "$s" != default ] && strategy="$base ; everywhere(ompSchedule($s))"
      t=$($R run "examples/$1/$1.rise" --target openmp --size "$2" --strategy "$strategy" \
            --repeat 10 | grep '^time' | grep -oE '[0-9.]+ ms' | head -1 | cut -d' ' -f1)
      if [ -z "${best[$s]:-}" ] || awk "BEGIN{exit !($t < ${best[$s]})}"; then best[$s]=$t; fi
    done
  done
  for s in default "dynamic, 16" guided; do
    echo "$1 $2 schedule($s): min ${best[$s]} ms (load $(cut -d' ' -f1-3 /proc/loadavg))"
  done
  unset best
done
