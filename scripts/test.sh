#!/usr/bin/env bash
# Builds everything and runs every test twice: a normal optimised build, then a
# build with AddressSanitizer + UndefinedBehaviorSanitizer; then builds the libFuzzer
# targets with clang and runs each briefly (a crash fails). Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRISEC_SANITIZE=ON \
  -DRISEC_BUILD_BENCH=OFF
cmake --build build-asan -j "$jobs"
# The test binaries call the compiler on their main thread; give it the 60 MiB stack
# the command line gives its compiler thread under the sanitizers (src/support/stack.h),
# since AddressSanitizer's frames are several times larger than the Release ones.
(
  ulimit -s 61440 || echo "test.sh: could not raise the stack limit; deep tests may fail" >&2
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"
)

# A short run of each fuzz target (docs/fuzzing.md has the command for long runs).
RISEC_FUZZ_FRESH=1 ./fuzz/run_fuzzers.sh "${RISEC_FUZZ_SECONDS:-10}"
