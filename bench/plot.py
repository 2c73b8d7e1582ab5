#!/usr/bin/env python3
"""Plot a table of a benchmark result file (bench/results/*.md) against its first column.

    python3 bench/plot.py RESULT.md --columns "cuSOLVER (s)" "minv GJ (s)" --out table4.png [--logy]
        [--table N] [--title TEXT] [--x COLUMN] [--where COLUMN=VALUE ...] [--by COLUMN]

The result files hold the header line the benchmarks print (device, date, command) and one or
more markdown tables; --table picks one (0-based, default 0). The header goes under the title.
Tables with several rows per x (bench_multi_gpu's: a row per n, GPU count and method) take
--x for the abscissa (default the first column), --where to keep the rows whose cell equals a
value, and --by to draw one line per value of a column, e.g.
    python3 bench/plot.py mg.md --columns s --where operation=solve --by method --by GPUs --out t.png
--stacked draws one bar per row instead, the columns stacked (the stages of a job, say), labelled
by the first column or --x:
    python3 bench/plot.py dp.md --stacked --columns read compute write --out stages.png
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
    ap.add_argument("--x", default=None, help="the abscissa's column (default: the first)")
    ap.add_argument("--where", nargs="+", default=[], metavar="COLUMN=VALUE", help="keep rows whose cell is VALUE")
    ap.add_argument("--by", action="append", default=[], help="one line per value of this column (repeatable)")
    ap.add_argument("--stacked", action="store_true", help="a bar per row, the columns stacked")
    ap.add_argument("--ylabel", default=None)
    a = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = open(a.result).read()
    head, rows = tables(text)[a.table]

    def column(name):
        if name not in head:
            sys.exit(f"plot.py: no column '{name}' in {head}")
        return head.index(name)

    for cond in a.where:
        name, _, value = cond.partition("=")
        k = column(name)
        rows = [r for r in rows if r[k] == value]
    kx = column(a.x) if a.x else 0
    keys = [column(b) for b in a.by]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if a.stacked:
        labels = [r[kx] for r in rows]
        bottom = [0.0] * len(rows)
        for col in a.columns:
            k = column(col)
            heights = [number(r[k]) for r in rows]
            heights = [0.0 if h != h else h for h in heights]  # a missing stage draws nothing
            ax.bar(labels, heights, bottom=bottom, label=col)
            bottom = [b + h for b, h in zip(bottom, heights)]
        ax.set_xlabel(head[kx])
        if a.ylabel:
            ax.set_ylabel(a.ylabel)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        first = text.splitlines()[0].lstrip("# ").replace(", command:", "\ncommand:") if text.startswith("#") else ""
        ax.set_title((a.title or a.result) + ("\n" + first if first else ""), fontsize=8)
        fig.tight_layout()
        fig.savefig(a.out, dpi=120)
        return
    styles = ["-", "--", ":"]  # past the ten colours, lines differ by their dashes
    line = 0
    for col in a.columns:
        k = column(col)
        for key, group in groups.items():
            group = sorted(group, key=lambda r: number(r[kx]))
            label = ", ".join([col] + [f"{b} {v}" for b, v in zip(a.by, key)])
            ax.plot([number(r[kx]) for r in group], [number(r[k]) for r in group], marker="o", label=label,
                    linestyle=styles[line // 10 % len(styles)])
            line += 1
    ax.set_xscale("log", base=2)
    if a.logy:
        ax.set_yscale("log")
    ax.set_xlabel(head[kx])
    if a.ylabel:
        ax.set_ylabel(a.ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8 if line > 6 else None)
    first = text.splitlines()[0].lstrip("# ").replace(", command:", "\ncommand:") if text.startswith("#") else ""
    ax.set_title((a.title or a.result) + ("\n" + first if first else ""), fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)


if __name__ == "__main__":
    main()
