#!/bin/sh
# The MLP of bench/autoschedule/programs against PyTorch and oneDNN (issue 34): `risec
# tune --budget BUDGET` without a template (OpenMP, 2 threads) writes mlp.elv, then
# bench_peers.py times it on 1 and 2 threads next to the default lowering and the
# peers, with the load average before and after. OMP_WAIT_POLICY is passed through
# (tune60.sh runs with passive on the shared machine).
#   bench/autoschedule/mlp_peers.sh [RISEC] [BENCH_DIR]
# RISEC: the risec binary (build/risec); BENCH_DIR: where dnnl_peers is built
# (build/bench, configured with -DRISEC_BUILD_BENCH=ON). Environment: BUDGET (60),
# REPEAT (30: bench_peers.py's runs per row), KEEP (a directory to keep mlp.elv and
# the tune log in).
set -eu
risec=${1:-build/risec}
bench_dir=${2:-build/bench}
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)," \
  "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}; load $(cut -d' ' -f1-3 /proc/loadavg)"
OMP_NUM_THREADS=2 "$risec" tune bench/autoschedule/programs/mlp.rise \
  --size b=64,k=256,h=512,o=128 --target openmp --budget "${BUDGET:-60}" --db "$out/db" \
  --explain -o "$out/mlp.elv" >/dev/null 2>"$out/tune.log" || true
grep -m1 'chosen schedule' "$out/tune.log" || tail -3 "$out/tune.log"
head -2 "$out/mlp.elv"
/usr/bin/python3 bench/autoschedule/bench_peers.py --only mlp --risec "$risec" \
  --bench-dir "$bench_dir" --risec-strategy "$out" --repeat "${REPEAT:-30}"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
