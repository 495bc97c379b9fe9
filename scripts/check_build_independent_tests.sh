#!/usr/bin/env bash
# Fails (listing the lines) when a test source names a setting that differs between the
# Release and the sanitizer build: the sanitizer build links its test binaries from the
# Release build's test objects (docs/architecture.md, "Testing"), so such a name would
# be compiled once, with the Release build's value, for both. Tests ask
# tests/build_info.h instead, whose one source (tests/build_info.cpp) each build
# compiles; src/support/stack.h has no per-build constant either.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
pattern='RISEC_SANITIZED_BUILD|RISEC_BINARY_DIR|__SANITIZE_ADDRESS__|RISEC_SANITIZE\b'
found=$(grep -rnE "$pattern" tests --include='*.cpp' --include='*.h' | grep -v '^tests/build_info.cpp:' |
  grep -vE '^[^:]+:[0-9]+:\s*//' || true)
headers=$(grep -nE 'RISEC_SANITIZED_BUILD' src --include='*.h' -r || true)
if [ -n "$found$headers" ]; then
  echo "build-dependent settings in test objects or in headers tests include:"
  [ -z "$found" ] || echo "$found"
  [ -z "$headers" ] || echo "$headers"
  echo "ask tests/build_info.h (or a function of the library) instead"
  exit 1
fi
echo "test sources are the same for every build"
