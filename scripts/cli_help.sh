#!/usr/bin/env bash
# Prints the "Options of each command" section of docs/cli.md: every command's
# `risec CMD --help`, as the binary prints it (tests/e2e/cli_options_test.cpp checks
# that docs/cli.md holds it).
#   scripts/cli_help.sh build/risec
set -euo pipefail
risec="${1:-build/risec}"
"$risec" --help | sed -n 's/^  risec \([a-z]*\).*/\1/p' | while read -r cmd; do
  echo '```'
  echo "\$ risec $cmd --help"
  "$risec" "$cmd" --help
  echo '```'
  echo
done
