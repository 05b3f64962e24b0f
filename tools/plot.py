#!/usr/bin/env python3
"""PNG charts from the benchmark CSV files that the drivers write with --csv.

  tools/plot.py results.csv [more.csv ...] --out DIR [--size N] [--device NAME]

Columns (bench.c writes them): lesson,device,version,m,n,k,ms,gflops,gbs,
pct_baseline,pct_peak,check. Writes into DIR:
  ladder.png     every FP32 GEMM version of lessons 01 to 05 at one size (the
                 largest size with the most versions, or --size): GFLOP/s and
                 % of cuBLAS, as bars with hatches and value labels (readable
                 without colour)
  NN_sizes.png   per lesson: GFLOP/s against size, one marker and line style
                 per version
Rows of one GPU only (the one with the most rows, or --device), plus CPU rows. GEMM rows
are the ones with a FLOP rate and no bandwidth (GEMV and copy-like rows report
GB/s and are left out). matplotlib is imported when the arguments are parsed, not before:
without it the script says how to install it in one line and exits 2.
"""
import argparse
import collections
import csv
import math
import pathlib
import sys

LADDER_LESSONS = ("01", "02", "03", "04", "05")
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "oo", "--")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")


def load_matplotlib():
    """Return pyplot, or exit 2 with one line when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: python3 -m pip install matplotlib", file=sys.stderr)
        sys.exit(2)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def number(text):
    """The float in @p text, or 0 for an empty or malformed cell."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return 0.0
    return value if math.isfinite(value) else 0.0


