#!/usr/bin/env bash
# Builds everything and runs every test twice: a normal optimised build, then a
# build with AddressSanitizer + UndefinedBehaviorSanitizer, whose tests include a
# replay of each fuzz target's seeds and seeded mutants of them (docs/fuzzing.md).
# Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
jobs=$(nproc)

# Position-independent, so the Python package below links this build's librisec.a.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON
cmake --build build -j "$jobs"
# One cache of compiled code (docs/cli.md) for both test runs, emptied first: the C
# that the tests generate is compiled by GCC once, in the Release run, and the
# sanitizer run finds the same programs there (the key is the C text, the flags and
# the compiler; docs/testing.md). The tests that check the cache itself use their own.
jit_cache="$PWD/build/jit-cache"
rm -rf "$jit_cache"
RISEC_CACHE_DIR="$jit_cache" ctest --test-dir build --output-on-failure -j "$jobs"

# The code-generation, end-to-end and API tests whose result may depend on the vector
# width (label vector_width, tests/CMakeLists.txt) again at the AVX2 level (x86-64-v3,
# 8 float lanes), on a machine with AVX-512: a change that breaks AVX2-only machines
# (a test expecting 16 lanes, a lane loop GCC leaves scalar without masked
# instructions) fails where it is made (docs/testing.md). On a machine without
# AVX-512 the run above already was at this level. Left out of this pass, by the
# label: the tests of the OpenCL and CUDA targets (PoCL and nvcc compile their
# kernels, not GCC with RISEC_CFLAGS, and their vector widths are the strategies'
# own) and the suites whose programs have no vector (limits, literals, bounds...),
# which would repeat the same work.
if grep -qw avx512f /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo; then
  RISEC_CACHE_DIR="$jit_cache" RISEC_LANES=8 RISEC_CFLAGS=-march=x86-64-v3 \
    ctest --test-dir build --output-on-failure -j "$jobs" -L '^vector_width$'
fi

# The tests labelled isa_baseline (tests/CMakeLists.txt: lane loops, libm and libmvec
# calls, min/max, floor/ceil, masks, OpenMP vector reductions, a few vector examples)
# again at the x86-64 baseline, SSE2 only (4 float lanes), on every
# x86-64 machine: no SSE4.1 rounding, blends or ptest, no FMA, no AVX, so a change
# that generates code only a newer level compiles, links or vectorises (a declared
# vector variant libmvec lacks) fails where it is made. About a minute on the loaded
# 2-core machine.
if [ "$(uname -m)" = x86_64 ]; then
  RISEC_CACHE_DIR="$jit_cache" RISEC_LANES=4 RISEC_CFLAGS=-march=x86-64 \
    ctest --test-dir build --output-on-failure -j "$jobs" -L '^isa_baseline$'
fi

# The Python package (docs/python.md): built in a venv against the build above
# (RISEC_PREBUILT: only the module is compiled, into a kept build directory), then
# its pytest suite; pytest's "no tests collected" (exit 5) fails like any failure.
# The venv sees the system's packages: Debian's python3-torch (scripts/setup.sh) for
# the tests of tensors; numpy stays below 2, the ABI that torch was built against (the
# system's numpy satisfies it). A venv made before without them is switched over.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -x build/python-venv/bin/python ] || "$py" -m venv --system-site-packages build/python-venv
sed -i 's/^include-system-site-packages = false$/include-system-site-packages = true/' \
  build/python-venv/pyvenv.cfg
build/python-venv/bin/pip install -q scikit-build-core nanobind "numpy<2" pytest optuna selenium
# The package is built as a wheel (a binary one: the module and the compiler's
# libraries inside), and the tests run against that wheel installed, which pip does
# without building anything (docs/python.md, "Installing").
rm -rf build/wheels
build/python-venv/bin/pip wheel -q --no-deps --no-build-isolation ./python -w build/wheels \
  --config-settings=build-dir="$PWD/build/python-build" \
  --config-settings=cmake.define.RISEC_PREBUILT="$PWD/build"
build/python-venv/bin/pip install -q --force-reinstall --no-deps --no-index build/wheels/risec-*.whl
build/python-venv/bin/python -m pytest -q tests/python

# -O1 -g1 rather than RelWithDebInfo's -O2 -g: half the compile time of this, the
# most expensive stage (docs/testing.md has the measurements); the sanitizers check
# the same code, and -g1 keeps the file:line of every frame in their reports.
# The tests' own sources are not instrumented (only the compiler is) and ask at run
# time which build they are in, so the sanitizer build links its test binaries from
# the Release build's test objects instead of compiling them again
# (RISEC_TEST_OBJECTS_FROM; docs/testing.md, "The sanitizer tests").
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRISEC_SANITIZE=ON \
  -DRISEC_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DRISEC_TEST_OBJECTS_FROM="$PWD/build"
cmake --build build-asan -j "$jobs"
# The test binaries call the compiler on their main thread; give it the 60 MiB stack
# the command line gives its compiler thread under the sanitizers (src/support/stack.h),
# since AddressSanitizer's frames are several times larger than the Release ones.
# malloc_context_size=0: AddressSanitizer records no stack of each allocation and free
# (30 frames by default). Recording 30 frames was about half of the CPU time of a
# rewrite, 10 still about a sixth (docs/testing.md). It finds the same errors and shows
# the access that fails whole; only a report's "allocated by"/"freed by" stacks are
# left out, and the failing test, run again by hand with malloc_context_size=30, shows
# them.
# -LE sanitizer_unsampled: a fixed sample of the end-to-end tests, at least one of each
# suite (tests/sanitizer_sample.cmake); the Release run above ran all of them.
# ctest starts the tests it knows to be long first (its cost data, kept per build
# directory); a fresh sanitizer build has none, and a long test started last would run
# alone on one core at the end: the Release run's times order this run too.
mkdir -p build-asan/Testing/Temporary
[ -f build-asan/Testing/Temporary/CTestCostData.txt ] ||
  cp build/Testing/Temporary/CTestCostData.txt build-asan/Testing/Temporary/ 2>/dev/null || true
(
  ulimit -s 61440 || echo "test.sh: could not raise the stack limit; deep tests may fail" >&2
  RISEC_CACHE_DIR="$jit_cache" ASAN_OPTIONS=detect_leaks=1:malloc_context_size=0 \
    UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-asan --output-on-failure -j "$jobs" \
    -LE '^sanitizer_unsampled$'
)
