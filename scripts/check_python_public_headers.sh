#!/usr/bin/env bash
# Fails (listing the lines) when a source of the Python module (python/src/) includes
# a header of the compiler's that is not public: a binding uses only the public API
# (include/risec/*.h; docs/api.md), as Halide's bindings do, so that what it needs is
# part of that API. Headers in <...> (nanobind, the standard library) are not ours.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bad=()
count=0
while IFS= read -r -d '' f; do
  count=$((count + 1))
  while IFS=: read -r line target; do
    case "$target" in
      risec/*.h) [ -f "include/$target" ] && continue ;;
    esac
    bad+=("$f:$line: includes \"$target\", which is not a public header (include/risec/*.h)")
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
             sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/' || true)
done < <(find python/src \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print0 | sort -z)

if [ "$count" -eq 0 ]; then
  echo "no sources under python/src: the check has nothing to check"
  exit 1
fi
if [ "${#bad[@]}" -gt 0 ]; then
  echo "the Python module includes private headers (extend include/risec/ instead):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "the Python module's $count source(s) include only public headers"
