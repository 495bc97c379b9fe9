#!/usr/bin/env bash
# Fails (listing the files) when a C++ source under src/, tests/, bench/, tools/ or fuzz/
# differs from what clang-format makes of it with the repo's .clang-format.
# Fix with: clang-format -i FILE...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bad=()
while IFS= read -r -d '' f; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done < <(find src tests bench tools fuzz python/src \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
if [ "${#bad[@]}" -gt 0 ]; then
  echo "not formatted with .clang-format (run clang-format -i on them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "all sources formatted"
