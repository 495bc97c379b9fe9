#!/usr/bin/env bash
# The ctest `package.embedding`: installs the build tree's risec package into a
# temporary prefix, then configures, builds and runs examples/embedding against it
# as a separate project would (find_package(risec), the C++ API with a tuning
# database read through SQLite, risec_add_kernel).
#   scripts/test_embedding.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/risec-embedding-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/risec include/risec/risec.h include/risec/error.h lib/librisec.a \
         lib/cmake/risec/risecConfig.cmake lib/cmake/risec/risecConfigVersion.cmake; do
  [ -e "$tmp/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root/examples/embedding" -B "$tmp/build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" "${launcher[@]}" >/dev/null
cmake --build "$tmp/build" -j2
# A private cache of compiled code for the JIT half.
RISEC_CACHE_DIR="$tmp/cache" ctest --test-dir "$tmp/build" --output-on-failure -V | grep -E "jit:|aot:|as expected|tests passed|Failed|error" 