def read_rows(paths):
    """Every data row of every CSV file, as dicts with numbers converted."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for raw in csv.DictReader(f):
                if not raw.get("lesson") or not raw.get("version"):
                    continue
                row = dict(raw)
                for key in ("m", "n", "k"):
                    row[key] = int(number(raw.get(key)))
                for key in ("ms", "gflops", "gbs", "pct_baseline", "pct_peak"):
                    row[key] = number(raw.get(key))
                rows.append(row)
    return rows


def select_device(rows, device=None):
    """(device, rows of that GPU plus the CPU rows): @p device, else the GPU with most rows."""
    gpus = collections.Counter(r["device"] for r in rows if r["device"] != "CPU")
    device = device or (gpus.most_common(1)[0][0] if gpus else "CPU")
    return device, [r for r in rows if r["device"] in (device, "CPU")]  # CPU rows: lesson 01


def is_gemm(row):
    """A GEMM row: a FLOP rate and no bandwidth column."""
    return row["gflops"] > 0 and row["gbs"] == 0


def size_label(m, n, k):
    return str(m) if m == n == k else f"{m}x{n}x{k}"


def size_value(m, n, k):
    """One number per shape for the x axis: the side of the cube of the same volume."""
    return (m * n * k) ** (1.0 / 3.0)


def pick_ladder_size(rows, size):
    """The (m, n, k) of the ladder: --size, else the one with most versions (largest on ties)."""
    if size:
        return (size, size, size)
    versions = collections.defaultdict(set)
    for r in rows:
        versions[(r["m"], r["n"], r["k"])].add(r["version"])
    if not versions:
        return None
    return max(versions, key=lambda s: (len(versions[s]), s[0] * s[1] * s[2]))


def ladder(plt, rows, out, size, device):
    """Write ladder.png; return its path, or None when there are no GEMM rows."""
    gemm = [r for r in rows if is_gemm(r) and r["lesson"][:2] in LADDER_LESSONS]
    shape = pick_ladder_size(gemm, size)
    if shape is None:
        return None
    latest = {}
    for r in gemm:
        if (r["m"], r["n"], r["k"]) == shape:
            latest[r["version"]] = r  # a version measured twice: the last row wins
    if not latest:
        return None
    # Order: lesson, then speed within the lesson; cuBLAS (in every GPU lesson) once, last.
    bars = sorted(latest.values(), key=lambda r: (r["version"].startswith("cublas"),
                                                   r["lesson"], r["gflops"]))
    lessons = sorted({r["lesson"] for r in bars if not r["version"].startswith("cublas")})
    hatch = {lesson: HATCHES[i % len(HATCHES)] for i, lesson in enumerate(lessons)}

    def style(r):
        """cuBLAS solid grey; each lesson white with its own hatch."""
        if r["version"].startswith("cublas"):
            return "lightgray", ""
        return "white", hatch[r["lesson"]]

    # % of cuBLAS from the FLOP rates, so that CPU rows (lesson 01, whose own
    # baseline is the CPU BLAS) are measured against the same cuBLAS as the rest.
    cublas = latest.get("cublas_sgemm")
    for r in bars:
        r["pct_cublas"] = 100.0 * r["gflops"] / cublas["gflops"] if cublas else r["pct_baseline"]
    names = [r["version"] for r in bars]
    y = range(len(bars))
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 0.45 * len(bars) + 2), sharey=True)
    for ax, key, unit in ((left, "gflops", "GFLOP/s"), (right, "pct_cublas", "% of cuBLAS")):
        values = [r[key] for r in bars]
        drawn = ax.barh(list(y), values, color=[style(r)[0] for r in bars], edgecolor="black",
                        hatch=[style(r)[1] for r in bars])
        labels = [f"{v:,.0f}" if key == "gflops" else f"{v:.2g}%" if v < 1 else f"{v:.1f}%"
                  for v in values]
        ax.bar_label(drawn, labels=labels, padding=3, fontsize=8)
        ax.set_xlabel(unit)
        ax.set_xlim(0, max(values + [1]) * 1.25)
        ax.grid(axis="x", linestyle=":", linewidth=0.5)
    left.set_yticks(list(y))
    left.set_yticklabels(names)
    left.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black",
                             hatch=hatch[lesson]) for lesson in lessons]
    handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="lightgray", edgecolor="black"))
    fig.legend(handles, lessons + ["cuBLAS"], loc="lower center", ncol=len(handles),
               fontsize=8, frameon=False)
    fig.suptitle(f"FP32 GEMM ladder, {device}, M N K = {size_label(*shape)}")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = out / "ladder.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def sizes(plt, rows, out):
    """Write NN_sizes.png for every lesson with GEMM rows; return the paths."""
    paths = []
    by_lesson = collections.defaultdict(list)
    for r in rows:
        if is_gemm(r):
            by_lesson[r["lesson"]].append(r)
    for lesson, lesson_rows in sorted(by_lesson.items()):
        series = collections.defaultdict(dict)
        for r in lesson_rows:
            series[r["version"]][(r["m"], r["n"], r["k"])] = r["gflops"]
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, (version, points) in enumerate(sorted(series.items())):
            shapes = sorted(points, key=lambda s: size_value(*s))
            ax.plot([size_value(*s) for s in shapes], [points[s] for s in shapes],
                    marker=MARKERS[i % len(MARKERS)], linestyle=LINESTYLES[i % len(LINESTYLES)],
                    color="black" if i % 2 == 0 else "dimgray", label=version)
        ax.set_xscale("log", base=2)
        ticks = sorted({size_value(r["m"], r["n"], r["k"]) for r in lesson_rows})
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:.0f}" for t in ticks])
        ax.minorticks_off()
        ax.set_xlabel("size (M = N = K, or the cube root of M N K)")
        ax.set_ylabel("GFLOP/s")
        ax.set_ylim(bottom=0)
        ax.grid(linestyle=":", linewidth=0.5)
        ax.legend(fontsize=8)
        ax.set_title(f"{lesson}, {lesson_rows[0]['device']}")
        fig.tight_layout()
        path = out / f"{lesson[:2]}_sizes.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="CSV files written by a driver's --csv")
    parser.add_argument("--out", required=True, help="folder for the PNG files")
    parser.add_argument("--size", type=int, default=0, help="the ladder's M = N = K")
    parser.add_argument("--device", help="plot this device's rows (default: the most common)")
    args = parser.parse_args()
    plt = load_matplotlib()
    try:
        rows = read_rows(args.csv)
    except OSError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("plot.py: no rows in " + ", ".join(args.csv), file=sys.stderr)
        return 2
    device, rows = select_device(rows, args.device)
    if not any(is_gemm(r) for r in rows):
        print(f"plot.py: no GEMM rows for device '{device}'", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = [p for p in [ladder(plt, rows, out, args.size, device)] if p]
    written += sizes(plt, rows, out)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
