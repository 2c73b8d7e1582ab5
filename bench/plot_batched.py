#!/usr/bin/env python3
"""Plots bench_batched's GPU table: milliseconds against the order k for minv and each peer
(left), and minv's speed-up over the best peer (right), as a PNG.

    python3 bench/plot_batched.py results.md batched.png

The input is bench_batched's output (markdown); the first table whose header starts with
"| k | batch | minv SPD" is read, and its "# device: ..." line becomes the title."""
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


def read_table(lines, first_columns):
    """The rows of the first markdown table whose header starts with first_columns, as a list
    of dicts keyed by the header's names; values are floats (NaN where not a number)."""
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[: len(first_columns)] != first_columns:
            continue
        rows = []
        for row in lines[i + 2:]:
            if not row.strip().startswith("|"):
                break
            values = [c.strip() for c in row.strip().strip("|").split("|")]
            rows.append({name: number(v) for name, v in zip(cells, values)})
        return rows
    raise SystemExit("plot_batched: no table starting with | %s | in the input" % " | ".join(first_columns))


def number(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def plot(rows, title, out):
    ks = [r["k"] for r in rows]
    times = [c for c in rows[0] if c not in ("k", "batch") and "vs" not in c and c != "worst ratio"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    for name in times:
        points = [(k, r[name]) for k, r in zip(ks, rows) if not math.isnan(r[name])]
        if points:
            style = "-o" if name.startswith("minv") else "--s"
            left.plot([p[0] for p in points], [p[1] for p in points], style, label=name)
    left.set(xscale="log", yscale="log", xlabel="order k", ylabel="milliseconds (batch as in the table)")
    left.set_xticks(ks, [str(int(k)) for k in ks])
    left.legend(fontsize=8)
    left.grid(True, which="both", alpha=0.3)
    for name in ("general vs best peer", "SPD vs best peer", "general vs getrf+getri", "general vs matinv"):
        if name in rows[0]:
            points = [(k, r[name]) for k, r in zip(ks, rows) if not math.isnan(r[name])]
            right.plot([p[0] for p in points], [p[1] for p in points], "-o", label=name)
    right.axhline(1, color="grey", linewidth=1)
    right.set(xscale="log", xlabel="order k", ylabel="speed-up of minv (peer time / minv time)")
    right.set_xticks(ks, [str(int(k)) for k in ks])
    right.legend(fontsize=8)
    right.grid(True, alpha=0.3)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: plot_batched.py RESULTS.md OUT.png")
    with open(argv[1]) as f:
        lines = f.read().splitlines()
    title = next((line.lstrip("# ") for line in lines if line.startswith("# device:")), "bench_batched")
    plot(read_table(lines, ["k", "batch", "minv SPD"]), title, argv[2])


if __name__ == "__main__":
    main(sys.argv)
