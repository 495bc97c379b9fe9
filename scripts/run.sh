#!/usr/bin/env bash
# The main job: install what is needed, build risec, then
#  1. compile the RISE & Shine paper's matrix-vector product (Listing 1) with a
#     strategy, run it, check it against the reference interpreter and time it;
#  2. compile the parallel step of the matrix-multiplication ladder (TVM's schedule,
#     reproduced with ELEVATE strategies) for OpenMP at 1024x1024, run it with
#     --check (the interpreter takes a few seconds at this size) and report GFLOP/s;
#  3. time that step beside OpenBLAS's sgemm on the same two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target risec bench_mm

echo "== matrix-vector product (examples/mv), fused strategy, C target"
echo "\$ risec run examples/mv/mv.rise --strategy examples/mv/fused.elv --size n=4096,m=4096 --check --repeat 5"
./build/risec run examples/mv/mv.rise --strategy examples/mv/fused.elv --size n=4096,m=4096 \
  --check --repeat 5 --output /tmp/risec-mv-out.npy

echo
echo "== the same product as the RISE & Shine paper's Listing 4 (work groups of rows), OpenCL on the installed platform"
echo "\$ risec run examples/mv/mv.rise --strategy examples/mv/listing4.elv --target opencl --size n=4096,m=4096 --check --repeat 5"
./build/risec run examples/mv/mv.rise --strategy examples/mv/listing4.elv --target opencl \
  --size n=4096,m=4096 --check --repeat 5 --output /tmp/risec-mv-ocl-out.npy

echo
echo "== matrix product, parallel step of the ladder (examples/mm/parallel.elv), OpenMP, 2 threads"
echo "\$ risec run examples/mm/mm.rise --strategy examples/mm/parallel.elv --target openmp --size n=1024,m=1024,k=1024 --check --repeat 10 --flops 2*n*m*k"
OMP_NUM_THREADS=2 ./build/risec run examples/mm/mm.rise --strategy examples/mm/parallel.elv \
  --target openmp --size n=1024,m=1024,k=1024 --check --repeat 10 --flops '2*n*m*k' \
  --output /tmp/risec-mm-out.npy

echo
echo "== the same step beside OpenBLAS sgemm (2 threads)"
./build/bench/bench_mm --parallel-only
