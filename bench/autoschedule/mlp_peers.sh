#!/bin/sh
# The MLP of bench/autoschedule/programs against PyTorch and oneDNN (issue 34): `risec
# tune` without a template (OpenMP, 2 threads) writes mlp.elv, then bench_peers.py
# times it next to the default lowering and the peers.
#   bench/autoschedule/mlp_peers.sh [RISEC] [BENCH_DIR]
# RISEC: the risec binary (build/risec); BENCH_DIR: where dnnl_peers is built
# (build/bench, configured with -DRISEC_BUILD_BENCH=ON).
set -eu
risec=${1:-build/risec}
bench_dir=${2:-build/bench}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
uptime
"$risec" tune bench/autoschedule/programs/mlp.rise --size b=64,k=256,h=512,o=128 \
  --target openmp --db "$out/db" -o "$out/mlp.elv" >/dev/null 2>&1
head -2 "$out/mlp.elv"
/usr/bin/python3 bench/autoschedule/bench_peers.py --only mlp --risec "$risec" \
  --bench-dir "$bench_dir" --risec-strategy "$out"
uptime
