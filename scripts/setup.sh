#!/usr/bin/env bash
# Installs every system package risec needs, by name, idempotently and without
# prompts. Safe to run on every invocation: it only calls apt-get when a package
# is missing.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ gcc make
  libgtest-dev libgmock-dev googletest
  # the file tests (tests/filecheck, docs/testing.md): LLVM's lit and FileCheck
  llvm-14-tools
  libbenchmark-dev
  libopenblas-dev
  libomp-dev
  clang-format
  # the tuning database of `risec tune` (docs/tuning.md)
  libsqlite3-dev sqlite3
  # the fuzz targets (fuzz/, docs/fuzzing.md): clang with its sanitizer and libFuzzer
  # runtimes for long runs, and libFuzzer's FuzzedDataProvider.h, through which the
  # suite's program generators and the fuzz replays of the sanitizer build read bytes
  clang libclang-rt-14-dev
  # the OpenCL target (docs/targets.md): the ICD loader and headers to build and run
  # against, and PoCL, which runs OpenCL kernels on the CPU when there is no GPU
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  # `risec graph` renders its DOT output to SVG/PNG with Graphviz's dot, and its test
  # checks the output parses (docs/cli.md)
  graphviz
  # the image-processing peers of bench/image (docs/performance.md): Halide 14 (JIT)
  # and OpenCV's imgproc; the benchmark is built only where they are found
  libhalide14-0-dev libopencv-imgproc-dev
  # oneDNN, the ML-layer peer of bench/autoschedule (dnnl_peers: MLP, layer norm,
  # softmax against risec and PyTorch); built only where it is found
  libdnnl-dev
  # the bar charts of scripts/bench.sh (bench/plot_results.py) and its test
  python3-matplotlib
  # the Python package (python/, docs/python.md): a venv to build it in with pip
  # (nanobind, scikit-build-core, numpy and pytest come from PyPI) and the headers
  python3-venv python3-dev
  # the browser test of `risec view` (tests/python/test_view.py): Debian's chromium,
  # headless, and its WebDriver (Selenium itself comes from PyPI)
  chromium chromium-driver
  # PyTorch (CPU) for the package's tests of tensors in and out (docs/python.md): the
  # test venv sees it through --system-site-packages (scripts/test.sh). About 48 MB
  # to download and 160 packages with its dependencies.
  python3-torch
)

# Packages that only add benchmark peers: installed where the distribution's archive
# has them; where it does not, setup says so and goes on (the build leaves their rows
# out and says so, never fails).
OPTIONAL_PACKAGES=(
  # CLBlast, the OpenCL BLAS peer of bench_opencl (gemv, atax, gesummv, mm; issue 36)
  libclblast-dev
)

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
missing_optional=()
for p in "${OPTIONAL_PACKAGES[@]}"; do
  installed "$p" || missing_optional+=("$p")
done

# An optional package the archive does not have must not cost an `apt-get update` on
# every run: with package lists already present, the optional packages that have no
# candidate in them are left out first, and the lists are refreshed only when
# something is left to install.
has_candidate() {
  apt-cache policy "$1" 2>/dev/null | grep 'Candidate: [^(]' >/dev/null
}
lists_present() {
  compgen -G "/var/lib/apt/lists/*_Packages*" >/dev/null
}
if [ "${#missing_optional[@]}" -gt 0 ] && lists_present; then
  available=()
  for p in "${missing_optional[@]}"; do
    if has_candidate "$p"; then
      available+=("$p")
    else
      echo "setup: $p is not in the package archive; its benchmark rows are left out"
    fi
  done
  missing_optional=("${available[@]}")
fi

if [ "${#missing[@]}" -gt 0 ] || [ "${#missing_optional[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  for p in "${missing_optional[@]}"; do
    if has_candidate "$p"; then
      missing+=("$p")
    else
      echo "setup: $p is not in the package archive; its benchmark rows are left out"
    fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi
