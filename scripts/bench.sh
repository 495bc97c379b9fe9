#!/usr/bin/env bash
# Runs risec's benchmark programs (bench/) and writes their tables (Markdown) and bar
# charts (PNG) into a results folder (docs/performance.md, "Running the benchmarks").
#
#   scripts/bench.sh                      # every benchmark, full sizes
#   scripts/bench.sh blas image opencl    # only these
#   scripts/bench.sh --quick image        # small sizes, few repetitions (a smoke run)
#
# Options:
#   --quick        small sizes (each program's --quick/--small)
#   --out DIR      results folder (default bench/results/<date>-<cpu>)
#   --build DIR    build folder (default build-bench: Release, RISEC_BUILD_BENCH=ON)
#   --no-setup     do not run scripts/setup.sh (the peers must be installed already)
#   --list         print the benchmark names and exit
# Benchmarks: mm stencil conv blas blackscholes image opencl (default: all that were
# built; bench_image needs Halide or OpenCV, bench_opencl the OpenCL loader).
#
# Each program's table goes to NAME.md (with the header lines it prints), its rows as
# JSON lines to NAME.jsonl (RISEC_BENCH_JSONL, bench/common/bench_util.h), and
# bench/plot_results.py draws NAME.png from them. Exit status: non-zero when a
# program fails (a build error, a wrong result), never because of a time.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ALL=(mm stencil conv blas blackscholes image opencl)

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }

quick=0
setup=1
out=""
build="$ROOT/build-bench"
picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-setup) setup=0 ;;
    --out) out="$2"; shift ;;
    --build) build="$2"; shift ;;
    --list) printf '%s\n' "${ALL[@]}"; exit 0 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *)
      ok=0
      for b in "${ALL[@]}"; do [ "$b" = "$1" ] && ok=1; done
      if [ "$ok" = 0 ]; then
        echo "bench.sh: unknown benchmark '$1' (one of: ${ALL[*]})" >&2
        exit 2
      fi
      picked+=("$1") ;;
  esac
  shift
done
explicit=1
if [ "${#picked[@]}" -eq 0 ]; then picked=("${ALL[@]}"); explicit=0; fi

cpu="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)"
cpu="${cpu:-unknown CPU}"
cores="$(nproc)"
echo "bench.sh: CPU: $cpu ($cores CPUs available); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# The peers (OpenBLAS, Halide, OpenCV, PoCL) and matplotlib.
if [ "$setup" = 1 ]; then "$ROOT/scripts/setup.sh"; fi

# A Release build with the benchmark programs.
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRISEC_BUILD_BENCH=ON \
    "${launcher[@]}" > /dev/null
else
  cmake "$build" -DCMAKE_BUILD_TYPE=Release -DRISEC_BUILD_BENCH=ON > /dev/null
fi
targets=()
for b in "${picked[@]}"; do
  if ninja -C "$build" -t targets all 2> /dev/null | grep -q "^bench_$b:"; then
    targets+=("bench_$b")
  elif [ "$explicit" = 1 ]; then
    echo "bench.sh: bench_$b is not built here (its peers or headers are missing; see the cmake output)" >&2
    exit 1
  fi
done
if [ "${#targets[@]}" -eq 0 ]; then
  echo "bench.sh: no benchmark program to build" >&2
  exit 1
fi
ninja -C "$build" "${targets[@]}"

slug="$(printf '%s' "$cpu" | tr -c 'A-Za-z0-9' '-' | tr -s '-' | sed 's/^-//; s/-$//' | cut -c1-40)"
out="${out:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-$slug}"
if [ "$quick" = 1 ] && [ -z "${out##"$ROOT"/bench/results/*}" ]; then out="$out-quick"; fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
{
  echo "# risec benchmarks"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- CPU: $cpu ($cores CPUs available)"
  echo "- source: $(git -C "$ROOT" describe --always --dirty 2> /dev/null || echo unknown)"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- command: scripts/bench.sh $([ "$quick" = 1 ] && echo --quick) ${picked[*]}"
  echo
} > "$out/README.md"

# The first Python with matplotlib: RISEC_PYTHON, a venv in the source tree, the one
# on PATH, Debian's (python3-matplotlib, installed by scripts/setup.sh).
plot=0
for py in "${RISEC_PYTHON:-}" "$ROOT/.venv/bin/python3" "$(command -v python3 || true)" /usr/bin/python3; do
  if [ -n "$py" ] && [ -x "$py" ] && "$py" -c 'import matplotlib' 2> /dev/null; then
    plot=1
    break
  fi
done
if [ "$plot" = 0 ]; then
  echo "bench.sh: no Python with matplotlib (scripts/setup.sh installs it): no charts" >&2
fi

status=0
for t in "${targets[@]}"; do
  name="${t#bench_}"
  args=()
  if [ "$quick" = 1 ]; then
    case "$name" in
      blas | blackscholes | opencl) args=(--small) ;;
      *) args=(--quick) ;;
    esac
  fi
  echo "bench.sh: running $t ${args[*]}"
  rm -f "$out/$name.jsonl"
  if ! RISEC_BENCH_JSONL="$out/$name.jsonl" "$build/bench/$t" "${args[@]}" | tee "$out/$name.md"; then
    echo "bench.sh: $t failed" >&2
    status=1
  fi
  {
    echo "## $name"
    echo
    [ -f "$out/$name.jsonl" ] && [ "$plot" = 1 ] && echo "![$name]($name.png)" && echo
    echo "[table]($name.md)"
    echo
  } >> "$out/README.md"
  if [ "$plot" = 1 ] && [ -s "$out/$name.jsonl" ]; then
    "$py" "$ROOT/bench/plot_results.py" "$out/$name.jsonl" "$out/$name.png" \
      --title "bench_$name$([ "$quick" = 1 ] && echo ' --quick'): $cpu" || status=1
  fi
done
echo "bench.sh: results in $out (CPU: $cpu)"
exit "$status"
