#!/usr/bin/env bash
# The division and every-map decisions of the autoscheduler (issue 34): for each
# PROGRAM, the strategies bench/autoschedule/reciprocal/PROGRAM_*.elv timed with
# `risec run --repeat 10 --target openmp`, interleaved over ROUNDS rounds; the minimum
# of each over the rounds, with the load average before and after. Each strategy is
# first checked against the interpreter at a small size (`risec run --check`). Run from
# the repository root after building build/risec. Never fails on time.
#   OMP_WAIT_POLICY=passive bench/autoschedule/reciprocal_ab.sh            # softmax
#   PROGRAMS="softmax bilateral" ROUNDS=10 bench/autoschedule/reciprocal_ab.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
ROUNDS=${ROUNDS:-10}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
size_of() { case $1 in layernorm | softmax) echo n=4096,d=1024 ;; *) echo n=1024,m=1024 ;; esac; }
check_of() { case $1 in layernorm | softmax) echo n=5,d=1024 ;; *) echo n=16,m=32 ;; esac; }
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), OMP_NUM_THREADS=$OMP_NUM_THREADS," \
  "source $(git rev-parse --short HEAD), $(date -u)"
for p in ${PROGRAMS:-softmax}; do
  prog=bench/autoschedule/programs/$p.rise
  elvs=(bench/autoschedule/reciprocal/${p}_*.elv)
  for e in "${elvs[@]}"; do
    $R run "$prog" --size "$(check_of "$p")" --target openmp --strategy "$e" --check > /dev/null
  done
  declare -A best=()
  echo "$p ($(size_of "$p")): load before $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((r = 0; r < ROUNDS; r++)); do
    for e in "${elvs[@]}"; do
      t=$($R run "$prog" --size "$(size_of "$p")" --target openmp --strategy "$e" --repeat 10 |
        sed -n 's/.*time: min \([0-9.]*\) ms.*/\1/p')
      if [ -z "${best[$e]:-}" ] || awk "BEGIN{exit !($t < ${best[$e]})}"; then best[$e]=$t; fi
    done
  done
  for e in "${elvs[@]}"; do echo "  $(basename "$e" .elv): min ${best[$e]} ms"; done
  echo "  load after $(cut -d' ' -f1-3 /proc/loadavg)"
  unset best
done
