#!/usr/bin/env python3
"""ctest bench.plot_results: plot_results.py turns the sample results in
bench/testdata/ into PNG files, with the panels, bars and ratios expected.
Exits 77 (ctest: skipped) when matplotlib is not installed."""
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("SKIPPED: matplotlib is not installed (scripts/setup.sh installs it)")
    sys.exit(77)

sys.path.insert(0, HERE)
import plot_results  # noqa: E402


def load(name):
    import json
    with open(os.path.join(HERE, "testdata", name)) as f:
        return [json.loads(line) for line in f if line.strip()]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


# The long layout: one panel per program, the "n/a" row left out.
ps = plot_results.panels(load("image_sample.jsonl"))
check([g for g, _ in ps] == ["blur5", "harris"], f"panels {ps}")
check(len(ps[0][1]) == 3 and len(ps[1][1]) == 1, f"bars {ps}")
check(plot_results.reference(ps[0][1]) == 20.0, "risec is the reference")

# The wide layout (bench_opencl): the ratio column is not a bar, a "min / median" cell
# is drawn at its minimum, "-" and "n/a" are no bars, and the second (summary) table
# adds no bars to the first's panels.
ps = plot_results.panels(load("opencl_sample.jsonl"))
check(ps == [("nbody", [("hand-written", 2.0), ("risec", 3.0)]),
             ("mm", [("CLBlast", 5.0), ("risec", 4.0)])],
      f"opencl panels {ps}")

with tempfile.TemporaryDirectory() as tmp:
    for name in ("image_sample.jsonl", "opencl_sample.jsonl"):
        out = os.path.join(tmp, name + ".png")
        rc = plot_results.main([os.path.join(HERE, "testdata", name), out, "--title", "t"])
        check(rc == 0, f"plot_results {name} exit {rc}")
        w, h = png_size(out)
        check(w > 200 and h > 200, f"{out} is {w}x{h}")
    empty = os.path.join(tmp, "empty.jsonl")
    open(empty, "w").close()
    check(plot_results.main([empty, os.path.join(tmp, "e.png")]) == 1, "empty results fail")
print("ok")
