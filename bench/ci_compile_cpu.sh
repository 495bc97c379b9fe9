#!/usr/bin/env bash
# CPU time of compiling the heaviest sources of the CI's three builds with the flag
# variants that docs/testing.md ("Where the time goes", 29 November, CI time) compares:
# the fuzz build (clang) at -O1 and -O0, with and without UndefinedBehaviorSanitizer;
# the sanitizer build's library sources with GCC (now) against clang (a merged
# sanitizer + fuzz build); the tests' sources one by one against unity units; the
# sources of one library folder (src/codegen) one by one against its unity units, in the
# Release and the sanitizer build.
# Configures scratch build directories in OUT (no ccache) and compiles nothing but the
# sources named here and the tests' precompiled header.
#
#   bench/ci_compile_cpu.sh [OUT] [ROUNDS] [fuzz|asanlib|unity|libunity]...
#   (defaults: /tmp/risec-ci-cpu, 1 round, all four comparisons)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-/tmp/risec-ci-cpu}"
rounds="${2:-1}"
shift $(( $# > 2 ? 2 : $# ))
parts=("$@")
[ "${#parts[@]}" -gt 0 ] || parts=(fuzz asanlib unity libunity)
want() { [[ " ${parts[*]} " == *" $1 "* ]]; }
mkdir -p "$out"
cd "$root"
py=bench/compile_cpu.py

# The three builds, configured as scripts/test.sh and fuzz/run_fuzzers.sh do, but with
# no unity build, so that compile_commands.json has a command for every source.
cmake -S . -B "$out/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRISEC_SANITIZE=ON \
  -DRISEC_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DRISEC_TEST_UNITY_BATCH=0 -DRISEC_UNITY_BATCH=0 >/dev/null
cmake -S . -B "$out/release" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DRISEC_BUILD_BENCH=OFF -DRISEC_TEST_UNITY_BATCH=0 \
  -DRISEC_UNITY_BATCH=0 >/dev/null
CC=clang-14 CXX=clang++-14 cmake -S . -B "$out/fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DRISEC_BUILD_FUZZ=ON -DRISEC_BUILD_BENCH=OFF -DRISEC_UNITY_BATCH=0 >/dev/null
if want unity; then
  ninja -C "$out/asan" tests/CMakeFiles/risec_test_pch.dir/cmake_pch.hxx.gch >/dev/null
  ninja -C "$out/release" tests/CMakeFiles/risec_test_pch.dir/cmake_pch.hxx.gch >/dev/null
fi

lib=(src/driver/explore.cpp src/dpia/translate.cpp)
if want fuzz; then
  echo "## fuzz build (clang-14), library sources"
  python3 "$py" --rounds "$rounds" "$out/fuzz" now,O0,noubsan,O0-noubsan "${lib[@]}"
fi
if want asanlib; then
  echo "## sanitizer build, library sources: GCC 12 (now) against clang-14"
  python3 "$py" --rounds "$rounds" "$out/asan" now,clang "${lib[@]}"
fi

# The first 8 tests of two folders, one by one, as two unity units of 4 (CMake's
# batches, in the folder's order) and as one unit of 8.
unity_args() {  # unity_args DIR SIZE: unity:NAME=A+B+... for each batch of SIZE
  local dir=$1 size=$2 files batch=() k=0
  mapfile -t files < <(find "$dir" -name '*.cpp' | LC_ALL=C sort)
  for f in "${files[@]}"; do
    batch+=("$f")
    if [ "${#batch[@]}" -eq "$size" ]; then
      echo "unity:$(basename "$dir")_$size.$k=$(IFS=+; echo "${batch[*]}")"; batch=(); k=$((k + 1))
    fi
  done
  [ "${#batch[@]}" -eq 0 ] || echo "unity:$(basename "$dir")_$size.$k=$(IFS=+; echo "${batch[*]}")"
}
# A library folder's sources one by one, then as CMake's units of 4 (RISEC_UNITY_BATCH).
if want libunity; then
  for build in release asan; do
    echo "## $build build, src/codegen: its sources alone, then its units of 4"
    mapfile -t one < <(find src/codegen -name '*.cpp' | LC_ALL=C sort)
    mapfile -t four < <(unity_args src/codegen 4)
    python3 "$py" --rounds "$rounds" "$out/$build" now "${one[@]}" "${four[@]}"
  done
fi

want unity || exit 0
for build in asan release; do
  dirs=(tests/elevate tests/e2e)
  [ "$build" = asan ] || dirs=(tests/elevate)
  for dir in "${dirs[@]}"; do
    echo "## $build build, $dir: its first 8 sources alone, then units of 4 and of 8"
    mapfile -t one < <(find "$dir" -name '*.cpp' | LC_ALL=C sort | head -n 8)
    mapfile -t four < <(unity_args "$dir" 4 | head -n 2)
    mapfile -t eight < <(unity_args "$dir" 8 | head -n 1)
    python3 "$py" --rounds "$rounds" "$out/$build" now "${one[@]}" "${four[@]}" "${eight[@]}"
  done
done
