#!/usr/bin/env python3
"""expect_exit.py CODE COMMAND...: runs COMMAND with its output passed through, and
succeeds exactly when it exits with CODE (LLVM's `not` accepts any failure; the
exit statuses of risec mean different things: docs/guarantees.md)."""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect_exit.py CODE COMMAND...")
want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print(f"expect_exit: '{' '.join(sys.argv[2:])}' exited {got}, expected {want}",
          file=sys.stderr)
    sys.exit(1)
