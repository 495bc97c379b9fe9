#!/usr/bin/env bash
# Fails (listing the lines) when a file under the given paths compares a primitive's
# name to a string literal (`== "split"`, `"map" != ...`): passes ask the primitive
# table (src/rise/primitives.def: the node's prim, its id, family, traits or loop)
# instead of keeping their own lists of names. The names are read from the table.
# Usage: check_no_prim_strings.sh PATH... (files or folders, relative to the repo root)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[ "$#" -gt 0 ] || { echo "usage: $0 PATH..." >&2; exit 2; }
names=$(grep -o '\.name = "[A-Za-z0-9_]*"' src/rise/primitives.def | sed 's/.*"\(.*\)"/\1/' |
  paste -sd'|' -)
[ -n "$names" ] || { echo "no primitive names found in src/rise/primitives.def" >&2; exit 2; }
pattern="(==|!=)[[:space:]]*\"($names)\"|\"($names)\"[[:space:]]*(==|!=)"
if hits=$(grep -rnE --include='*.cpp' --include='*.h' "$pattern" "$@"); then
  echo "primitive names compared to string literals (ask the primitive table instead):"
  echo "$hits"
  exit 1
fi
echo "no primitive name compared to a string literal in: $*"
