#!/usr/bin/env bash
# Prints how long risec takes on long programs (issue 11): chains of N maps written
# with `|>`, with lets and with definitions each used once, for growing N, per phase
# (check; rewrite with lowerToC; the whole compile to C), and a strategy of N
# `id ;`. Work should grow about linearly with N (docs/performance.md, "Long
# programs"). A measurement, not a test: times depend on the machine and its load
# (user CPU seconds are printed next to wall seconds for that reason).
#   bench/common/chain_timing.sh [N...]     (default: 500 1000 2000 4000)
# RISEC (default build/risec) names the binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
RISEC=${RISEC:-build/risec}
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(500 1000 2000 4000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo lowerToC >"$tmp/lower.elv"
echo id >"$tmp/id.elv"

gen() {  # kind n -> a .rise file on stdout
  local kind=$1 n=$2 i
  case $kind in
    maps)
      printf 'def f = depFun(n: Nat => fun(x: n.f32 => x'
      for ((i = 0; i < n; i++)); do printf ' |> map(fun(v => v + 1.0f))'; done
      printf '))\n' ;;
    lets)
      printf 'def f = depFun(n: Nat => fun(x: n.f32 =>'
      printf ' let a0 = map(fun(v => v + 1.0f))(x) in'
      for ((i = 1; i < n; i++)); do printf ' let a%d = map(fun(v => v + 1.0f))(a%d) in' $i $((i - 1)); done
      printf ' a%d))\n' $((n - 1)) ;;
    definitions)
      printf 'def m0 = fun(x => x)\n'
      for ((i = 1; i <= n; i++)); do printf 'def m%d = fun(x => m%d(x) |> map(fun(v => v + 1.0f)))\n' $i $((i - 1)); done
      printf 'def f = depFun(n: Nat => fun(x: n.f32 => m%d(x)))\n' "$n" ;;
  esac
}

timed() {  # command... -> "wall (user)" or the error's first line
  if /usr/bin/time -f "%e %U" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/e"; then
    awk '{printf "%.2f (%.2f)", $1, $2}' "$tmp/t"
  else
    printf 'error: %s' "$(head -1 "$tmp/e" | sed 's/^[^ ]* error: //' | cut -c1-60)"
  fi
}

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) hardware threads; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Seconds: wall (user CPU)."
echo
echo "| program | N | check | rewrite (lowerToC) | compile to C |"
echo "|---|---|---|---|---|"
for kind in maps lets definitions; do
  for n in "${sizes[@]}"; do
    gen "$kind" "$n" >"$tmp/p.rise"
    echo "| $kind | $n | $(timed "$RISEC" check "$tmp/p.rise") | $(timed "$RISEC" rewrite "$tmp/p.rise" --strategy "$tmp/lower.elv" --size n=64) | $(timed "$RISEC" compile "$tmp/p.rise" --size n=64) |"
  done
done
gen maps 3 >"$tmp/small.rise"
for n in "${sizes[@]}" 100000; do
  { for ((i = 0; i < n; i++)); do printf 'id ; '; done; echo id; } >"$tmp/s.elv"
  echo "| strategy of N \`id ;\` | $n | | $(timed "$RISEC" rewrite "$tmp/small.rise" --strategy "$tmp/s.elv") | |"
done
