#!/usr/bin/env python3
"""Where the time of `minv invert` goes, stage by stage, against each stage's floor and peers,
in one run:

  whole command   `minv invert IN.nc:A OUT.nc` on `minv generate soar N` (netCDF-4, 256 x 256
                  chunks): wall time, peak RSS, and the stages its report gives (read, upload,
                  compute, download, write through fsync; "other" is the rest of the wall time)
  read            minv's reader (all threads, one thread, through NetCDF-C alone), a plain
                  nc_get_vara_double loop, nc_get_var_double, the netCDF4-python reader, and
                  `dd` of the same file from the page cache
  write           minv's writer up to the fsync and its commit, the same through NetCDF-C, and
                  `dd` to the page cache and with conv=fdatasync
  deflated        the read and write of the same matrix deflated (level 1, shuffle)
  GPU             where a GPU exists (bench_data_path_gpu): pinned PCIe, the inversion on device
                  data, and host-array calls against the cuSOLVER user's path, pageable and
                  pinned; skipped otherwise

The file stages come from bench_data_path_io (no CUDA needed). Results, with the machine, date,
commit and command, go to --out (markdown), and a stacked bar of the whole command's stages to
the same name with .png (bench/plot.py, matplotlib).

    python3 bench/bench_data_path.py --build build --n 4096 8192 --out bench/results/data_path_X.md

The netCDF4-python peer runs under the first of python3, /usr/bin/python3 that imports netCDF4
(Debian: apt-get install python3-netcdf4); it is skipped, and says so, where none does."""
import argparse
import datetime
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit(f"bench_data_path: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


def grid(n):
    """SOAR on a 2-D grid: the squarest NX x NY with NX NY = n."""
    d = int(n ** 0.5)
    while n % d:
        d -= 1
    return ["--grid-shape", f"{n // d}x{d}"]


def git(*args):
    try:
        p = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else "unknown"
    except FileNotFoundError:
        return "unknown"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = ""
    if shutil.which("nvidia-smi"):
        p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True)
        names = [n.strip() for n in p.stdout.split("\n") if n.strip()] if p.returncode == 0 else []
        if names:
            gpu = f", {len(names)} x {names[0]}"
    return f"{os.cpu_count()} cores ({cpu}){gpu}"


def load():
    return "%.1f" % os.getloadavg()[0]


def dd_seconds(args):
    """dd's own report: 'N bytes ... copied, S s, R MB/s'."""
    err = run(["dd"] + args).stderr
    m = re.search(r"copied, ([0-9.e+-]+) s", err)
    return float(m.group(1)) if m else float("nan")


def median_runs(repeat, fn):
    fn()  # warm-up
    return statistics.median(fn() for _ in range(repeat))


STAGES = ["read", "upload", "compute", "download", "wrote"]


def whole_command(minv, src, out, repeat):
    """Median wall time of the command over `repeat` runs after a warm-up, its stages from the
    report of that run (the command's stage lines), and the peak RSS (GNU time where present)."""
    gnu_time = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
    runs = []
    for k in range(repeat + 1):
        cmd = [minv, "invert", src + ":A", out, "--quiet", "--overwrite"]  # the runs write the same output
        if gnu_time:
            cmd = [gnu_time, "-f", "maxrss_kb %M"] + cmd
        t0 = time.monotonic()
        p = run(cmd)
        wall = time.monotonic() - t0
        stages = {}
        for line in p.stdout.splitlines():
            m = re.match(r"(\w+)\s+(?:([0-9.e+-]+) MB in )?([0-9.e+-]+) s\b", line)
            if m and m.group(1) in STAGES:
                stages[m.group(1)] = float(m.group(3))
        rss = re.search(r"maxrss_kb (\d+)", p.stderr)
        if k > 0:
            runs.append((wall, stages, int(rss.group(1)) / 1024 if rss else float("nan"), p.stdout))
    runs.sort(key=lambda r: r[0])
    return runs[len(runs) // 2]


def io_rows(io_bench, path, work, repeat, deflate):
    cmd = [io_bench, path, "A", work, "--repeat", str(repeat)] + (["--deflate", str(deflate)] if deflate else [])
    rows = []
    for line in run(cmd).stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0] in ("read", "write"):
            rows.append(cells)
    return rows


PY_READER = """
import statistics, sys, time, netCDF4
path, repeat = sys.argv[1], int(sys.argv[2])
def once():
    with netCDF4.Dataset(path) as ds:
        v = ds["A"]
        v.set_auto_maskandscale(False)
        t0 = time.monotonic()
        v[:]
        return time.monotonic() - t0
once()
print(statistics.median(once() for _ in range(repeat)))
"""


