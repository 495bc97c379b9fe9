#!/bin/sh
# The fork and join of an OpenMP parallel loop on this machine under each wait policy
# (forkjoin.c; kForkJoinSpin and kForkJoinPassive in src/driver/cost_model.cpp, docs/tuning.md), with
# the load average. Never fails on time.
#   bench/autoschedule/forkjoin.sh [REGIONS] [ROUNDS]
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
${CC:-cc} -O2 -fopenmp forkjoin.c -o "$out/forkjoin"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); load $(cut -d' ' -f1-3 /proc/loadavg)"
for policy in unset passive active; do
  for t in 1 2; do
    printf 'OMP_WAIT_POLICY=%s ' "$policy"
    if [ "$policy" = unset ]; then
      env -u OMP_WAIT_POLICY OMP_NUM_THREADS=$t "$out/forkjoin" "$@"
    else
      OMP_WAIT_POLICY=$policy OMP_NUM_THREADS=$t "$out/forkjoin" "$@"
    fi
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
