#!/usr/bin/env python3
"""One bar chart (PNG) from the JSON-lines results of a benchmark program.

usage: plot_results.py RESULTS.jsonl OUT.png [--title TEXT]

The benchmark programs write their tables as JSON lines when RISEC_BENCH_JSONL names
a file (bench/common/bench_util.h; scripts/bench.sh sets it): one object per table
row, keyed by the table's header, all values strings. Two layouts are understood:

- a "variant" column and a time column (the first whose name contains "median"):
  one panel per group (the columns left of "variant", e.g. the kernel or the blur),
  one bar per variant (with its thread count when there is a "threads" column);
- no "variant" column (bench_opencl): one panel per row (the first column) of the
  first table (bench_opencl's second table summarises it), one bar per numeric
  column that is not a ratio (e.g. "hand-written", "CLBlast" and "risec"; a cell
  "min / median" is drawn at its minimum).

Each bar is labelled with its time divided by risec's in the same panel (the first
variant whose name starts with "risec"): above 1 the peer is slower than risec.
Rows without a number in the time column (ratio rows, "n/a") are left out.
Needs matplotlib (scripts/setup.sh installs Debian's python3-matplotlib).
"""
import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(text):
    try:
        x = float(str(text).strip().split()[0])
    except (ValueError, IndexError):
        return None
    return x if math.isfinite(x) and x > 0 else None


def is_ratio(column):
    c = column.lower()
    return "/" in c or "ratio" in c or "speedup" in c or c.startswith("vs ")


def panels(rows):
    """[(panel title, [(bar label, ms)])] in the order of the rows."""
    out = {}
    if rows and "variant" in rows[0]:
        keys = list(rows[0].keys())
        time_key = next((k for k in keys if "median" in k.lower()), None)
        if time_key is None:
            raise SystemExit("plot_results: no median column in the results")
        group_keys = [k for k in keys[: keys.index("variant")] if k != "table"]
        for r in rows:
            t = number(r.get(time_key))
            if t is None:
                continue
            group = " ".join(r[k] for k in group_keys)
            label = r["variant"]
            if "threads" in r and r["threads"].strip():
                label += f" ({r['threads']} thr)"
            out.setdefault(group, []).append((label, t))
    else:
        first = rows[0].get("table") if rows else None
        for r in rows:
            if r.get("table") != first:
                continue
            keys = [k for k in r if k != "table"]
            group = r[keys[0]]
            for k in keys[1:]:
                t = number(r[k]) if not is_ratio(k) else None
                if t is not None and any(c.isalpha() for c in k):
                    out.setdefault(group, []).append((k, t))
    return [(g, bars) for g, bars in out.items() if bars]


def reference(bars):
    for label, t in bars:
        if label.lower().startswith("risec"):
            return t
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    a = ap.parse_args(argv)
    with open(a.results) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    ps = panels(rows)
    if not ps:
        print(f"plot_results: no timed rows in {a.results}", file=sys.stderr)
        return 1
    widest = max(len(bars) for _, bars in ps)
    # Panels side by side while they are narrow; wide panels two to a row.
    cols = min(len(ps), 4 if widest <= 3 else 2)
    nrows = (len(ps) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(max(3.2, 0.9 * widest + 1.2) * cols,
                                                   3.9 * nrows), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    palette = {}
    for i, (group, bars) in enumerate(ps):
        ax = axes[i // cols][i % cols]
        ref = reference(bars)
        labels = [b[0] for b in bars]
        times = [b[1] for b in bars]
        for lb in labels:
            palette.setdefault(lb, colors[len(palette) % len(colors)])
        xs = range(len(bars))
        ax.bar(xs, times, color=[palette[lb] for lb in labels])
        for x, t in zip(xs, times):
            text = f"{t / ref:.2f}x" if ref else f"{t:.3g}"
            ax.annotate(text, (x, t), ha="center", va="bottom", fontsize=8,
                        xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
        ax.set_title(group, fontsize=10)
        ax.set_ylabel("median time (ms)")
        ax.set_ylim(0, max(times) * 1.18)
        ax.grid(True, axis="y", alpha=0.3)
    for j in range(len(ps), nrows * cols):
        axes[j // cols][j % cols].axis("off")
    title = a.title or a.results
    fig.suptitle(title + "\nbar labels: time / risec's time (above 1: slower than risec)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
