#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: runs every GPU strategy of the examples with
# `risec run --target cuda --check` (compared with the interpreter), the CUDA
# benchmark (bench_cuda: risec's mm against cuBLAS SGEMM and a hand-written kernel)
# and the OpenCL suite (bench_opencl: risec's OpenCL strategies against hand-written
# kernels and CLBlast), and prints the GPU, the date and the results as Markdown, ready
# to paste into docs/performance.md ("CUDA", "OpenCL"), the run itself recorded in
# bench/results/journal/. Builds what it needs in build/ (with the benchmarks).
#
#   scripts/gpu-check.sh [--size N] [--repeat R] [--no-build]
#
# --size is bench_cuda's size (4096 by default). --no-build uses build/risec,
# build/bench/bench_cuda and build/bench/bench_opencl as they are (built on another
# machine with the same CUDA toolkit, e.g. when the GPU machine has no compiler for the
# host's dependencies); shared libraries the GPU machine lacks (libclblast.so.1, the
# OpenCL ICD loader libOpenCL.so.1) can be carried in build/lib/, which is searched
# first: on the development machine, `mkdir -p build/lib && cp -L
# /usr/lib/x86_64-linux-gnu/{libclblast.so.1,libOpenCL.so.1} build/lib/`.
# bench_opencl is skipped, with a message, where it was not built (no OpenCL).
#
# Exits 1 when a check fails, 4 when there is no GPU or no nvcc.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
size=4096
repeat=10
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "usage: scripts/gpu-check.sh [--size N] [--repeat R] [--no-build]" >&2; exit 2 ;;
  esac
done
export PATH="$PATH:/usr/local/cuda/bin"
if ! command -v nvcc >/dev/null; then
  echo "gpu-check: nvcc not found (install the CUDA toolkit or add its bin/ to PATH)" >&2
  exit 4
fi
if ! gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"; then
  echo "gpu-check: no NVIDIA GPU: $gpu" >&2
  exit 4
fi
if [ "$build" = 1 ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRISEC_BUILD_BENCH=ON >/dev/null &&
    cmake --build build --target risec bench_cuda >/dev/null || {
    echo "gpu-check: the build failed" >&2
    exit 4
  }
  # Only where CMake found OpenCL (bench/opencl/CMakeLists.txt); CLBlast is optional.
  if ninja -C build -t targets 2>/dev/null | grep '^bench_opencl:' >/dev/null; then
    cmake --build build --target bench_opencl >/dev/null || {
      echo "gpu-check: the build of bench_opencl failed" >&2
      exit 4
    }
  fi
elif [ ! -x build/risec ] || [ ! -x build/bench/bench_cuda ]; then
  echo "gpu-check: --no-build needs build/risec and build/bench/bench_cuda" >&2
  exit 4
fi

# The test sizes of each example (tests/e2e/e2e_util.cpp, example_sizes()).
sizes_of() {
  sed -n 's/^ *{"\([a-z0-9_]*\)", "\([^"]*\)"},*$/\1 \2/p' tests/e2e/e2e_util.cpp |
    awk -v e="$1" '$1 == e { print $2; exit }'
}

echo "### CUDA on $(echo "$gpu" | cut -d, -f1) ($(date -u +%Y-%m-%d))"
echo
echo "GPU: $gpu; $(nvcc --version | tail -1); risec $(git rev-parse --short HEAD)."
echo
echo '`scripts/gpu-check.sh`: every GPU strategy with `--target cuda --check` at the test sizes:'
echo
echo "| example | strategy | sizes | check | kernel time |"
echo "|---|---|---|---|---|"
failed=0
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for elv in examples/*/*.elv; do
  grep -qE 'mapGlobal|mapWorkGroup|mapLocal|toGlobal|toLocal|toPrivate|oclReduceSeq' "$elv" || continue
  ex="$(basename "$(dirname "$elv")")"
  s="$(sizes_of "$ex")"
  out="$(build/risec run "examples/$ex/$ex.rise" --strategy "$elv" --target cuda --size "$s" \
         --check --repeat 3 --output "$tmp/out.npy" 2>&1)"
  if echo "$out" | grep -q "check: passed"; then
    result=passed
  else
    result="FAILED: $(echo "$out" | grep -m1 -iE 'error|mismatch|check' | tr '|' '/')"
    failed=1
  fi
  time="$(echo "$out" | sed -n 's/^time: min [^,]*, median \([^ ]*\) ms.*/\1 ms/p')"
  echo "| $ex | $(basename "$elv" .elv) | $s | $result | ${time:-n/a} |"
done
echo
echo "\`build/bench/bench_cuda --size $size --repeat $repeat\`:"
echo
build/bench/bench_cuda --size "$size" --repeat "$repeat" || failed=1

echo
if [ -x build/bench/bench_opencl ]; then
  export LD_LIBRARY_PATH="$root/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if missing="$(ldd build/bench/bench_opencl | grep 'not found')"; then
    echo "gpu-check: bench_opencl lacks shared libraries (carry them in build/lib/):"
    echo "$missing"
    failed=1
  else
    echo "\`build/bench/bench_opencl --repeat $repeat\` (the OpenCL suite; CLBlast for gemv, atax, gesummv, mm):"
    echo
    RISEC="$root/build/risec" build/bench/bench_opencl --repeat "$repeat" || failed=1
  fi
else
  echo "gpu-check: build/bench/bench_opencl was not built (no OpenCL found): the OpenCL suite is skipped"
fi
exit $failed
