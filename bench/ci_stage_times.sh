#!/usr/bin/env bash
# The test stages of scripts/test.sh with their times (docs/testing.md, "Where the time
# goes"): the Release ctest, the AVX2 pass (tests labelled vector_width) and the
# sanitizer ctest, each with its wall time, its number of tests and the sum of its
# tests' times (from ctest's LastTest.log), and the load average before and after.
# Builds are not made here: configure and build build/ and build-asan/ as
# scripts/test.sh does first.
#
#   bench/ci_stage_times.sh [release|avx2|asan]...   (default: all three, in that order)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
jit_cache="$PWD/build/jit-cache"
stages=("$@")
[ "${#stages[@]}" -gt 0 ] || stages=(release avx2 asan)

sum_tests() {  # sum_tests LOG: "N tests, S s of test time"
  awk '/^[0-9]+\/[0-9]+ Test: / {n++} /^Test time = / {s += $4} END {printf "%d tests, %.0f s of test time", n, s}' "$1"
}

run_stage() {  # run_stage NAME DIR ctest-arguments...
  local name=$1 dir=$2
  shift 2
  local load0 start rc=0
  load0=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s)
  "$@" >"$dir/ci_stage_$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc, $(($(date +%s) - start)) s wall, $(sum_tests "$dir/Testing/Temporary/LastTest.log"), load $load0 -> $(cut -d' ' -f1 /proc/loadavg)"
}

for stage in "${stages[@]}"; do
  case "$stage" in
    release)
      rm -rf "$jit_cache"
      run_stage release build env RISEC_CACHE_DIR="$jit_cache" \
        ctest --test-dir build --output-on-failure -j "$jobs" ;;
    avx2)
      run_stage avx2 build env RISEC_CACHE_DIR="$jit_cache" RISEC_LANES=8 \
        RISEC_CFLAGS=-march=x86-64-v3 ctest --test-dir build --output-on-failure -j "$jobs" \
        -L '^vector_width$' ;;
    asan)
      ulimit -s 61440
      run_stage asan build-asan env RISEC_CACHE_DIR="$jit_cache" \
        ASAN_OPTIONS=detect_leaks=1:malloc_context_size=0 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j "$jobs" ;;
    *) echo "unknown stage $stage (release, avx2, asan)" >&2; exit 2 ;;
  esac
done
