#!/usr/bin/env bash
# Compiles every example program (examples/*/*.rise) with each of its strategies
# (examples/<dir>/*.elv, and none: the default lowering) for every target, and
# writes what risec produced into OUTDIR: the generated files, and for each compile
# its exit status and messages. Two runs (before and after a change) compared with
# `diff -r` show whether the change leaves the examples' generated code as it was:
#   scripts/examples_codegen.sh /tmp/before build-main/risec
#   scripts/examples_codegen.sh /tmp/after build/risec
#   diff -r /tmp/before /tmp/after && echo unchanged
# Run from the repository root: paths in messages and in the code stay relative.
set -euo pipefail
out="${1:?usage: scripts/examples_codegen.sh OUTDIR [RISEC]}"
risec="$(realpath "${2:-build/risec}")"
jobs="${JOBS:-2}"
targets="c openmp opencl cuda"
mkdir -p "$out"
out="$(realpath "$out")"

one() {  # RISE ELV TARGET
  local rise="$1" elv="$2" target="$3" dir name
  dir="$(dirname "$rise")"
  name="$(basename "$rise" .rise).$(basename "${elv:-default}" .elv).$target"
  mkdir -p "$out/$dir"
  local args=(compile "$rise" --target "$target" -o "$out/$dir/$name")
  if [ -n "$elv" ]; then args+=(--strategy "$elv"); fi
  local rc=0
  "$risec" "${args[@]}" >"$out/$dir/$name.log" 2>&1 || rc=$?
  # the output path is the run's own: written as OUT in the log
  sed -i "s|$out/$dir/|OUT/|g" "$out/$dir/$name.log"
  echo "exit $rc" >>"$out/$dir/$name.log"
}
export -f one
export out risec

for rise in examples/*/*.rise; do
  dir="$(dirname "$rise")"
  for target in $targets; do
    echo "$rise '' $target"
    for elv in "$dir"/*.elv; do
      if [ -e "$elv" ]; then echo "$rise $elv $target"; fi
    done
  done
done | xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1" "$2"'
echo "$(find "$out" -name '*.log' | wc -l) compiles in $out"
