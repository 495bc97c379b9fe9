#!/usr/bin/env bash
# The slowest tests of tests/driver (docs/testing.md, "Where the time goes"), each run
# alone by its test binary in the Release build and in the sanitizer build, with the
# environment scripts/test.sh gives the sanitizer ctest (ASAN_OPTIONS, a 60 MiB
# stack) and one cache of compiled code, filled by the Release run first as there.
# Prints for each test and build the wall time and the CPU time (user + system, the
# test and its children: GCC compiling the candidates' C), and the load average.
# Builds are not made here: build risec_driver_tests in build/ and build-asan/ as
# scripts/test.sh configures them first.
#
#   bench/driver_test_times.sh [ROUNDS] [GTEST_FILTER...]
#     (default: 1 round of the tests below; each round runs Release then sanitizers)
#   BUILDS="DIR..." bench/driver_test_times.sh ...
#     the builds to compare, each test run in each in turn (default: build build-asan):
#     e.g. BUILDS="../base/build build ../base/build-asan build-asan" for before and
#     after a change. The first round fills the cache of compiled code (the first build
#     of it pays GCC); compare the later rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-1}
shift || true
tests=("$@")
if [ "${#tests[@]}" -eq 0 ]; then
  tests=(
    Autoschedule.SpaceHasEveryKindOfDecision
    Autoschedule.EveryCandidateComputesWhatTheInterpreterComputes
    Autoschedule.LongProgramsGetABoundedSpace
    Autoschedule.MatrixProductsGetRegisterBlockedCandidates
    ReciprocalSpace.RowProgramsGetTheDecisionsAndComputeWhatTheInterpreterComputes
    StageInline.InlinedCandidateSplitsBordersAndMatchesTheInterpreter
    Strips.SpacesOfImagePipelinesHaveStripsMeasuredWithin60
    Strips.GeneratedStencilChainsComputeWhatTheInterpreterComputes
  )
fi
jit_cache="${RISEC_TIMES_CACHE:-$PWD/build/jit-cache-driver-times}"
ulimit -s 61440 || echo "driver_test_times.sh: could not raise the stack limit" >&2
one() {  # one BUILD TEST
  local rc=0 times wall user sys
  times=$(mktemp)
  /usr/bin/time -o "$times" -f "%e %U %S" env RISEC_CACHE_DIR="$jit_cache" \
    ASAN_OPTIONS=detect_leaks=1:malloc_context_size=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$1/tests/risec_driver_tests" --gtest_filter="$2" >/dev/null 2>&1 || rc=$?
  read -r wall user sys < <(tail -1 "$times")
  rm -f "$times"
  printf '%-12s %-66s wall %7.1f s  cpu %7.1f s  exit %d  load %s\n' "$1" "$2" "$wall" \
    "$(echo "$user + $sys" | bc)" "$rc" "$(cut -d' ' -f1 /proc/loadavg)"
}
read -r -a builds <<<"${BUILDS:-build build-asan}"
for ((r = 0; r < rounds; ++r)); do
  for t in "${tests[@]}"; do
    for b in "${builds[@]}"; do one "$b" "$t"; done
  done
done
