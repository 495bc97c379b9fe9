#!/usr/bin/env bash
# The main job: install what is needed, build risec, and run an example (the
# matrix-vector product of the RISE & Shine paper's Listing 1) through the
# type checker and the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target risec
./build/risec --help
echo
echo "\$ risec check examples/mv/mv.rise"
./build/risec check examples/mv/mv.rise
echo "\$ risec eval examples/mv/mv.rise --size n=4,m=8 --seed 1"
./build/risec eval examples/mv/mv.rise --size n=4,m=8 --seed 1
