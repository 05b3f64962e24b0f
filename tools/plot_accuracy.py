#!/usr/bin/env python3
"""PNG chart of lesson 09's accuracy study, from the CSV its driver writes with --csv.

  tools/plot_accuracy.py study.csv [more.csv ...] --out DIR [--device NAME]

Columns (mixed_precision_main.c writes them): lesson,device,variant,inputs,accumulate,m,n,k,
ms,tflops,rel_err,max_err_scaled,rule,check. Writes DIR/09_accuracy.png: on the left the
relative error ||C - exact||_F / ||exact||_F against K, on the right TFLOP/s against K, one
marker and line style per variant (readable without colour), log scales. Rows of one device
only (the one with the most rows, or --device). matplotlib is imported after the arguments
are parsed: without it the script says how to install it in one line and exits 2.
"""
import argparse
import collections
import csv
import math
import pathlib
import sys

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINESTYLES = ("-", "--", "-.", ":")


def number(text):
    """The float in @p text, or NaN for an empty or malformed cell."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def read_rows(paths):
    """The accuracy rows of every CSV file (rows of other tables are skipped)."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for raw in csv.DictReader(f):
                if not raw.get("variant") or not raw.get("rel_err"):
                    continue
                row = dict(raw)
                row["k"] = int(number(raw.get("k")))
                for key in ("ms", "tflops", "rel_err", "max_err_scaled", "rule"):
                    row[key] = number(raw.get(key))
                rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="CSV files written by ./course bench 09 --csv")
    parser.add_argument("--out", required=True, help="folder for the PNG file")
    parser.add_argument("--device", help="plot this device's rows (default: the most common)")
    args = parser.parse_args()
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: python3 -m pip install matplotlib", file=sys.stderr)
        return 2
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        rows = read_rows(args.csv)
    except OSError as e:
        print(f"plot_accuracy.py: {e}", file=sys.stderr)
        return 2
    devices = collections.Counter(r["device"] for r in rows)
    if not devices:
        print("plot_accuracy.py: no accuracy rows in " + ", ".join(args.csv), file=sys.stderr)
        return 2
    device = args.device or devices.most_common(1)[0][0]
    rows = [r for r in rows if r["device"] == device]
    series = collections.defaultdict(dict)
    for r in rows:
        series[r["variant"]][r["k"]] = r  # a K measured twice: the last row wins
    fig, (err_ax, speed_ax) = plt.subplots(1, 2, figsize=(14, 6))
    for i, (variant, points) in enumerate(series.items()):
        ks = sorted(points)
        style = dict(marker=MARKERS[i % len(MARKERS)], linestyle=LINESTYLES[i % len(LINESTYLES)],
                     color="black" if i % 2 == 0 else "dimgray", label=variant)
        err_ax.plot(ks, [max(points[k]["rel_err"], 1e-12) for k in ks], **style)
        speed_ax.plot(ks, [points[k]["tflops"] for k in ks], **style)
    for ax, label in ((err_ax, "relative error ||C - exact|| / ||exact||"),
                      (speed_ax, "TFLOP/s")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("K")
        ax.set_ylabel(label)
        ax.grid(linestyle=":", linewidth=0.5)
    err_ax.legend(fontsize=8)
    m, n = rows[0]["m"], rows[0]["n"]
    fig.suptitle(f"GEMM accuracy and speed by format, {device}, M = {m}, N = {n}")
    fig.tight_layout()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "09_accuracy.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
