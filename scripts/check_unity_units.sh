#!/usr/bin/env bash
# Compiles every folder of src/ as one unity unit, syntax only (about 1.5 minutes on
# the loaded 2-core machine): fails when two sources of a folder define the same name
# at namespace scope (anonymous namespaces and `static` included) in a way the
# compiler rejects, so that any batching of RISEC_UNITY_BATCH builds (CMakeLists.txt;
# docs/architecture.md, "Modules and dependencies"). Overloads that differ in their
# parameters are not rejected by the compiler: scripts/check_unity_units.sh --names
# lists, with Universal Ctags, every name that two sources of one folder define at
# namespace scope, to read through.
#
#   scripts/check_unity_units.sh [--names] [BUILD_DIR]   (default /tmp/risec-unity-check)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ "${1:-}" = --names ]; then
  for dir in src/*/; do
    find "$dir" -name '*.cpp' | LC_ALL=C sort | while read -r f; do
      # Tags at namespace scope (not members or locals), one name per file.
      ctags --output-format=json --fields=+KZ --c++-kinds=-l -o - "$f" |
        python3 -c '
import json, sys
seen = set()
for line in sys.stdin:
    t = json.loads(line)
    if t.get("_type") != "tag" or t["kind"] == "namespace" or t["name"].startswith("__anon"):
        continue
    if t.get("scopeKind") not in (None, "namespace"):
        continue
    if t["name"] not in seen:
        seen.add(t["name"])
        print(t["name"], sys.argv[1])
' "$f"
    done | sort | awk -v dir="$dir" '
      { files[$1] = files[$1] " " $2; n[$1]++ }
      END { for (k in n) if (n[k] > 1) print dir ": " k ":" files[k] }' | sort
  done
  exit 0
fi

out="${1:-/tmp/risec-unity-check}"
mkdir -p "$out"
# A compiler launcher that checks the syntax only and leaves an empty object behind.
cat > "$out/syntax_only.sh" <<'EOF'
#!/usr/bin/env bash
obj=""
prev=""
for a in "$@"; do
  [ "$prev" = -o ] && obj="$a"
  prev="$a"
done
"$@" -fsyntax-only || exit 1
[ -z "$obj" ] || : > "$obj"
EOF
chmod +x "$out/syntax_only.sh"
cmake -S . -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRISEC_BUILD_TESTS=OFF \
  -DRISEC_BUILD_BENCH=OFF -DRISEC_UNITY_BATCH=100000 \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$out/syntax_only.sh" >/dev/null
mapfile -t units < <(ninja -C "$out" -t targets all |
  grep -o 'CMakeFiles/risec_[a-z]*\.dir/Unity/unity_[0-9]*_cxx\.cxx\.o' | sort -u)
ninja -C "$out" -k 0 "${units[@]}"
echo "every folder of src/ compiles as one unit"