def python_reader(path, repeat):
    for py in (sys.executable, "python3", "/usr/bin/python3"):
        exe = shutil.which(py) or py
        try:
            p = subprocess.run([exe, "-c", PY_READER, path, str(repeat)], capture_output=True, text=True)
            return float(p.stdout.split()[-1]), exe
        except (FileNotFoundError, IndexError, ValueError):
            continue
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build tree (minv command, benchmarks)")
    ap.add_argument("--n", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--work", default="/tmp/minv_bench_data_path", help="a scratch folder on the disk to measure")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each measurement, after a warm-up")
    ap.add_argument("--command-repeat", type=int, default=None,
                    help="timed runs of the whole command (default --repeat; on a CPU an inversion at n = 8192 "
                         "takes minutes)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "data_path.md"))
    a = ap.parse_args()

    minv = os.path.join(a.build, "cli", "minv")
    io_bench = os.path.join(a.build, "bench", "bench_data_path_io")
    gpu_bench = os.path.join(a.build, "bench", "bench_data_path_gpu")
    for exe in (minv, io_bench):
        if not os.access(exe, os.X_OK):
            sys.exit(f"bench_data_path: {exe} is missing: build with -DMINV_BUILD_BENCH=ON")
    os.makedirs(a.work, exist_ok=True)
    # the build's own record of its commit first: a copy of the tree (the GPU machine's) may
    # carry a stale .git
    stamp = os.path.join(a.build, "commit.txt")
    commit = (open(stamp).read().strip() if os.path.exists(stamp) else
              git('rev-parse', '--short', 'HEAD') + (' (modified)' if git('status', '--porcelain', '-uno') else ''))
    head = (f"# device: {machine()}, date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}, "
            f"commit: {commit}, "
            f"command: {' '.join(shlex.quote(x) for x in [os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])}")
    lines = [head, "", f"Load average at the start: {load()} (on a shared machine the wall times are the others' too; "
             "the CPU columns are not).", ""]
    whole, reads, writes = [], [], []
    for n in a.n:
        src, dsrc = os.path.join(a.work, f"soar{n}.nc"), os.path.join(a.work, f"soar{n}_d1.nc")
        out = os.path.join(a.work, f"soar{n}_inv.nc")
        run([minv, "generate", "soar", str(n), src, "--quiet", "--overwrite"] + grid(n))
        run([minv, "generate", "soar", str(n), dsrc, "--deflate", "1", "--quiet", "--overwrite"] + grid(n))
        size = os.path.getsize(src)
        mb = size / 1e6
        dd_read = median_runs(a.repeat, lambda: dd_seconds([f"if={src}", "of=/dev/null", "bs=16M"]))
        count = (size + (16 << 20) - 1) // (16 << 20)
        ddw = os.path.join(a.work, "dd.out")
        dd_cache = median_runs(a.repeat, lambda: dd_seconds(["if=/dev/zero", f"of={ddw}", "bs=16M", f"count={count}"]))
        dd_sync = median_runs(a.repeat, lambda: dd_seconds(["if=/dev/zero", f"of={ddw}", "bs=16M", f"count={count}",
                                                             "conv=fdatasync"]))
        os.remove(ddw)
        wall, stages, rss, report = whole_command(minv, src, out, a.command_repeat or a.repeat)
        known = sum(stages.get(s, 0.0) for s in STAGES)
        whole.append([str(n), f"{wall:.3f}"] + [f"{stages.get(s, 0.0):.3f}" for s in STAGES] +
                     [f"{max(wall - known, 0):.3f}", f"{rss:.0f}", f"{mb * 2:.0f}"])
        for label, path, deflate in (("", src, 0), (", deflated", dsrc, 1)):
            for cells in io_rows(io_bench, path, a.work, a.repeat, deflate):
                (reads if cells[0] == "read" else writes).append([str(n), cells[1] + label] + cells[2:])
        reads.append([str(n), "dd of the file, page cache", f"{dd_read:.4f}", f"{mb / dd_read:.0f}", "", ""])
        py, exe = python_reader(src, a.repeat)
        if py is not None:
            reads.append([str(n), f"netCDF4-python ({exe}), v[:]", f"{py:.4f}", f"{mb / py:.0f}", "", ""])
        else:
            reads.append([str(n), "netCDF4-python: not installed (apt-get install python3-netcdf4), skipped", "", "", "", ""])
        writes.append([str(n), "dd, page cache", f"{dd_cache:.4f}", f"{mb / dd_cache:.0f}", "", ""])
        writes.append([str(n), "dd, conv=fdatasync", f"{dd_sync:.4f}", f"{mb / dd_sync:.0f}", "", ""])
        os.remove(src)
        os.remove(dsrc)
        if os.path.exists(out):
            os.remove(out)
        last_report = report

    def table(header, rows):
        return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]

    lines += ["## The whole command, `minv invert soarN.nc:A out.nc` (seconds; median of the runs)", ""]
    lines += table(["n", "wall", "read", "upload", "compute", "download", "write (fsynced)", "other", "peak RSS (MB)",
                    "input + output (MB)"], whole)
    lines += ["", "The report of the last run:", "", "```"] + last_report.rstrip().splitlines() + ["```", ""]
    lines += ["## Reading (uncompressed, then deflated level 1 with shuffle)", ""]
    lines += table(["n", "path", "seconds", "MB/s", "CPU s", "MB per CPU s"], reads)
    lines += ["", "## Writing (the CPU columns count the whole write, commit included; deflated: level 1 with shuffle)", ""]
    lines += table(["n", "path", "seconds", "MB/s", "CPU s", "MB per CPU s"], writes)
    lines += ["", "## GPU", ""]
    if os.access(gpu_bench, os.X_OK) and shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"],
                                                                                       capture_output=True).returncode == 0:
        args = [gpu_bench] + [x for n in a.n for x in ("--n", str(n))]
        lines += run(args).stdout.rstrip().splitlines()
    else:
        lines += ["No GPU here (or bench_data_path_gpu not built): pinned PCIe, device-data compute and the host-array "
                  "calls against cuSOLVER were skipped."]
    lines += [f"", f"Load average at the end: {load()}."]
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    png = os.path.splitext(a.out)[0] + ".png"
    plot = [sys.executable, os.path.join(HERE, "plot.py"), a.out, "--stacked", "--table", "0", "--columns", "read",
            "upload", "compute", "download", "write (fsynced)", "other", "--ylabel", "seconds", "--out", png,
            "--title", "minv invert: where the time goes"]
    for py in (sys.executable, "/usr/bin/python3"):
        plot[0] = py
        if subprocess.run(plot, capture_output=True).returncode == 0:
            print(f"bench_data_path: plot in {png}")
            break
    else:
        print("bench_data_path: no plot (matplotlib missing: apt-get install python3-matplotlib)")


if __name__ == "__main__":
    main()
