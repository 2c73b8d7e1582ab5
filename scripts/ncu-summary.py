#!/usr/bin/env python3
"""Sum an `ncu --metrics gpu__time_duration.sum --csv` log by kernel name: where a call's GPU
time goes (kernels serialised by the profiler, so overlap is not shown).
    python3 scripts/ncu-summary.py LOG.csv [TOP]"""
import csv
import sys
from collections import defaultdict


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
    total, count = defaultdict(float), defaultdict(int)
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    cols = rows[head]
    k_name, k_metric, k_value = cols.index("Kernel Name"), cols.index("Metric Name"), cols.index("Metric Value")
    for r in rows[head + 1:]:
        if len(r) > k_value and r[k_metric] == "gpu__time_duration.sum":
            name = r[k_name].split("(")[0][:90]
            total[name] += float(r[k_value].replace(",", ""))
            count[name] += 1
    grand = sum(total.values())
    print(f"{'ms':>9} {'share':>6} {'calls':>6}  kernel")
    for name, ns in sorted(total.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{ns / 1e6:9.2f} {100 * ns / grand:5.1f}% {count[name]:6d}  {name}")
    print(f"{grand / 1e6:9.2f} total over {sum(count.values())} kernels")


if __name__ == "__main__":
    main()
