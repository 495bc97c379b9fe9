#!/usr/bin/env bash
# Times the reference interpreter (`risec eval`) on every example at its benchmark
# size, with the boxed evaluator (RISEC_INTERP=boxed), the fast path on one thread and
# the fast path on all hardware threads, checks that all three give the same bytes,
# and prints a Markdown table (docs/performance.md, "The reference interpreter"). A
# measurement, not a test: numbers depend on the machine and its load.
#   scripts/interp_timing.sh [--quick] [EXAMPLE...]
#   (--quick: smaller sizes, to run in seconds; EXAMPLEs: only those rows)
# RISEC (default build/risec) names the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
RISEC=${RISEC:-build/risec}
quick=0
args="$*"
[[ ${1:-} == --quick ]] && quick=1 && shift
only=" $* "
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# example | sizes (benchmark sizes: bench/ and scripts/run.sh; examples without a
# benchmark get the size of their kind)
cases=(
  "mm|n=1024,m=1024,k=1024"
  "mv|n=4096,m=4096"
  "gemv|n=8192,m=8192"
  "dot|n=33554432"
  "asum|n=33554432"
  "scal|n=33554432"
  "blackscholes|n=4194304"
  "jacobi3|n=4096,m=4096"
  "jacobi5|n=4096,m=4096"
  "gaussian|n=4096,m=4096"
  "conv1d|n=16777216"
  "concatpad|n=16777216,m=16777216"
  "treesum|m=1,k=24"
)
if ((quick)); then
  cases=("mm|n=256,m=256,k=256" "gemv|n=1024,m=1024" "dot|n=1048576" "jacobi5|n=512,m=512"
         "blackscholes|n=65536" "treesum|m=1,k=16")
fi

# seconds of one run: the whole `risec eval` (wall, and user+sys CPU) and the
# evaluation alone (CPU, as Interpreter::run reports it); the output goes to $3
timed() {
  local env=$1 sizes=$2 out=$3 ex=$4
  /usr/bin/time -f "%e %U %S" -o "$tmp/t" env $env RISEC_INTERP_TIME=1 "$RISEC" eval \
    "examples/$ex/$ex.rise" --size "$sizes" --output "$out" >/dev/null 2>"$tmp/e"
  local interp
  interp=$(sed -n 's/^interpreter: .* s wall, \([0-9.]*\) s CPU$/\1/p' "$tmp/e")
  awk -v i="$interp" '{printf "%.2f %.2f %.3f", $1, $2 + $3, i}' "$tmp/t"
}

echo "CPU: $(lscpu | sed -n "s/^Model name: *//p" | head -1), $(nproc) hardware threads, $(grep -m1 -o -w avx512f /proc/cpuinfo || grep -m1 -o -w avx2 /proc/cpuinfo)"
echo "Command: scripts/interp_timing.sh $args  ($(date -u +%Y-%m-%d))"
echo
echo "Seconds: whole \`risec eval\` wall (CPU) / CPU of the evaluation alone."
echo
echo "| example | sizes | boxed | fast, 1 thread | fast, $(nproc) threads | speed-up of the evaluation (CPU, 1 thread) | of \`eval\` (CPU) | same result |"
echo "|---|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  ex=${c%%|*}
  sizes=${c#*|}
  [[ $# -gt 0 && $only != *" $ex "* ]] && continue
  read -r bw bc bi <<<"$(timed RISEC_INTERP=boxed "$sizes" "$tmp/b.npy" "$ex")"
  read -r fw fc fi <<<"$(timed RISEC_INTERP_THREADS=1 "$sizes" "$tmp/f.npy" "$ex")"
  read -r pw pc pi <<<"$(timed RISEC_INTERP_THREADS=0 "$sizes" "$tmp/p.npy" "$ex")"
  same=yes
  cmp -s "$tmp/b.npy" "$tmp/f.npy" && cmp -s "$tmp/b.npy" "$tmp/p.npy" || same=NO
  ri=$(awk -v a="$bi" -v b="$fi" 'BEGIN { printf "%.0fx", (b > 0 ? a / b : 0) }')
  rc=$(awk -v a="$bc" -v b="$fc" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }')
  echo "| $ex | $sizes | $bw ($bc) / $bi | $fw ($fc) / $fi | $pw ($pc) / $pi | $ri | $rc | $same |"
done
