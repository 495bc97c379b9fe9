#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz/ and runs each for
# a while on its corpus, seeded from examples/ and fuzz/seeds/. Fails when a target
# finds a crash; the input lands in build-fuzz/crashes/TARGET/ (docs/fuzzing.md).
#
#   fuzz/run_fuzzers.sh [SECONDS_PER_TARGET] [JOBS] [TARGET...]
#
# Defaults: 10 s per target, 1 job, all five targets, as many targets at a time as
# there are cores. The corpora grow across runs in build-fuzz/corpus/TARGET/ (the
# seeds are copied in on every run); with RISEC_FUZZ_FRESH=1 each run starts from the
# seeds alone in a temporary corpus, so that a short run stays short however long
# earlier runs were.
#
#   fuzz/run_fuzzers.sh --replay BIN_DIR TARGET MUTANTS
#
# runs the replay build of TARGET (fuzz/replay_main.cpp, in BIN_DIR) on the same seeds
# and MUTANTS seeded mutants of them, with the target's dictionary: the suite's test
# fuzz.TARGET (fuzz/CMakeLists.txt). The input that ends a failed run is left in
# BIN_DIR/TARGET.last-input.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seed() {  # seed TARGET DIR: copy the target's seeds into DIR (named by their folder too)
  shopt -s nullglob
  local files=()
  case "$1" in
    rise_check_fuzzer) files=(examples/*/*.rise src/rise/prelude.rise fuzz/seeds/rise/*.rise) ;;
    elv_strategy_fuzzer) files=(examples/*/*.elv) ;;
    npy_fuzzer) files=(fuzz/seeds/npy/*.npy) ;;
    pipeline_fuzzer) files=(examples/*/*.rise) ;;  # any bytes drive the generator
    differential_fuzzer) files=(examples/*/*.rise fuzz/seeds/differential/*) ;;
  esac
  for f in "${files[@]}"; do cp "$f" "$2/$(basename "$(dirname "$f")")_$(basename "$f")"; done
}

dictionary() {  # dictionary TARGET: the libFuzzer dictionary of its language, if any
  case "$1" in
    rise_check_fuzzer) echo fuzz/rise.dict ;;
    elv_strategy_fuzzer) echo fuzz/elv.dict ;;
  esac
}

if [ "${1:-}" = --replay ]; then
  [ "$#" -eq 4 ] || { echo "usage: $0 --replay BIN_DIR TARGET MUTANTS" >&2; exit 2; }
  bin_dir="$2" t="$3" mutants="$4"
  seeds="$(mktemp -d)"
  trap 'rm -rf "$seeds"' EXIT
  seed "$t" "$seeds"
  dict=()
  if [ -n "$(dictionary "$t")" ]; then dict=(--dict "$(dictionary "$t")"); fi
  status=0
  "$bin_dir/$t" --mutants "$mutants" "${dict[@]}" --save "$bin_dir/$t.last-input" "$seeds" ||
    status=$?
  [ "$status" -eq 0 ] || echo "fuzz: $t failed; the input is $bin_dir/$t.last-input" >&2
  exit "$status"
fi

seconds="${1:-10}"
jobs="${2:-1}"
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(rise_check_fuzzer elv_strategy_fuzzer npy_fuzzer pipeline_fuzzer differential_fuzzer)
fi

cc="$(command -v clang-14 || command -v clang)"
cxx="$(command -v clang++-14 || command -v clang++)"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# -O1 -gline-tables-only (the usual flags of libFuzzer targets) rather than
# RelWithDebInfo's -O2 -g: a fifth less compile time; reports keep file:line.
CC="$cc" CXX="$cxx" cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DRISEC_BUILD_FUZZ=ON -DRISEC_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]}"

# One target: its corpus, then libFuzzer; fails when it found a crash.
run_target() {
  local t="$1" corpus crashes
  corpus="build-fuzz/corpus/$t"
  if [ "${RISEC_FUZZ_FRESH:-0}" = 1 ]; then corpus="build-fuzz/fresh-corpus/$t"; rm -rf "$corpus"; fi
  crashes="build-fuzz/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  seed "$t" "$corpus"
  echo "fuzz: $t for ${seconds}s (${jobs} job(s)); crashes go to $crashes/"
  # Inputs of at most 4 KiB: deeper nesting than that is the depth limits' business.
  # -timeout: an input that takes longer than 20 s counts as a hang.
  # Several jobs: libFuzzer's fork mode (stops at the first crash).
  local parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-fork="$jobs"); fi
  # The text targets get their language's tokens (with-loops, masks, strategy names).
  local dict=()
  if [ -n "$(dictionary "$t")" ]; then dict=(-dict="$(dictionary "$t")"); fi
  if ! ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
       "build-fuzz/fuzz/$t" -max_total_time="$seconds" -max_len=4096 -timeout=20 \
         -rss_limit_mb=4096 "${parallel[@]}" "${dict[@]}" -print_final_stats=1 \
         -artifact_prefix="$crashes/" "$corpus" >"build-fuzz/$t.log" 2>&1; then
    echo "fuzz: $t FOUND A CRASH (log: build-fuzz/$t.log, inputs: $crashes/)"
    tail -n 40 "build-fuzz/$t.log"
    return 1
  fi
}

# The targets run side by side, as many at a time as the cores take (a libFuzzer
# process is one core; with JOBS > 1 each takes JOBS): five 10 s runs take 30 s of
# wall time on 2 cores instead of 50.
slots=$(( $(nproc) / jobs ))
if [ "$slots" -lt 1 ]; then slots=1; fi
status=0
running=()
for t in "${targets[@]}"; do
  run_target "$t" &
  running+=("$!")
  if [ "${#running[@]}" -ge "$slots" ]; then
    wait "${running[0]}" || status=1
    running=("${running[@]:1}")
  fi
done
for p in "${running[@]}"; do wait "$p" || status=1; done
exit "$status"
