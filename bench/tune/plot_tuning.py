#!/usr/bin/env python3
"""Best time so far against trials, from `risec tune` databases (docs/tuning.md).

usage: plot_tuning.py OUT.png LABEL=DB [LABEL=DB ...] [--baseline MS --baseline-label TEXT]

Each DB is a SQLite file written by `risec tune --db`; its measured trials are read in
the order they were made (trials.number) and the running minimum of time_ms is drawn.
Needs matplotlib (e.g. in a venv: python3 -m venv .venv; .venv/bin/pip install
matplotlib).
"""
import argparse
import sqlite3

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def best_so_far(path):
    con = sqlite3.connect(path)
    rows = con.execute(
        "SELECT time_ms FROM trials WHERE status = 'measured' ORDER BY number").fetchall()
    con.close()
    out, best = [], float("inf")
    for (t,) in rows:
        best = min(best, t)
        out.append(best)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("runs", nargs="+", help="LABEL=DB")
    ap.add_argument("--baseline", type=float)
    ap.add_argument("--baseline-label", default="baseline")
    ap.add_argument("--title", default="risec tune: best time so far")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    styles = {"evolutionary": "-", "random": "--"}
    lowest = float("inf")
    for run in a.runs:
        label, path = run.split("=", 1)
        ys = best_so_far(path)
        lowest = min([lowest] + ys)
        style = next((v for k, v in styles.items() if label.startswith(k)), "-")
        ax.plot(range(1, len(ys) + 1), ys, style, label=label, drawstyle="steps-post")
    if a.baseline:
        ax.axhline(a.baseline, color="gray", linestyle=":", label=a.baseline_label)
    # The first trials can be 10x slower than the best: show the range that matters.
    if lowest < float("inf"):
        ax.set_ylim(0.9 * lowest, 1.8 * lowest)
    ax.set_xlabel("trials measured")
    ax.set_ylabel("best time so far (ms)")
    ax.set_title(a.title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
