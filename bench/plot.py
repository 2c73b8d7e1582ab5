#!/usr/bin/env python3
"""Plot a table of a benchmark result file (bench/results/*.md) against its first column.

    python3 bench/plot.py RESULT.md --columns "cuSOLVER (s)" "minv GJ (s)" --out table4.png [--logy]
        [--table N] [--title TEXT]

The result files hold the header line the benchmarks print (device, date, command) and one or
more markdown tables; --table picks one (0-based, default 0). The header goes under the title.
Needs matplotlib."""
import argparse
import re
import sys


def tables(text):
    """Every markdown table in text, as (header cells, rows of cells)."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            found.append((current[0], [r for r in current[1:] if not set("".join(r)) <= set("-: ")]))
            current = []
    return found


def number(cell):
    m = re.match(r"[-+]?\d*\.?\d+(e[-+]?\d+)?", cell.replace("%", ""))
    return float(m.group(0)) if m else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("result")
    ap.add_argument("--columns", nargs="+", required=True, help="column headers to plot")
    ap.add_argument("--out", required=True)
    ap.add_argument("--table", type=int, default=0)
    ap.add_argument("--logy", action="store_true")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = open(a.result).read()
    head, rows = tables(text)[a.table]
    x = [number(r[0]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for col in a.columns:
        if col not in head:
            sys.exit(f"plot.py: no column '{col}' in {head}")
        k = head.index(col)
        ax.plot(x, [number(r[k]) for r in rows], marker="o", label=col)
    ax.set_xscale("log", base=2)
    if a.logy:
        ax.set_yscale("log")
    ax.set_xlabel(head[0])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    first = text.splitlines()[0].lstrip("# ").replace(", command:", "\ncommand:") if text.startswith("#") else ""
    ax.set_title((a.title or a.result) + ("\n" + first if first else ""), fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)


if __name__ == "__main__":
    main()
