#!/usr/bin/env bash
# A/B of the autoscheduler on softmax and layer norm (issue 34; n=4096, d=1024, --target
# openmp, OMP_NUM_THREADS=2): `risec tune --budget 60` run TUNES times with the base
# build ($RISEC_BASE) and TUNES times with this one ($RISEC, default build/risec), then
# every strategy chosen timed interleaved with oneDNN by rows_cputime.sh (the
# kernels compiled by the same C flags; THREADS=2 and the wall clock by default, which
# needs a quiet machine; THREADS=1 CLOCK=cpu for the thread's CPU time on a loaded
# one). A change to the search (the finalists' last round, docs/tuning.md) shows as the
# spread of the chosen schedules' times: each tune is one sample of the search.
#   RISEC_BASE=/path/to/base/risec bench/autoschedule/rows_ab.sh
# Environment: RISEC, RISEC_BASE (required), PROGRAMS ("softmax layernorm"), TUNES (3),
# BUDGET (60), OUT (build/rows_ab), ROUNDS and REPEAT (rows_cputime.sh's, 5 and 30),
# THREADS (2), CLOCK; OMP_WAIT_POLICY is passed through to the tunes.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${RISEC:-build/risec}
B=${RISEC_BASE:?RISEC_BASE: a build of the base commit}
OUT=${OUT:-build/rows_ab}
TUNES=${TUNES:-3}
BUDGET=${BUDGET:-60}
mkdir -p "$OUT"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), source $(git rev-parse --short HEAD)," \
  "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}, $(date -u), load $(cut -d' ' -f1-3 /proc/loadavg)"
for p in ${PROGRAMS:-softmax layernorm}; do
  files=()
  for k in $(seq "$TUNES"); do
    for side in base new; do
      bin=$R
      [ $side = base ] && bin=$B
      f="$OUT/$p.$side.$k.elv"
      OMP_NUM_THREADS=2 $bin tune bench/autoschedule/programs/$p.rise --size n=4096,d=1024 \
        --target openmp --budget "$BUDGET" --db "$OUT/$side.db" -o "$f" > /dev/null \
        2> "$OUT/$p.$side.$k.log" || true
      echo "$p $side tune $k: $([ -f "$f" ] && sed -n '1s|^// risec tune ([a-z]*, [a-z]*): ||p' "$f")" \
        "(load $(cut -d' ' -f1-3 /proc/loadavg))"
      [ -f "$f" ] && files+=("$f")
    done
  done
  # The strategies are compiled by this build (the C of a strategy text does not depend
  # on the search that chose it).
  THREADS=${THREADS:-2} RISEC=$R bench/autoschedule/rows_cputime.sh "$p" default "${files[@]}"
done
