#!/usr/bin/env bash
# Fails (listing the lines) when a file under src/ includes a header from a folder of
# src/ that is not below its own folder in the layering of docs/architecture.md:
#   support <- arith <- rise <- elevate;  rise <- dpia <- codegen;  rise <- runtime;
#   driver <- everything.
# The per-folder libraries of CMakeLists.txt link the same order; this check also
# catches a header-only use, which the linker never sees.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# The folders each folder may include from, besides itself (closed under "below").
declare -A allowed=(
  [support]=""
  [arith]="support"
  [rise]="support arith"
  [elevate]="support arith rise"
  [dpia]="support arith rise"
  [codegen]="support arith rise dpia"
  [runtime]="support arith rise"
  [driver]="support arith rise elevate dpia codegen runtime"
)

bad=()
for dir in src/*/; do
  folder="$(basename "$dir")"
  if [ -z "${allowed[$folder]+set}" ]; then
    bad+=("src/$folder/: a folder the layering does not know (add it to scripts/check_layering.sh and docs/architecture.md)")
    continue
  fi
  while IFS= read -r -d '' f; do
    while IFS=: read -r line target; do
      used="${target%%/*}"
      [ "$used" = "$folder" ] && continue
      [ -d "src/$used" ] || continue  # a system or generated header
      case " ${allowed[$folder]} " in
        *" $used "*) ;;
        *) bad+=("$f:$line: $folder includes $target") ;;
      esac
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
               sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1:\2/' || true)
  done < <(find "$dir" \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
done

if [ "${#bad[@]}" -gt 0 ]; then
  echo "includes against the layering (support <- arith <- rise <- elevate; rise <- dpia <- codegen; rise <- runtime; driver <- all):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "includes follow the layering"
