#!/usr/bin/env bash
# The boxed evaluator with and without its invariant subterms hoisted
# (docs/architecture.md, "Invariant subterms"): every example's `risec eval` under
# RISEC_INTERP=boxed, RISEC_INTERP_HOIST on and off interleaved, the minimum over R runs
# of the evaluation's CPU seconds (as Interpreter::run reports them), and whether both
# give the same bytes; then multigrid's `run --check` wall seconds at growing sizes
# (the issue's case). A measurement, not a test: numbers depend on the machine's load.
#   bench/interp_hoist.sh [R]   (R: runs per variant, default 10)
# RISEC (default build/risec) names the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
RISEC=${RISEC:-build/risec}
R=${1:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU seconds of one boxed evaluation; the output goes to $4
cpu() {
  local hoist=$1 ex=$2 sizes=$3 out=$4
  RISEC_INTERP=boxed RISEC_INTERP_HOIST=$hoist RISEC_INTERP_TIME=1 "$RISEC" eval \
    "examples/$ex/$ex.rise" --size "$sizes" --output "$out" 2>&1 >/dev/null |
    sed -n 's/^interpreter: .* s wall, \([0-9.]*\) s CPU$/\1/p'
}
min() { sort -g | head -1; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)   ($(date -u +%Y-%m-%dT%H:%MZ), $R runs each)"
echo
echo "| example | sizes | boxed, hoisting off | boxed, hoisting on | same result |"
echo "|---|---|---|---|---|"
for f in examples/*/*.rise; do
  ex=$(basename "$f" .rise)
  [[ $f == "examples/$ex/$ex.rise" ]] || continue
  case $ex in
    treesum) sizes="m=1,k=14" ;;
    pde1) sizes="n=32,m=32,k=32" ;;
    multigrid) sizes="n=64,m=64" ;;  # (quadratic without hoisting)
    *)  # every size parameter 128
      sizes=""
      for _ in 1 2 3 4 5 6; do
        v=$("$RISEC" eval "$f" ${sizes:+--size "$sizes"} --output "$tmp/p" 2>&1 >/dev/null |
              sed -n 's/.*size \([A-Za-z0-9_]*\) has no value.*/\1/p' | head -1) || true
        [[ -z $v ]] && break
        sizes="${sizes:+$sizes,}$v=128"
      done ;;
  esac
  : >"$tmp/on" && : >"$tmp/off"
  for ((i = 0; i < R; ++i)); do
    cpu off "$ex" "$sizes" "$tmp/off.bin" >>"$tmp/off"
    cpu on "$ex" "$sizes" "$tmp/on.bin" >>"$tmp/on"
  done
  same=no
  cmp -s "$tmp/off.bin" "$tmp/on.bin" && same=yes
  echo "| $ex | $sizes | $(min <"$tmp/off") | $(min <"$tmp/on") | $same |"
done

echo
echo "multigrid, \`risec run --check\`, wall seconds (minimum of $R; hoisting off: 2 runs, n <= 100):"
for n in 25 50 100 200; do
  on=$(for ((i = 0; i < R; ++i)); do
    /usr/bin/time -f %e "$RISEC" run examples/multigrid/multigrid.rise --size n=$n,m=$n --check \
      2>&1 >/dev/null | tail -1
  done | min)
  off=-
  if ((n <= 100)); then
    off=$(for i in 1 2; do
      RISEC_INTERP_HOIST=off /usr/bin/time -f %e "$RISEC" run examples/multigrid/multigrid.rise \
        --size n=$n,m=$n --check 2>&1 >/dev/null | tail -1
    done | min)
  fi
  echo "  n=m=$n: hoisting on $on s, off $off s"
done
