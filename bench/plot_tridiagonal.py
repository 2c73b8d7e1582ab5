#!/usr/bin/env python3
"""Plots bench_tridiagonal's markdown output: times against n (minv's GPU paths, the floor of
writing n^2 doubles, cuSPARSE gtsv2, minv's CPU versions) and the paper's speed-ups of the GPU
over the sequential and multi-core CPU versions.

Usage: plot_tridiagonal.py RESULTS.md [OUT.png]   (default: RESULTS.png)
"""
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def tables(text):
    """Every markdown table whose first column is n, as a list of {column: value} rows."""
    found, header = [], None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells and cells[0] == "n":
            header, rows = cells, []
            found.append(rows)
        elif cells and header and not set(cells[0]) <= set("-:"):
            rows.append({h: number(c) for h, c in zip(header, cells)})
        elif not cells:
            header = None
    return found


def number(cell):
    try:
        return float(cell.split()[0])
    except (ValueError, IndexError):
        return math.nan


def column(rows, name, scale=1.0):
    return [r[name] * scale if name in r else math.nan for r in rows]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    source = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else source.rsplit(".", 1)[0] + ".png"
    with open(source) as f:
        text = f.read()
    gpu = next((t for t in tables(text) if t and "write-once (ms)" in t[0]), [])
    paper = next((t for t in tables(text) if t and "CPU seq write-once (s)" in t[0]), [])
    if not gpu and not paper:
        sys.exit(f"{source}: no bench_tridiagonal table found")
    title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# device:")), "")

    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    times = axes[0]
    if gpu:
        n = column(gpu, "n")
        floor = [min(a, b) for a, b in zip(column(gpu, "memset (ms)"), column(gpu, "store kernel (ms)"))]
        times.plot(n, floor, "k--", label="write n^2 doubles once (floor)")
        for name, style, label in [("write-once (ms)", "o-", "minv GPU write-once"),
                                   ("Sherman-Morrison quiet (ms)", "s-", "minv GPU Sherman-Morrison (paper)"),
                                   ("pivoted quiet (ms)", "^-", "minv GPU pivoted"),
                                   ("gtsv2 (ms)", "x-", "cuSPARSE gtsv2, identity RHS")]:
            times.plot(n, column(gpu, name), style, label=label)
    if paper:
        n = column(paper, "n")
        times.plot(n, column(paper, "CPU seq write-once (s)", 1e3), "v:", label="minv CPU write-once, 1 thread")
        times.plot(n, column(paper, "CPU multi write-once (s)", 1e3), "d:", label="minv CPU write-once, all threads")
    times.set(xscale="log", yscale="log", xlabel="n", ylabel="time (ms)", title="Tridiagonal inversion, double")
    times.set_xscale("log", base=2)
    times.grid(True, which="both", alpha=0.3)
    times.legend(fontsize=8)

    speed = axes[1]
    if paper:
        n = column(paper, "n")
        for key, algorithm, color in [("write-once", "write-once", "C0"), ("SM", "Sherman-Morrison", "C1")]:
            speed.plot(n, column(paper, f"{key} speed-up vs seq"), "o-", color=color,
                       label=f"GPU {algorithm} vs 1 CPU thread")
            speed.plot(n, column(paper, f"{key} speed-up vs multi"), "s--", color=color,
                       label=f"GPU {algorithm} vs all CPU threads")
        speed.set(xscale="log", yscale="log", xlabel="n", ylabel="speed-up", title="The paper's comparison")
        speed.set_xscale("log", base=2)
        speed.grid(True, which="both", alpha=0.3)
        speed.legend(fontsize=8)
    else:
        speed.set_visible(False)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
