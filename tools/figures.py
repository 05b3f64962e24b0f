#!/usr/bin/env python3
"""The course's figures, drawn from the kernels' own shapes, for the lesson texts and slides.

  tools/figures.py OUT [--bench CSV ...] [--only NAME ...] [--pdf]
  tools/figures.py --check DIR

Writes one file per figure into OUT, in the format its name in FIGURES gives: SVG, or PNG for
the two grids of a thousand cells (an SVG of them is ten times the size). The lessons link to
the copies committed in docs/figures (./course figures redraws them there); --pdf writes every
figure as PDF instead, for the slides (tools/docs.sh). Every number drawn comes from the
kernels' constants (tile sizes, lane layouts) or from a formula stated beside it, so the
figures need no GPU. The roofline shows the time model's H100 estimates (model_h100(), read
from the lesson READMEs' tables) and, with --bench, the measured GFLOP/s of each kernel found in the
benchmark CSV files (./course bench NN --csv=F).

The files are byte-reproducible: no date or version in their metadata, a fixed SVG hash salt,
text drawn as paths. Bytes still depend on matplotlib's version, so docs/figures is drawn with
MATPLOTLIB (Debian 12's and Ubuntu 24.04's python3-matplotlib), and --check draws into a
temporary folder with that version (this python's, or /usr/bin/python3's) and exits 1 naming
the first file that differs from DIR, or 77 (skipped) when no python here has that version.

House style: one palette (Okabe and Ito's, readable by colour-blind readers), one font, text
at least 11 points at the size shown (about 7 inches wide), no grid or frame that carries no
information. matplotlib is imported by load() (main() calls it; so does tools/course.ipynb):
without it the script says how to install it in one line and exits 2.
"""
import argparse
import csv
import filecmp
import math
import pathlib
import subprocess
import sys
import tempfile

# Okabe-Ito: blue, orange, green, vermillion, sky blue, purple, yellow; plus greys.
BLUE, ORANGE, GREEN, RED, SKY, PURPLE, YELLOW = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442")
INK, GREY, LIGHT = "#222222", "#999999", "#E8E8E8"
ROOT = pathlib.Path(__file__).resolve().parent.parent
WIDTH = 7.0  # inches: every figure is drawn at the width it is shown on a slide
MATPLOTLIB = "3.6.3"  # the version that drew docs/figures (see the file's comment)
METADATA = {  # what each format may carry, minus anything that changes from run to run
    "svg": {"Date": None, "Creator": None}, "png": {"Software": None},
    "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}

# The roofline's machine (H100 SXM data sheet) and the course's kernels, each at its
# arithmetic intensity as lesson 01 defines it: FLOPs per byte of global-memory accesses,
# every access counted each time it is made. Derivations are in the lesson texts.
PEAK_FP32 = 67e12
PEAK_FP16_TC = 989e12
HBM_BW = 3.35e12
KERNELS = [  # (name, lesson, FLOP per byte, uses Tensor Cores)
    ("vector_add", "02", 1 / 12, False),
    ("matmul_naive", "02", 0.25, False),
    ("matmul_coalesced", "02", 0.25, False),
    ("gemv_warp", "05", 0.25, False),  # x is read again for every row
    ("matmul_tiled", "03", 8.0, False),
    ("wmma_naive", "08", 8.0, True),
    ("matmul_1d_tile", "04", 16.0, False),
    ("matmul_2d_tile", "04", 32.0, False),
    ("matmul_vectorized", "04", 32.0, False),
    ("matmul_warptile", "05", 32.0, False),
    ("wmma_shared", "08", 64.0, True),
]



def model_h100():
    """{kernel: GFLOP/s} of the time model's H100 SXM5 estimates at --size=4096, read from the
    lessons' "Estimated (model)" tables (lessons/NN_topic/README.md, rows of a table whose header
    names "model GFLOP/s" and the H100: ./course estimate NN --gpu=h100 --size=4096 --markdown,
    each table naming the model it was made with), the one place those numbers are written; a
    kernel's name without its "_kernel". A model, never a measurement (emulator/MODEL.md has its
    validation error). Points above the roof are served by the caches: the intensity counts
    every access. Lesson 08's WMMA points count a fragment load from global memory as the four
    requests ptxas makes (Nsight Compute's counts on an H200)."""
    rates = {}
    for readme in sorted((ROOT / "lessons").glob("*/README.md")):
        header = None
        for line in readme.read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|"):
                header = None
            elif "model GFLOP/s" in cells and any("H100" in c for c in cells):
                header = cells
            elif header and len(cells) == len(header) and cells[0].endswith("_kernel"):
                rate = cells[header.index("model GFLOP/s")]
                if rate != "-":
                    rates[cells[0][:-len("_kernel")]] = float(rate)
    return rates

plt = None  # matplotlib.pyplot and matplotlib.patches, set by load()
patches = None
as_pdf = False  # set by --pdf: save() writes every figure as PDF


def load():
    """Import matplotlib (headless) and set the house style; False when it is not installed."""
    global plt, patches
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.patches
    import matplotlib.pyplot
    plt, patches = matplotlib.pyplot, matplotlib.patches
    plt.rcParams.update({
        "font.family": "DejaVu Sans", "font.size": 12, "axes.titlesize": 13,
        "axes.labelsize": 12, "xtick.labelsize": 11, "ytick.labelsize": 11,
        "legend.fontsize": 11, "legend.frameon": False, "axes.spines.top": False,
        "axes.spines.right": False, "savefig.dpi": 150, "savefig.bbox": "tight",
        "savefig.pad_inches": 0.08, "svg.fonttype": "path", "svg.hashsalt": "course",
        "pdf.fonttype": 42})
    return True


def blank(ax):
    """An axis used as a drawing board: equal units, no ticks, no frame."""
    ax.set_aspect("equal")
    ax.axis("off")


def cells(ax, x0, y0, rows, cols, size=1.0, face="white", edge=GREY, lw=0.5):
    """A rows x cols grid of square cells, row 0 at the top, whose top-left corner is (x0, y0)."""
    for r in range(rows):
        for c in range(cols):
            ax.add_patch(patches.Rectangle((x0 + c * size, y0 - (r + 1) * size), size, size,
                                           facecolor=face, edgecolor=edge, linewidth=lw))


def box(ax, x, y, w, h, face="white", edge=INK, lw=1.2, text=None, size=12, color=INK, **kw):
    """A rectangle whose bottom-left corner is (x, y), with centred text."""
    ax.add_patch(patches.Rectangle((x, y), w, h, facecolor=face, edgecolor=edge, linewidth=lw,
                                   **kw))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, color=color)


def arrow(ax, x0, y0, x1, y1, color=INK, lw=1.5):
    ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                arrowprops=dict(arrowstyle="->", color=color, linewidth=lw))


# ---- lesson 02 ----------------------------------------------------------------------------

def fig_index_maps(out):
    """Which C elements one 32 x 8 block computes in the two matmul mappings; warp 0 in full."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.9))
    s = 0.1
    for ax, naive in zip(axes, (True, False)):
        blank(ax)
        cells(ax, 0, 0, 32, 32, s, edge="#DDDDDD", lw=0.3)  # a 32 x 32 corner of C
        for w in range(8):  # warp w: threadIdx.y = w, threadIdx.x = lane = 0 .. 31
            for lane in range(32):
                r, c = (lane, w) if naive else (w, lane)
                ax.add_patch(patches.Rectangle((c * s, -(r + 1) * s), s, s,
                                               facecolor=ORANGE if w == 0 else SKY,
                                               edgecolor="white", linewidth=0.3))
        ax.set_xlim(-0.05, 3.25)
        ax.set_ylim(-4.25, 0.05)
        ax.set_title("matmul_naive" if naive else "matmul_coalesced", fontsize=13)
        what = ("warp 0: 32 rows of one column\nloads A[row+l][k]: 32 rows of A"
                if naive else "warp 0: 32 columns of one row\nloads B[k][col+l]: 1 row of B")
        ax.text(0, -3.3, what, va="top", fontsize=11)
    legend = [patches.Patch(facecolor=ORANGE, label="warp 0 (threadIdx.x = lane 0..31)"),
              patches.Patch(facecolor=SKY, label="warps 1-7 of the same block")]
    fig.legend(handles=legend, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.02))
    save(fig, out, "02_index_maps.png")


def fig_sectors(out):
    """The 32-byte sectors one warp-wide load touches: a column of A against a row of B."""
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH, 2.9), gridspec_kw={"height_ratios": [2.2, 1]})
    n_words = 64  # two 128-byte lines' worth of each row shown
    for ax, naive in zip(axes, (True, False)):
        blank(ax)
        rows = 4 if naive else 1
        for r in range(rows):
            for w in range(n_words):
                hit = (w == 3) if naive else (8 <= w < 40)
                face = ORANGE if hit else "white"
                ax.add_patch(patches.Rectangle((w * 0.1, -r * 0.32), 0.1, 0.2, facecolor=face,
                                               edgecolor=LIGHT, linewidth=0.4))
            for s in range(n_words // 8):  # sector outlines: 8 floats = 32 bytes
                touched = (s == 0) if naive else (1 <= s < 5)
                ax.add_patch(patches.Rectangle((s * 0.8, -r * 0.32), 0.8, 0.2, fill=False,
                                               edgecolor=BLUE if touched else GREY,
                                               linewidth=2.0 if touched else 0.8))
        if naive:
            ax.text(n_words * 0.1 + 0.15, -0.55, "... 32 rows,\n32 sectors", va="center",
                    fontsize=11)
            ax.set_title("matmul_naive: lane l loads A[row + l][k] (rows K floats apart)",
                         fontsize=12, loc="left")
        else:
            ax.text(n_words * 0.1 + 0.15, 0.1, "4 sectors", va="center", fontsize=11)
            ax.set_title("matmul_coalesced: lane l loads B[k][col + l] (consecutive floats)",
                         fontsize=12, loc="left")
        ax.set_xlim(-0.05, n_words * 0.1 + 1.4)
        ax.set_ylim(-1.1 if naive else -0.15, 0.3)
    fig.text(0.01, 0.0, "orange: the floats requested; blue frames: the 32-byte sectors moved",
             fontsize=11)
    save(fig, out, "02_sectors.svg")


# ---- lesson 03 ----------------------------------------------------------------------------

def fig_tile_sliding(out):
    """matmul_tiled: the block's C tile, and the A and B tiles it stages, step by step along K."""
    fig, ax = plt.subplots(figsize=(WIDTH, 5.4))
    blank(ax)
    t = 0.5  # one 32 x 32 tile
    tiles_k, tiles_mn = 5, 4
    bx, by = tiles_k * t + 0.6, 0  # B's top-left corner; A sits below-left, C below-right
    cells(ax, bx, by + tiles_k * t, tiles_k, tiles_mn, t, face="white", edge=GREY)
    cells(ax, 0, by - 0.6, tiles_mn, tiles_k, t, face="white", edge=GREY)
    cells(ax, bx, by - 0.6, tiles_mn, tiles_mn, t, face="white", edge=GREY)
    row, col = 1, 2  # the block's tile of C
    box(ax, bx + col * t, by - 0.6 - (row + 1) * t, t, t, face=RED, lw=1.5)
    shades = [BLUE, SKY, LIGHT, LIGHT, LIGHT]
    for step in range(tiles_k):
        face = shades[step]
        box(ax, step * t, by - 0.6 - (row + 1) * t, t, t, face=face, lw=1.0)
        box(ax, bx + col * t, by + (tiles_k - step - 1) * t, t, t, face=face, lw=1.0)
    ax.text(0, by - 0.6 - tiles_mn * t - 0.1, "steps k0 = 0, 32, 64, ... along K", va="top",
            fontsize=11)
    arrow(ax, 2.2 * t, by - 0.6 - (row + 0.5) * t, 4.6 * t, by - 0.6 - (row + 0.5) * t, BLUE)
    arrow(ax, bx + (col + 0.5) * t, by + (tiles_k - 2.2) * t, bx + (col + 0.5) * t,
          by + 0.4 * t, BLUE)
    ax.text(tiles_k * t / 2, by + 0.1 - 0.6 + 0.2, "A (M x K)", ha="center", fontsize=12)
    ax.text(bx + tiles_mn * t + 0.15, by + tiles_k * t / 2, "B (K x N)", va="center", fontsize=12)
    ax.text(bx + tiles_mn * t + 0.15, by - 0.6 - tiles_mn * t / 2, "C (M x N)", va="center",
            fontsize=12)
    legend = [patches.Patch(facecolor=RED, edgecolor=INK, label="the block's 32 x 32 tile of C"),
              patches.Patch(facecolor=BLUE, edgecolor=INK, label="tiles in shared memory now"),
              patches.Patch(facecolor=SKY, edgecolor=INK, label="next step (k0 + 32)")]
    ax.legend(handles=legend, loc="upper left", bbox_to_anchor=(0.0, 1.0), fontsize=11)
    ax.set_xlim(-1.6, bx + tiles_mn * t + 1.3)
    ax.set_ylim(by - 0.6 - tiles_mn * t - 0.45, by + tiles_k * t + 0.1)
    ax.set_title("matmul_tiled: per step, one 32 x 32 tile of A and one of B", fontsize=12)
    save(fig, out, "03_tile_sliding.svg")


def fig_bank_maps(out):
    """[32][32] against [32][33]: the banks of one column, which a warp reads in the transpose."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.0))
    s = 0.1
    for ax, width in zip(axes, (32, 33)):
        blank(ax)
        for r in range(32):
            for c in range(width):
                bank = (r * width + c) % 32
                face = LIGHT if c == 32 else (ORANGE if bank == 0 else "white")
                ax.add_patch(patches.Rectangle((c * s, -(r + 1) * s), s, s, facecolor=face,
                                               edgecolor="#CCCCCC", linewidth=0.3))
        ax.add_patch(patches.Rectangle((0, -32 * s), s, 32 * s, fill=False, edgecolor=BLUE,
                                       linewidth=2.2))
        ax.set_xlim(-0.05, 33 * s + 0.05)
        ax.set_ylim(-32 * s - 1.0, 0.05)
        if width == 32:
            title = "float tile[32][32]"
            note = "column 0: all 32 words in bank 0\n32 wavefronts per warp read"
        else:
            title = "float tile[32][33] (grey: padding)"
            note = "column 0: banks 0, 1, ..., 31\n1 wavefront per warp read"
        ax.set_title(title, fontsize=12)
        ax.text(0, -32 * s - 0.1, note, va="top", fontsize=11)
    legend = [patches.Patch(facecolor=ORANGE, edgecolor=INK, label="words in bank 0"),
              patches.Patch(facecolor="white", edgecolor=BLUE, linewidth=2,
                            label="the column a warp reads")]
    fig.legend(handles=legend, loc="lower center", ncol=2, bbox_to_anchor=(0.5, 0.0))
    save(fig, out, "03_bank_maps.png")


# ---- lessons 04 and 05 ----------------------------------------------------------------------

def fig_thread_tiles(out):
    """matmul_1d_tile's 8 x 1 and matmul_2d_tile's 8 x (4 + 4) thread tiles, with what they load.

    matmul_2d_tile's thread takes columns thread_col * 4 .. + 3 and 64 + thread_col * 4 .. + 3
    (two groups of TV = 4, BN / 2 apart), so its 8 x 8 results are two 8 x 4 pieces."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.9))
    for ax, two_d in zip(axes, (False, True)):
        blank(ax)
        bm = 128 if two_d else 64
        tm, tn = (8, 4) if two_d else (8, 1)  # one piece of a thread's results
        s = 3.0 / bm  # the block tile is drawn 3 units wide
        k = 8 * s * (1.5 if not two_d else 3)  # the BK = 8 strips, widened to be visible
        box(ax, 0, 0, 3.0, 3.0, face="white", lw=1.2)  # C tile
        for i in range(0, bm + 1, tm):
            ax.plot([0, 3.0], [3.0 - i * s, 3.0 - i * s], color=LIGHT, linewidth=0.5)
        for j in range(0, bm + 1, tn if two_d else 8):
            ax.plot([j * s, j * s], [0, 3.0], color=LIGHT, linewidth=0.5)
        tr, tc = 2, 5  # one thread's place
        y = 3.0 - (tr + 1) * tm * s
        box(ax, -k - 0.15, 0, k, 3.0, face="white", lw=1.0)  # As strip: bm x 8
        box(ax, -k - 0.15, y, k, tm * s, face=BLUE, lw=0.8)
        box(ax, 0, 3.15, 3.0, k, face="white", lw=1.0)  # Bs strip: 8 x bn
        for x in ([tc * tn * s, (bm // 2 + tc * tn) * s] if two_d else [tc * s]):
            box(ax, x, y, tn * s, tm * s, face=RED, lw=1.0)
            box(ax, x, 3.15, tn * s, k, face=BLUE, lw=0.8)
        ax.text(-k / 2 - 0.15, 3.15 + k / 2, "As", ha="center", va="center", fontsize=11)
        ax.text(3.05, 3.15 + k / 2, "Bs", ha="left", va="center", fontsize=11)
        ax.set_xlim(-k - 0.3, 3.4)
        ax.set_ylim(-1.0, 3.3 + k)
        if two_d:
            ax.set_title("matmul_2d_tile\n128 x 128 block, 8 x 8 per thread", fontsize=12)
            note = "per k: 8 values of A + 8 of B (4 + 4,\n64 columns apart) -> 64 FMAs"
        else:
            ax.set_title("matmul_1d_tile\n64 x 64 block, 8 x 1 per thread", fontsize=12)
            note = "per k: 8 values of A + 1 of B\n-> 8 FMAs"
        ax.text(0, -0.12, note, va="top", fontsize=11)
    legend = [patches.Patch(facecolor=RED, edgecolor=INK, label="one thread's results (registers)"),
              patches.Patch(facecolor=BLUE, edgecolor=INK,
                            label="what it reads of As and Bs (BK = 8 deep)")]
    fig.legend(handles=legend, loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.05))
    save(fig, out, "04_thread_tiles.svg")


def fig_warp_tiles(out):
    """matmul_warptile's three levels: block 128 x 128, warp 64 x 32, lane 2 x 2 pieces of 4 x 4."""
    fig, axes = plt.subplots(1, 3, figsize=(WIDTH, 3.5),
                             gridspec_kw={"width_ratios": [1.0, 0.62, 0.9]})
    ax = axes[0]
    blank(ax)
    s = 3.0 / 128
    for w in range(8):
        wm, wn = w // 4, w % 4
        box(ax, wn * 32 * s, 3.0 - (wm + 1) * 64 * s, 32 * s, 64 * s,
            face=SKY if w == 5 else "white", lw=1.0, text=f"w{w}", size=11)
    ax.set_xlim(-0.05, 3.05)
    ax.set_ylim(-0.05, 3.05)
    ax = axes[1]
    blank(ax)
    s = 3.0 / 64
    for i in range(2):
        for j in range(2):
            box(ax, j * 16 * s, 3.0 - (i + 1) * 32 * s, 16 * s, 32 * s, face="white", lw=1.0)
            box(ax, j * 16 * s, 3.0 - i * 32 * s - 4 * s, 4 * s, 4 * s, face=ORANGE, lw=0.6)
    ax.set_xlim(-0.05, 32 * s + 0.05)
    ax.set_ylim(-0.05, 3.05)
    ax = axes[2]
    blank(ax)
    s = 3.0 / 32
    for lane in range(32):
        r, c = lane // 4, lane % 4
        box(ax, c * 4 * s, 3.0 - (r + 1) * 4 * s, 4 * s, 4 * s,
            face=ORANGE if lane == 0 else "white", lw=0.8, text=str(lane), size=11)
    ax.set_xlim(-0.05, 16 * s + 0.05)
    ax.set_ylim(-0.05, 3.05)
    titles = ("block 128 x 128:\n8 warps as 2 x 4", "warp tile 64 x 32:\n2 x 2 pieces",
              "a 32 x 16 piece: lane l\nowns a 4 x 4 block")
    for ax, title in zip(axes, titles):
        ax.set_anchor("S")
        box_ = ax.get_position()
        fig.text((box_.x0 + box_.x1) / 2, 0.93, title, ha="center", va="bottom", fontsize=12)
    fig.text(0.5, -0.02, "blue: the warp drawn in the middle; orange: lane 0's four 4 x 4 blocks "
             "= its 8 x 8\nthread tile. Per k a warp reads 8 distinct float4 of A and 4 of B",
             ha="center", va="top", fontsize=11)
    save(fig, out, "05_warp_tiles.svg")


# ---- lesson 08 ----------------------------------------------------------------------------

def fig_wmma_fragment(out):
    """One mma_sync (16 x 16 x 16) as two m16n8k16, and who holds the accumulator of one."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 4.0), gridspec_kw={"width_ratios": [1.3, 1]})
    ax = axes[0]
    blank(ax)
    u = 0.1  # one element
    box(ax, 0, 0, 16 * u, 16 * u, face=LIGHT, lw=1.0, text="A", size=12)
    ax.text(1.9, 8 * u, "x", fontsize=14, ha="center", va="center")
    for x0, label in ((2.2, "B"), (4.4, "D")):
        box(ax, x0, 0, 8 * u, 16 * u, face=BLUE, lw=1.0)
        box(ax, x0 + 8 * u, 0, 8 * u, 16 * u, face=ORANGE, lw=1.0)
        ax.text(x0 + 8 * u, 16 * u + 0.08, label, ha="center", va="bottom", fontsize=12)
    ax.text(0.8, 16 * u + 0.08, "16 x 16", ha="center", va="bottom", fontsize=11)
    ax.text(4.1, 8 * u, "=", fontsize=14, ha="center", va="center")
    ax.text(0, -0.15, "one 16 x 16 x 16 mma_sync = two\nmma.m16n8k16 (in SASS: two\n"
            "HMMA.16816.F32), one per 8 columns", va="top", fontsize=11)
    ax.set_xlim(-0.05, 6.1)
    ax.set_ylim(-1.3, 2.0)
    ax = axes[1]
    blank(ax)
    s = 0.3
    for r in range(16):
        for c in range(8):
            lane = (r % 8) * 4 + c // 2
            box(ax, c * s, -(r + 1) * s, s, s, face=SKY if r < 8 else LIGHT, edge="white",
                lw=0.6)
            ax.text(c * s + s / 2, -(r + 0.5) * s, str(lane), ha="center", va="center",
                    fontsize=8)
    ax.text(8 * s + 0.08, -4 * s, "c0, c1", va="center", fontsize=10.5)
    ax.text(8 * s + 0.08, -12 * s, "c2, c3", va="center", fontsize=10.5)
    ax.set_xlim(-0.05, 8 * s + 0.9)
    ax.set_ylim(-16 * s - 0.05, 0.05)
    ax.set_title("blue half of D: the lane\nthat holds each element", fontsize=11.5)
    fig.text(0.5, -0.04, "lane = 4 (row % 8) + col / 2: the PTX ISA's layout for mma.m16n8k16 "
             "(.f32);\nWMMA itself promises no layout, so code must not depend on one",
             ha="center", fontsize=10.5)
    save(fig, out, "08_wmma_fragment.svg")


def fig_double_buffer(out):
    """wmma_shared's main loop over 4 slices: loads in flight during the math, one barrier."""
    fig, ax = plt.subplots(figsize=(WIDTH, 2.8))
    lanes = ["global -> registers", "mma_sync (shared)", "registers -> shared"]
    for i, name in enumerate(lanes):
        ax.text(-0.15, 2 - i, name, ha="right", va="center", fontsize=11)
    colour = [BLUE, ORANGE]
    box(ax, 0, 1.7, 1.1, 0.6, face=colour[0], text="slice 0", size=10.5, color="white")
    box(ax, 1.1, -0.3, 0.4, 0.6, face=colour[0])
    x = 1.6
    ax.axvline(x - 0.05, color=INK, linewidth=1.2, linestyle="--")
    for t in range(4):
        buf, nxt = t % 2, (t + 1) % 2
        if t < 3:
            box(ax, x, 1.7, 1.1, 0.6, face=colour[nxt], text=f"slice {t + 1}", size=10.5,
                color="white")
        box(ax, x, 0.7, 2.0, 0.6, face=colour[buf], text=f"slice {t}", size=10.5, color="white")
        if t < 3:
            box(ax, x + 2.05, -0.3, 0.4, 0.6, face=colour[nxt])
        x += 2.55
        ax.axvline(x - 0.05, color=INK, linewidth=1.2, linestyle="--")
    ax.set_xlim(-0.1, x + 0.1)
    ax.set_ylim(-0.5, 2.5)
    ax.axis("off")
    legend = [patches.Patch(facecolor=BLUE, label="shared buffer 0"),
              patches.Patch(facecolor=ORANGE, label="shared buffer 1"),
              plt.Line2D([], [], color=INK, linestyle="--", label="barrier: __syncthreads()")]
    fig.legend(handles=legend, loc="lower center", ncol=3, bbox_to_anchor=(0.55, -0.1))
    ax.set_title("wmma_shared over 4 slices (time runs right): the next slice's loads fly "
                 "during the math", fontsize=11.5, loc="right")
    save(fig, out, "08_double_buffer.svg")


# ---- lesson 07 ----------------------------------------------------------------------------

# The time model's kernel estimates for lesson 07's figure: mix_kernel on an H100 SXM5 at 700
# rounds, over all 2^22 words (one launch) and over one of 8 chunks: the README's "Estimated
# (model)" table (./course estimate 07 --gpu=h100 --len=4194304 --rounds=700 --markdown, on the
# CPU emulator, 2026-11-29, 845ef7b's model, SASS counted), its SMs column over its kernels. A
# model, never a measurement.
MODEL_07_WORDS = 1 << 22
MODEL_07_KERNEL_MS = {1: 0.3046, 8: 0.04159}
CHUNK_COLOURS = [BLUE, ORANGE, GREEN, RED, SKY, PURPLE, YELLOW, GREY]


def pipeline_ops(chunks, streams):
    """Lesson 07's pipeline as the stream record would hold it: each chunk's copy in, kernel and
    copy out on stream c % streams, one after another there."""
    import timeline  # tools/timeline.py: the model that lays a record out in time
    ops, seq = [], {}
    for c in range(chunks):
        s = f"s{c % streams}"
        words = MODEL_07_WORDS * (c + 1) // chunks - MODEL_07_WORDS * c // chunks
        for kind, sides in (("copy", 9), ("kernel", 0), ("copy", 6)):  # pinned host sides
            n = seq[s] = seq.get(s, 0) + 1
            ops.append({"kind": kind, "sides": str(sides), "graph": "0", "stream": s,
                        "seq": str(n), "deps": f"{s}:{n - 1}" if n > 1 else "-", "name": kind,
                        "dst_bytes": str(4 * words), "ms": MODEL_07_KERNEL_MS[chunks],
                        "chunk": c})
    timeline.schedule(ops, {(o["stream"], o["seq"]): o for o in ops}, "h100")
    return ops


def fig_timeline(out):
    """Lesson 07's pipelines on an H100's copy engines and SMs (the time model's timeline):
    serial, 8 chunks on 2 streams, 8 chunks on 3 streams."""
    cases = [("serial: copy in, mix, copy out", 1, 1), ("8 chunks on 2 streams", 8, 2),
             ("8 chunks on 3 streams", 8, 3)]
    fig, axes = plt.subplots(len(cases), 1, figsize=(WIDTH, 4.7), sharex=True)
    rows = ("H2D", "SMs", "D2H")
    for ax, (title, chunks, streams) in zip(axes, cases):
        ops = pipeline_ops(chunks, streams)
        for op in ops:
            y = 2 - rows.index(op["engine"])
            colour = CHUNK_COLOURS[op["chunk"] % len(CHUNK_COLOURS)]
            ax.add_patch(patches.Rectangle((op["start"], y - 0.38), op["end"] - op["start"], 0.76,
                                           facecolor=colour, edgecolor="white", linewidth=0.8))
        total = max(op["end"] for op in ops)
        ax.set_yticks([2, 1, 0])
        ax.set_yticklabels(["copy in", "SMs", "copy out"])
        ax.set_ylim(-0.6, 2.6)
        ax.set_title(f"{title}: {total:.2f} ms", fontsize=11.5, loc="left")
        ax.tick_params(left=False)
    axes[-1].set_xlabel("ms (model: H100 SXM5, 16 MiB each way, mix at 700 rounds)")
    axes[-1].set_xlim(0, max(op["end"] for op in pipeline_ops(1, 1)) * 1.01)
    fig.tight_layout()
    save(fig, out, "07_timeline.svg")
# ---- lesson 10 ----------------------------------------------------------------------------

def fig_mma_fragments(out):
    """mma.m16n8k16's lanes: who holds each element of A (16 x 16), B (16 x 8) and C (16 x 8)."""
    fig, axes = plt.subplots(1, 3, figsize=(WIDTH, 3.6),
                             gridspec_kw={"width_ratios": [16, 8, 8]})
    s = 0.32
    regs = [BLUE, ORANGE, GREEN, PURPLE]  # 32-bit register 0 .. 3 of a lane

    def grid(ax, rows, cols, where, title):
        """Each element (r, c) labelled with its lane, coloured by its register (where())."""
        blank(ax)
        for r in range(rows):
            for c in range(cols):
                lane, reg = where(r, c)
                box(ax, c * s, -(r + 1) * s, s, s, face=regs[reg], edge="white", lw=0.6)
                ax.text(c * s + s / 2, -(r + 0.5) * s, str(lane), ha="center", va="center",
                        fontsize=6.5, color="white")
        ax.set_xlim(-0.05, cols * s + 0.05)
        ax.set_ylim(-16 * s - 0.05, 0.05)
        ax.set_title(title, fontsize=11)

    # A: a0 a1 (register 0) row g, columns 2t and 2t + 1; register 1 the same 8 rows down;
    # registers 2 and 3 the same 8 columns to the right. g = lane / 4, t = lane % 4.
    grid(axes[0], 16, 16, lambda r, c: (4 * (r % 8) + (c % 8) // 2, (r >= 8) + 2 * (c >= 8)),
         "A (16 x 16): a0 .. a7")
    # B: b0 b1 (register 0) rows 2t and 2t + 1 of column g; register 1 the same 8 rows down.
    grid(axes[1], 16, 8, lambda r, c: (4 * c + (r % 8) // 2, r >= 8), "B: b0 .. b3")
    # C and D in f32: one element a register, c0 c1 in row g, c2 c3 in row g + 8.
    grid(axes[2], 16, 8, lambda r, c: (4 * (r % 8) + c // 2, 2 * (r >= 8) + c % 2),
         "C, D: c0 .. c3")
    legend = [patches.Patch(facecolor=regs[i], label=f"register {i}") for i in range(4)]
    fig.legend(handles=legend, loc="lower center", ncol=4, bbox_to_anchor=(0.5, -0.06))
    fig.text(0.5, -0.08, "the number in a cell is the lane holding it: lane 4 g + t holds rows g "
             "and g + 8 of A, C and D\nat columns 2t and 2t + 1 (A: and 8 on), and column g of "
             "B at rows 2t, 2t + 1, 2t + 8, 2t + 9;\nA and B pack two halves to a 32-bit "
             "register, C and D (f32) one float", ha="center", va="top", fontsize=10.5)
    save(fig, out, "10_mma_fragments.svg")


def fig_swizzle_banks(out):
    """A 128-byte-row tile's 16-byte chunks, plain and swizzled: the 8 rows ldmatrix reads at
    chunk 0 fall in one bank group, then in eight."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.3))
    s = 0.4
    shades = [BLUE, ORANGE, GREEN, RED, SKY, PURPLE, YELLOW, GREY]  # bank group 0 .. 7
    for ax, swizzled in zip(axes, (False, True)):
        blank(ax)
        for r in range(8):
            for place in range(8):  # the chunk's place in the row = its bank group
                chunk = place ^ r if swizzled else place
                read = chunk == 0
                box(ax, place * s, -(r + 1) * s, s, s, face=shades[place], edge=INK if read
                    else "white", lw=2.4 if read else 0.6)
                ax.text(place * s + s / 2, -(r + 0.5) * s, str(chunk), ha="center",
                        va="center", fontsize=10,
                        color=INK if shades[place] in (YELLOW, SKY) else "white")
            ax.text(-0.08, -(r + 0.5) * s, f"row {r}", ha="right", va="center", fontsize=10)
        for g in range(8):
            ax.text(g * s + s / 2, 0.08, str(g), ha="center", va="bottom", fontsize=9,
                    color=GREY)
        ax.set_xlim(-0.75, 8 * s + 0.05)
        ax.set_ylim(-8 * s - 0.9, 0.45)
        if swizzled:
            title = "swizzled: chunk c of row r at c XOR (r % 8)"
            note = "chunk 0 of rows 0-7: 8 bank groups,\n1 wavefront"
        else:
            title = "plain: chunk c at place c"
            note = "chunk 0 of rows 0-7: one bank group,\n8 wavefronts (8-way conflict)"
        ax.set_title(title, fontsize=11.5)
        ax.text(0, -8 * s - 0.12, note, va="top", fontsize=10.5)
    fig.text(0.5, -0.04, "columns: the 8 groups of 4 banks a 128-byte row spans (the grey "
             "numbers); in each cell, the\n16-byte chunk of the row stored there. Framed: the 8 "
             "rows one ldmatrix matrix reads at chunk 0", ha="center", va="top", fontsize=10.5)
    save(fig, out, "10_swizzle_banks.svg")


def fig_pipeline(out):
    """mma_pipelined's loop over 6 slices with 3 stages: two slices' copies in flight while the
    warps multiply the third."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.0))
    stages = [BLUE, ORANGE, GREEN]
    for name, y in (("cp.async in flight", 2.0), ("wait + barrier", 0.9), ("mma.sync", 0.0)):
        ax.text(-0.15, y, name, ha="right", va="center", fontsize=11)
    step, x0, n = 1.6, 0.9, 6

    def start(t):  # step t: the wait, the barrier, then slice t + 2's copies and slice t's math
        return x0 + t * step

    for t in range(n):
        x = start(t)
        ax.plot([x, x + 0.25], [0.9, 0.9], color=INK, linewidth=3)
        ax.axvline(x + 0.3, color=INK, linewidth=1.0, linestyle="--")
        box(ax, x + 0.35, -0.25, step - 0.4, 0.5, face=stages[t % 3], text=f"slice {t}",
            size=10, color="white")
        # slice t's copies: issued two steps before (or before the loop), landed by this wait
        issued = 0.05 + 0.3 * t if t < 2 else start(t - 2) + 0.35
        box(ax, issued, 2.1 - 0.6 * (t % 2), x + 0.25 - issued, 0.45, face=stages[t % 3],
            text=f"slice {t}", size=10, color="white")
    ax.set_xlim(-0.1, start(n) + 0.1)
    ax.set_ylim(-0.4, 2.7)
    ax.axis("off")
    legend = [patches.Patch(facecolor=stages[i], label=f"stage {i}") for i in range(3)] + [
        plt.Line2D([], [], color=INK, linestyle="--", label="barrier: __syncthreads()")]
    fig.legend(handles=legend, loc="lower center", ncol=4, bbox_to_anchor=(0.55, -0.1))
    ax.set_title("3 stages, time to the right: step t waits for slice t, starts slice t + 2, "
                 "multiplies slice t", fontsize=11, loc="right")
    save(fig, out, "10_pipeline_timeline.svg")


# ---- lesson 12 ----------------------------------------------------------------------------

def fig_tensor_map_box(out):
    """wgmma_tma's boxes over A (M = 150, K = 200): 64 columns x 64 rows each, the last ones
    past the edges, where TMA writes zeros."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.6))
    blank(ax)
    M, K, s = 150, 200, 0.02  # rows, columns, inches per element
    box(ax, 0, -M * s, K * s, M * s, face=LIGHT, edge=INK, lw=1.5)
    ax.text(K * s / 2, 0.12, "A: K = 200 columns (contiguous), M = 150 rows, stride 2 K bytes",
            ha="center", fontsize=10)
    colors = [BLUE, ORANGE, GREEN, PURPLE]
    for t in range(4):  # block y = 1: rows 64 .. 127, slices t = 0 .. 3
        x, y = 64 * t * s, -(64 + 64) * s
        box(ax, x, y, 64 * s, 64 * s, face=colors[t], edge=INK, lw=1.0, alpha=0.75,
            text=f"({64 * t}, 64)", size=9, color="white")
    past = patches.Rectangle((K * s, -128 * s), (256 - K) * s, 64 * s, facecolor="none",
                             edgecolor=RED, linewidth=1.2, hatch="//")
    ax.add_patch(past)
    ax.text(256 * s + 0.1, -96 * s, "past K: zeros,\nstill counted\nin the bytes", va="center",
            fontsize=9, color=RED)
    box(ax, 0, -(M + 42) * s, 64 * s, 64 * s, face="none", edge=RED, lw=1.2, hatch="//")
    ax.text(64 * s + 0.1, -(M + 10) * s, "block y = 2: rows 128 .. 191, past M from row 150",
            va="center", fontsize=9, color=RED)
    ax.set_xlim(-0.1, 6.4)
    ax.set_ylim(-(M + 48) * s, 0.35)
    ax.set_title("cp.async.bulk.tensor.2d [smem], [map, {k0, row0}]: a 64 x 64 box of bf16 "
                 "(128-byte rows) per copy", fontsize=10, loc="left")
    save(fig, out, "12_tensor_map_box.svg")


def fig_ws_timeline(out):
    """wgmma_warp_specialized over 6 slices with 4 stages: the producer's copies, the full and
    empty phases (parity per round), and the consumers' wgmma."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    colors = [BLUE, ORANGE, GREEN, PURPLE]
    for name, y in (("producer: TMA", 2.0), ("full[s] / empty[s]", 1.0), ("consumers: wgmma", 0.0)):
        ax.text(-0.15, y + 0.2, name, ha="right", va="center", fontsize=10)
    step = 1.0

    def issue(t):  # the first 4 slices at once, then each when slice t - 4 releases its stage
        return 0.05 + 0.38 * t if t < 4 else math_start(t - 4) + step

    def math_start(t):
        return 0.6 + t * step

    for t in range(6):
        s = t % 4
        box(ax, issue(t), 2.0, 0.33, 0.4, face=colors[s], text=f"{t}", size=9, color="white")
        box(ax, math_start(t), 0.0, step - 0.1, 0.4, face=colors[s], text=f"slice {t}", size=9,
            color="white")
        ax.text(math_start(t), 1.35, f"full[{s}] p{t // 4 % 2}", fontsize=7, rotation=30)
        ax.text(math_start(t) + step - 0.1, 0.75, f"empty[{s}] p{t // 4 % 2}", fontsize=7,
                rotation=30)
        if t >= 4:
            arrow(ax, math_start(t - 4) + step - 0.1, 0.45, issue(t), 1.95, color=GREY, lw=1.0)
    ax.set_xlim(-0.1, math_start(6) + 0.2)
    ax.set_ylim(-0.3, 2.7)
    ax.axis("off")
    ax.set_title("4 stages, time to the right: slice t waits for phase t / 4 of its stage's "
                 "full barrier (parity p); its release completes a phase of empty", fontsize=9,
                 loc="right")
    save(fig, out, "12_ws_timeline.svg")


# ---- lesson 09 ----------------------------------------------------------------------------

FORMATS = [  # name, exponent bits, mantissa bits, ignored low bits (TF32 in a 32-bit float)
    ("fp32", 8, 23, 0), ("TF32", 8, 10, 13), ("bf16", 8, 7, 0), ("fp16", 5, 10, 0)]


def fig_formats(out):
    """The bits of the four formats: sign, exponent, mantissa."""
    fig, ax = plt.subplots(figsize=(WIDTH, 2.6))
    s = 0.18
    for row, (name, e, m, ignored) in enumerate(FORMATS):
        y = -row * 0.45
        ax.text(-0.15, y + s / 2, name, ha="right", va="center", fontsize=12)
        bits = [RED] + [BLUE] * e + [GREEN] * m + [LIGHT] * ignored
        for i, face in enumerate(bits):
            ax.add_patch(patches.Rectangle((i * s, y), s, s, facecolor=face, edgecolor="white",
                                           linewidth=0.6))
        label = f"1 + {e} + {m}" + (" (low 13 bits ignored)" if ignored else "")
        ax.text(len(bits) * s + 0.15, y + s / 2, label, va="center", fontsize=11)
    legend = [patches.Patch(facecolor=RED, label="sign"),
              patches.Patch(facecolor=BLUE, label="exponent: range"),
              patches.Patch(facecolor=GREEN, label="mantissa: precision")]
    ax.legend(handles=legend, loc="upper center", ncol=3, bbox_to_anchor=(0.45, 1.3))
    ax.set_xlim(-0.9, 32 * s + 2.9)
    ax.set_ylim(-1.5, 0.3)
    ax.axis("off")
    save(fig, out, "08_formats.svg")


def fig_number_line(out):
    """Each format's range on a log2 axis: subnormals, normals, and the loss-scaling demo."""
    fig, ax = plt.subplots(figsize=(WIDTH, 2.9))
    spans = {  # (smallest subnormal, smallest normal, largest finite) as powers of two
        "fp32": (-149, -126, 128), "TF32": (-149, -126, 128), "bf16": (-133, -126, 128),
        "fp16": (-24, -14, math.log2(65504))}
    for row, (name, _, _, _) in enumerate(FORMATS):
        sub, norm, top = spans[name]
        y = -row
        ax.barh(y, norm - sub, left=sub, height=0.5, color=SKY, edgecolor="none", zorder=1)
        ax.barh(y, top - norm, left=norm, height=0.5, color=BLUE, edgecolor="none", zorder=1)
        ax.text(-160, y, name, ha="right", va="center", fontsize=12)
    ax.axvspan(-34, -4, color=ORANGE, alpha=0.3, linewidth=0, zorder=0)
    ax.text(-19, 0.55, "lesson 09's gradients\n|g| in [2^-34, 2^-4]", ha="center", va="bottom",
            fontsize=10.5)
    ax.set_xlim(-160, 135)
    ax.set_ylim(-3.6, 1.4)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ticks = [-149, -126, -24, -14, 16, 128]  # each format's ends; 0 would crowd -14 and 16
    ax.set_xticks(ticks)
    for label, align in zip(ax.get_xticklabels(), ["right", "left", "right", "left", "center",
                                                   "center"]):
        label.set_horizontalalignment(align)  # pairs 23 and 10 apart: text away from each other
    ax.set_xlabel("log2 |x|")
    legend = [patches.Patch(facecolor=SKY, label="subnormal"),
              patches.Patch(facecolor=BLUE, label="normal")]
    ax.legend(handles=legend, loc="lower left", ncol=2, columnspacing=0.8, handlelength=1.2,
              bbox_to_anchor=(0.0, 0.0))  # fp16's row is empty left of 2^-24
    save(fig, out, "09_number_line.svg")


def round_even(x, step):
    """@p x rounded to the nearest multiple of @p step, ties to the even multiple."""
    q = x / step
    n = math.floor(q)
    return step * (n + 1 if q - n > 0.5 or (q - n == 0.5 and n % 2 == 1) else n)


def fig_rounding(out):
    """Round to nearest, ties to even, near 1: the bf16 grid, the fp16 grid over the same span,
    and the fp16 grid magnified 8 times around the first value."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.6))
    lo, hi = 1.0, 1.0 + 4 * 2 ** -7
    zlo = 1.0 + 4 * 2 ** -10  # the magnified window: 4 fp16 steps, drawn as wide as [lo, hi]
    zoom = (hi - lo) / (4 * 2 ** -10)
    rows = [  # (y, spacing, label, where a value v is drawn)
        (2.0, 2 ** -7, "bf16 (spacing 2^-7)", lambda v: v),
        (1.0, 2 ** -10, "fp16 (spacing 2^-10)", lambda v: v),
        (0.0, 2 ** -10, "fp16, 8x magnified", lambda v: lo + (v - zlo) * zoom)]
    x1 = 1.0 + 0.7 * 2 ** -7  # = 1 + 5.6 x 2^-10
    tie = 1.0 + 2.5 * 2 ** -7  # = 1 + 20 x 2^-10: a bf16 tie, exact in fp16
    for y, step, name, at in rows:
        ax.plot([lo, hi], [y, y], color=INK, linewidth=1.0)
        first = lo if at(lo) == lo else zlo
        for i in range(round((hi - lo) / step) + 1 if first == lo else 5):
            ax.plot([at(first + i * step)] * 2, [y - 0.12, y + 0.12], color=INK, linewidth=1.0)
        ax.text(lo - 0.0008, y, name, ha="right", va="center", fontsize=11)
        for x, colour in ((x1, RED), (tie, GREEN)):
            if not lo <= at(x) <= hi:
                continue
            r = round_even(x, step)
            ax.plot([at(x)], [y + 0.28], marker="v", color=colour, markersize=8)
            if abs(r - x) > 1e-12:
                ax.annotate("", xy=(at(r), y + 0.13), xytext=(at(x), y + 0.26),
                            arrowprops=dict(arrowstyle="->", color=colour, linewidth=1.4))
    for v in (zlo, zlo + 4 * 2 ** -10):  # the window's ends on the unmagnified fp16 row
        ax.plot([v, rows[2][3](v)], [0.85, 0.15], color=GREY, linewidth=0.8, linestyle=":")
    ax.text(x1, 2.45, "x = 1.0055: up to the nearest (bf16: 1 + 2^-7; fp16: 1 + 6 x 2^-10)",
            color=RED, ha="left", fontsize=10.5)
    ax.text(tie, 1.4, "x = 1 + 2.5 x 2^-7: a tie in bf16, to the even neighbour (1 + 2 x 2^-7);\n"
            "exact in fp16", color=GREEN, ha="center", va="bottom", fontsize=10.5)
    ax.set_xlim(lo - 0.012, hi + 0.001)
    ax.set_ylim(-0.4, 2.8)
    ax.axis("off")
    save(fig, out, "09_rounding.svg")


# ---- lesson 13 ----------------------------------------------------------------------------

def fig_dp_step(out):
    """One data-parallel step with 4 replicas."""
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    ax.axis("off")
    box(ax, 0, 0.9, 1.0, 1.6, face=LIGHT, text="batch", size=10.5)
    for r in range(4):
        y = 2.6 - r * 0.75
        box(ax, 1.45, y, 1.0, 0.5, face=SKY, text=f"shard {r}", size=10.5)
        arrow(ax, 1.0, 1.7, 1.43, y + 0.25, GREY, 1.0)
        box(ax, 2.85, y, 1.5, 0.5, face="white", text=f"replica {r}", size=10.5)
        arrow(ax, 2.47, y + 0.25, 2.83, y + 0.25, INK, 1.0)
        box(ax, 4.75, y, 0.6, 0.5, face=ORANGE, text=f"g{r}", size=10.5)
        arrow(ax, 4.37, y + 0.25, 4.73, y + 0.25, INK, 1.0)
        arrow(ax, 5.37, y + 0.25, 5.83, 1.7, GREY, 1.0)
        box(ax, 7.75, y, 1.2, 0.5, face=GREEN, text="update", size=10.5, color="white")
        arrow(ax, 7.27, 1.7, 7.73, y + 0.25, GREY, 1.0)
    box(ax, 5.85, 1.15, 1.4, 1.1, face=ORANGE, text="all-reduce\nmean", size=10.5)
    ax.text(3.6, 3.25, "fwd + bwd", ha="center", fontsize=10.5)
    ax.text(5.05, 3.25, "gradients", ha="center", fontsize=10.5)
    ax.text(4.5, 0.05, "mean over 4 equal shards = the gradient of the whole batch, so every "
            "replica makes the same update", ha="center", fontsize=10.5)
    ax.set_xlim(-0.05, 9.0)
    ax.set_ylim(0.0, 3.55)
    save(fig, out, "13_dp_step.svg")


def ring_states(R):
    """The contributors to each worker's copy of each chunk, after each step of a ring
    all-reduce: reduce-scatter (R - 1 steps) then all-gather (R - 1 steps)."""
    have = [[{w} for _ in range(R)] for w in range(R)]  # have[w][c]: whose data is summed in
    states = [[[len(s) for s in row] for row in have]]
    for step in range(R - 1):  # reduce-scatter: w sends chunk (w - step) to w + 1, which adds
        sent = [(w, (w - step) % R, set(have[w][(w - step) % R])) for w in range(R)]
        for w, c, s in sent:
            have[(w + 1) % R][c] |= s
        states.append([[len(s) for s in row] for row in have])
    for step in range(R - 1):  # all-gather: w passes its complete chunk (w + 1 - step) on
        sent = [(w, (w + 1 - step) % R, set(have[w][(w + 1 - step) % R])) for w in range(R)]
        for w, c, s in sent:
            have[(w + 1) % R][c] = s
        states.append([[len(s) for s in row] for row in have])
    return states


def fig_ring_allreduce(out):
    """A ring all-reduce over 4 workers: how many gradients each chunk holds, step by step."""
    R = 4
    states = ring_states(R)
    shown = [(0, "start"), (1, "RS step 1"), (R - 1, "after RS\n(3 steps)"),
             (2 * R - 2, "after AG\n(3 more)")]
    fig, axes = plt.subplots(1, len(shown) + 1, figsize=(WIDTH, 2.1),
                             gridspec_kw={"width_ratios": [1.1] + [1] * len(shown)})
    ax = axes[0]
    blank(ax)
    for w in range(R):
        a = math.pi / 2 - w * 2 * math.pi / R
        b = math.pi / 2 - (w + 1) * 2 * math.pi / R
        ax.add_patch(patches.Circle((math.cos(a), math.sin(a)), 0.3, facecolor=SKY,
                                    edgecolor=INK))
        ax.text(math.cos(a), math.sin(a), str(w), ha="center", va="center", fontsize=12)
        ax.annotate("", xy=(0.62 * math.cos(b) + 0.1 * math.cos(a),
                            0.62 * math.sin(b) + 0.1 * math.sin(a)),
                    xytext=(0.62 * math.cos(a) + 0.1 * math.cos(b),
                            0.62 * math.sin(a) + 0.1 * math.sin(b)),
                    arrowprops=dict(arrowstyle="->", color=INK, linewidth=1.3))
    ax.set_xlim(-1.4, 1.4)
    ax.set_ylim(-1.4, 1.4)
    ax.set_title("4 workers", fontsize=12)
    shade = {1: "white", 2: "#CFE6F5", 3: SKY, 4: BLUE}
    for ax, (i, title) in zip(axes[1:], shown):
        blank(ax)
        for w in range(R):
            for c in range(R):
                n = states[i][w][c]
                box(ax, c, R - 1 - w, 1, 1, face=shade[n], edge=GREY, lw=0.6, text=str(n),
                    size=11, color="white" if n == R else INK)
        ax.set_xlim(-0.1, R + 0.1)
        ax.set_ylim(-0.1, R + 0.1)
        ax.set_title(title, fontsize=11)
    fig.text(0.5, 0.08, "rows: workers; columns: the 4 chunks of the gradient; number: how many "
             "workers' gradients\nthe copy sums. RS: reduce-scatter, AG: all-gather.",
             ha="center", va="top", fontsize=10.5)
    save(fig, out, "13_ring_allreduce.svg")


# ---- the roofline (lessons 01 to 05, 08) ----------------------------------------------------

# ---- lesson 06 ----------------------------------------------------------------------------

def tree_pairs(form, n, d):
    """The (destination, source) words of one level of a tree reduction of n words at stride d,
    in the three indexings of lesson 06, and the threads that do them."""
    if form == "divergent":
        return [(t, t + d, t) for t in range(0, n, 2 * d)]
    if form == "conflicted":
        return [(2 * d * t, 2 * d * t + d, t) for t in range(n // (2 * d))]
    return [(t, t + d, t) for t in range(d)]


def fig_reduction_tree(out):
    """A 16-word tree reduction, level by level, in the divergent, conflicted and sequential
    indexings: which word each busy thread adds into which, and the threads that are busy."""
    n = 16
    forms = (("divergent", "t % 2d == 0:  s[t] += s[t+d]", (1, 2, 4, 8)),
             ("conflicted", "s[2dt] += s[2dt+d]", (1, 2, 4, 8)),
             ("sequential", "t < d:  s[t] += s[t+d]", (8, 4, 2, 1)))
    fig, axes = plt.subplots(3, 1, figsize=(WIDTH, 5.2))
    for ax, (form, rule, strides) in zip(axes, forms):
        blank(ax)
        for level, d in enumerate(strides):
            y = -level * 1.4
            cells(ax, 0, y, 1, n, 1.0, edge=GREY)
            for dst, src, t in tree_pairs(form, n, d):
                ax.add_patch(patches.Rectangle((dst, y - 1), 1, 1, facecolor=ORANGE,
                                               edgecolor=GREY, linewidth=0.5))
                ax.annotate("", xy=(dst + 0.5, y - 1.35), xytext=(src + 0.5, y - 1.0),
                            arrowprops=dict(arrowstyle="->", color=BLUE, linewidth=0.8))
            busy = sorted(t for _, _, t in tree_pairs(form, n, d))
            ax.text(n + 0.4, y - 0.5, f"d = {d}: threads {busy[0]} .. {busy[-1]}"
                    if len(busy) > 1 else f"d = {d}: thread {busy[0]}", fontsize=11, va="center")
        ax.set_xlim(-0.2, n + 8)
        ax.set_ylim(-len(strides) * 1.4 - 0.3, 0.3)
        ax.set_title(f"{form}:  {rule}", fontsize=12)
    legend = [patches.Patch(facecolor=ORANGE, edgecolor=GREY, label="word written at this level"),
              plt.Line2D([], [], color=BLUE, label="word added into it")]
    fig.legend(handles=legend, loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.01))
    save(fig, out, "06_reduction_tree.svg")


def scan_steps(kind, n):
    """The steps of a scan network over n words: per step, the (source, destination) pairs
    (Kogge-Stone: every word adds the one d back; Brent-Kung: up-sweep then down-sweep)."""
    steps, d = [], 1
    if kind == "Kogge-Stone":
        while d < n:
            steps.append([(i - d, i) for i in range(d, n)])
            d *= 2
        return steps
    while d < n:
        steps.append([(k - d, k) for k in range(2 * d - 1, n, 2 * d)])
        d *= 2
    d = n // 4
    while d >= 1:
        steps.append([(k, k + d) for k in range(2 * d - 1, n - d, 2 * d)])
        d //= 2
    return steps


def fig_scan_networks(out):
    """Kogge-Stone against Brent-Kung over 16 words: each step's additions, and their counts."""
    n = 16
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 3.6))
    for ax, kind in zip(axes, ("Kogge-Stone", "Brent-Kung")):
        steps = scan_steps(kind, n)
        adds = sum(len(s) for s in steps)
        for i in range(n):
            ax.plot([i, i], [0, -len(steps)], color=LIGHT, linewidth=1, zorder=0)
        for level, pairs in enumerate(steps):
            for src, dst in pairs:
                ax.annotate("", xy=(dst, -level - 1), xytext=(src, -level),
                            arrowprops=dict(arrowstyle="->", color=BLUE, linewidth=0.8))
                ax.plot(dst, -level - 1, "o", color=ORANGE, markersize=3.5)
        ax.set_xlim(-0.8, n - 0.2)
        ax.set_ylim(-len(steps) - 0.4, 0.4)
        ax.set_xticks(range(0, n, 3))
        ax.set_yticks([-s for s in range(len(steps) + 1)], range(len(steps) + 1))
        ax.set_xlabel("word")
        ax.set_ylabel("step")
        ax.set_title(f"{kind}: {len(steps)} steps, {adds} additions", fontsize=11)
    save(fig, out, "06_scan_networks.svg")


def fig_scan_phases(out):
    """A scan of 6 tiles: the three phases, then the look-back of tile 5 over published flags."""
    fig, axes = plt.subplots(2, 1, figsize=(WIDTH, 4.6), gridspec_kw={"height_ratios": [1.2, 1]})
    ax = axes[0]
    blank(ax)
    tiles = 6
    for phase, (label, color) in enumerate((("1: scan each tile, write its total", SKY),
                                            ("2: scan the tile totals", ORANGE),
                                            ("3: add each tile's offset", GREEN))):
        y = -phase * 1.2
        for t in range(tiles):
            if phase == 1:
                box(ax, 3 + t * 0.6, y, 0.6, 0.8, face=color, edge=INK, lw=0.8)
            else:
                box(ax, t * 2, y, 2, 0.8, face=color, edge=INK, lw=0.8, text=f"tile {t}", size=9)
        ax.text(tiles * 2 + 0.3, y + 0.4, label, va="center", fontsize=10)
    ax.set_xlim(-0.1, tiles * 2 + 6.5)
    ax.set_ylim(-2.6, 1.0)
    ax.set_title("three phases: the array is read and written twice", fontsize=11)
    ax = axes[1]
    blank(ax)
    flags = ["P", "P", "A", "A", "A", "-"]
    faces = {"P": GREEN, "A": ORANGE, "-": "white"}
    for t, f in enumerate(flags):
        box(ax, t * 2, 0, 2, 0.9, face=faces[f], edge=INK, lw=0.8, text=f"tile {t}: {f}", size=9)
    for t in (4, 3, 2, 1):  # tile 5 reads flags 4, 3, 2 (aggregates) and 1 (a prefix: stop)
        ax.annotate("", xy=(t * 2 + 1, 0.95), xytext=(11, 0.95),
                    arrowprops=dict(arrowstyle="->", color=BLUE, linewidth=1.0,
                                    connectionstyle="arc3,rad=0.35"))
    ax.text(12.3, 0.45, "tile 5 adds the aggregates of\n4, 3, 2 and the prefix of 1",
            fontsize=10, va="center", color=BLUE)
    ax.text(0, -0.55, "P: inclusive prefix published (the walk stops)   A: aggregate only (add "
            "it, go on)   -: running", fontsize=9)
    ax.set_xlim(-0.1, tiles * 2 + 6.5)
    ax.set_ylim(-0.9, 3.2)
    ax.set_title("decoupled look-back: one pass", fontsize=11)
    save(fig, out, "06_scan_phases.svg")


def fig_private_histograms(out):
    """Three blocks' private histograms (8 of the 256 bins drawn) merged into the global one."""
    counts = [[3, 1, 4, 1, 5, 0, 2, 6], [2, 7, 1, 0, 2, 8, 1, 8], [0, 3, 1, 4, 1, 5, 9, 2]]
    fig, axes = plt.subplots(1, 4, figsize=(WIDTH, 2.6), sharey=True)
    colors = (SKY, ORANGE, GREEN)
    for b, (ax, c) in enumerate(zip(axes, counts)):
        ax.bar(range(8), c, color=colors[b], edgecolor=INK, linewidth=0.5)
        ax.set_title(f"block {b}: shared", fontsize=10)
        ax.set_xticks(range(0, 8, 2))
    bottom = [0] * 8
    for b, c in enumerate(counts):
        axes[3].bar(range(8), c, bottom=bottom, color=colors[b], edgecolor=INK, linewidth=0.5)
        bottom = [x + y for x, y in zip(bottom, c)]
    axes[3].set_title("global: merged", fontsize=10)
    axes[3].set_xticks(range(0, 8, 2))
    fig.text(0.5, -0.04, "bin (8 of 256 drawn); each block adds a non-empty bin to global memory "
             "with one atomic, once", ha="center", fontsize=10)
    save(fig, out, "06_private_histograms.svg")


# ---- lesson 11 ----------------------------------------------------------------------------

def online_states(xs):
    """The online softmax's state after each element of @p xs: (max, rescaled sum) pairs."""
    m, total, states = -math.inf, 0.0, []
    for x in xs:
        new = max(m, x)
        total = total * math.exp(m - new) + math.exp(x - new)
        m = new
        states.append((m, total))
    return states


def fig_online_softmax(out):
    """A row of logits read once: the running max, and the sum rescaled each time it grows."""
    xs = [1.0, 0.5, 2.5, 2.0, -1.0, 4.0, 3.5, 1.5, 4.5, 0.0, 2.0, 3.0]
    states = online_states(xs)
    final = sum(math.exp(x - states[-1][0]) for x in xs)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(WIDTH, 4.6), sharex=True)
    j = list(range(1, len(xs) + 1))
    top.plot(j, xs, "o", color=BLUE, label="logit $x_j$")
    top.step(j, [m for m, _ in states], where="post", color=ORANGE, linewidth=2,
             label="running max $m_j$")
    top.set_ylabel("value")
    top.legend(loc="lower right", ncol=2)
    grew = [i for i in range(1, len(xs)) if states[i][0] > states[i - 1][0]]
    bottom.plot(j, [t for _, t in states], "o-", color=GREEN)
    for i in grew:  # each new max multiplies the sum so far by exp(m_old - m_new)
        factor = math.exp(states[i - 1][0] - states[i][0])
        bottom.annotate(f"\u00d7 {factor:.2f}", xy=(i + 1, states[i][1]), xytext=(i + 0.55, 3.45),
                        fontsize=10, color=RED, arrowprops=dict(arrowstyle="->", color=RED))
    bottom.axhline(final, color=GREY, linestyle="--")
    bottom.text(1.0, 0.25, r"dashed: $\sum_j e^{x_j - m}$ computed at the end, the same value",
                fontsize=10, color=GREY)
    bottom.text(8.6, 1.6, "running sum $s_j$", fontsize=11, color=GREEN)
    bottom.set_ylim(0, 3.9)
    bottom.set_xticks(j)
    bottom.set_xlabel("element j, in the order read")
    bottom.set_ylabel("sum of $e^{x - m_j}$")
    save(fig, out, "11_online_softmax.svg")


def attention_bytes(n, d, fused):
    """Bytes one head moves to and from global memory: Q, K, V read and O written (fp16), and
    unfused also S written, read, P written, read (fp32)."""
    return 4 * 2 * n * d + (0 if fused else 4 * 4 * n * n)


def fig_attention_bytes(out):
    """Global-memory bytes per head of attention, unfused and fused, against the sequence."""
    ns = [2 ** k for k in range(7, 16)]
    fig, ax = plt.subplots(figsize=(WIDTH, 3.8))
    for d, style in ((64, "-"), (128, "--")):
        ax.plot(ns, [attention_bytes(n, d, False) for n in ns], style, color=RED, marker="o",
                label=f"unfused, d = {d}: $8Nd + 16N^2$")
        ax.plot(ns, [attention_bytes(n, d, True) for n in ns], style, color=BLUE, marker="o",
                label=f"fused, d = {d}: $8Nd$")
    # What the fused kernel reads again from L2: K and V once per block of 64 queries.
    ax.plot(ns, [2 * n * 64 + 2 * (n // 64) * 2 * n * 64 + 2 * n * 64 for n in ns], ":",
            color=BLUE, label="fused, d = 64, K and V re-read per 64 queries (L2)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("sequence length N (n_q = n_k)")
    ax.set_ylabel("bytes per head")
    ax.legend(fontsize=10, loc="upper left")
    save(fig, out, "11_attention_bytes.svg")


def read_bench(paths):
    """{version: best GFLOP/s} over the GEMM-like rows of benchmark CSV files."""
    best = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                try:
                    g = float(row.get("gflops") or 0)
                except ValueError:
                    continue
                v = row.get("version", "")
                if g > 0 and g > best.get(v, 0):
                    best[v] = g
    return best


def fig_roofline(out, bench):
    """The H100's roofline with the course's kernels at their intensity, the time model's
    estimates, and measured points."""
    fig, ax = plt.subplots(figsize=(WIDTH, 4.6))
    xs = [2 ** (i / 8) for i in range(-40, 81)]
    ax.plot(xs, [min(PEAK_FP32, x * HBM_BW) / 1e12 for x in xs], color=INK, linewidth=2,
            label="FP32 roof: 67 TFLOP/s, HBM 3.35 TB/s")
    ax.plot(xs, [min(PEAK_FP16_TC, x * HBM_BW) / 1e12 for x in xs], color=GREY, linewidth=1.5,
            linestyle="--", label="FP16 Tensor Core roof: 989 TFLOP/s")
    measured, model = read_bench(bench), model_h100()
    groups = {}  # kernels at the same intensity share one label, a line per lesson
    for name, lesson, ai, tc in KERNELS:
        groups.setdefault(ai, {}).setdefault(lesson, []).append(name)
        roof = min(PEAK_FP16_TC if tc else PEAK_FP32, ai * HBM_BW) / 1e12
        ax.plot([ai], [roof], marker="D" if tc else "o", color=ORANGE if tc else BLUE,
                markersize=6 if tc else 10, markeredgecolor=INK, linestyle="none", zorder=3)
        if name in model:
            ax.plot([ai], [model[name] / 1e3], marker="s", color=GREEN, markersize=7,
                    markeredgecolor=INK, linestyle="none", zorder=4)
        if name in measured:
            ax.plot([ai], [measured[name] / 1e3], marker="*", color=RED, markersize=12,
                    markeredgecolor=INK, linestyle="none")
    for ai, names in groups.items():
        roof = min(PEAK_FP32 if ai < 64 else PEAK_FP16_TC, ai * HBM_BW) / 1e12
        left = ai == 16  # above the slope, clear of its neighbours' labels below it
        label = "\n".join(f"{', '.join(n)} ({lesson})" for lesson, n in names.items())
        ax.annotate(label, (ai, roof), textcoords="offset points",
                    xytext=(-8, 4) if left else (7, -3 if ai == 32 else -6),
                    ha="right" if left else "left",
                    va="bottom" if left else "top", fontsize=9.5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("arithmetic intensity: FLOP per byte of global-memory accesses")
    ax.set_ylabel("TFLOP/s (roofs: at most)")
    ax.set_xlim(2 ** -5, 2 ** 10)
    ax.set_ylim(0.05, 3000)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(plt.Line2D([], [], marker="o", color=BLUE, markeredgecolor=INK,
                              markersize=10, linestyle="none"))
    labels.append("course kernel, CUDA cores (at its roof)")
    handles.append(plt.Line2D([], [], marker="D", color=ORANGE, markeredgecolor=INK,
                              markersize=6, linestyle="none"))
    labels.append("course kernel, Tensor Cores")
    handles.append(plt.Line2D([], [], marker="s", color=GREEN, markeredgecolor=INK,
                              markersize=7, linestyle="none"))
    labels.append("model estimate at 4096 (emulator, not measured)")
    if measured:
        handles.append(plt.Line2D([], [], marker="*", color=RED, markeredgecolor=INK,
                                  markersize=12, linestyle="none"))
        labels.append("measured (--bench CSV)")
    ax.legend(handles, labels, loc="upper left", fontsize=10)
    ax.set_title("Roofline of an H100 SXM (data-sheet peaks)", fontsize=12)
    save(fig, out, "roofline.svg")


def save(fig, out, name):
    """Write @p fig as out/name (as out/STEM.pdf under --pdf), with reproducible metadata."""
    path = out / name
    if as_pdf:
        path = path.with_suffix(".pdf")
    fig.savefig(path, metadata=METADATA[path.suffix[1:]])
    plt.close(fig)
    print(path)


FIGURES = {
    "02_index_maps.png": fig_index_maps,
    "02_sectors.svg": fig_sectors,
    "03_tile_sliding.svg": fig_tile_sliding,
    "03_bank_maps.png": fig_bank_maps,
    "04_thread_tiles.svg": fig_thread_tiles,
    "05_warp_tiles.svg": fig_warp_tiles,
    "08_wmma_fragment.svg": fig_wmma_fragment,
    "08_double_buffer.svg": fig_double_buffer,
    "08_formats.svg": fig_formats,
    "10_mma_fragments.svg": fig_mma_fragments,
    "10_swizzle_banks.svg": fig_swizzle_banks,
    "10_pipeline_timeline.svg": fig_pipeline,
    "12_tensor_map_box.svg": fig_tensor_map_box,
    "12_ws_timeline.svg": fig_ws_timeline,
    "09_number_line.svg": fig_number_line,
    "09_rounding.svg": fig_rounding,
    "13_dp_step.svg": fig_dp_step,
    "13_ring_allreduce.svg": fig_ring_allreduce,
    "06_reduction_tree.svg": fig_reduction_tree,
    "06_scan_networks.svg": fig_scan_networks,
    "06_scan_phases.svg": fig_scan_phases,
    "06_private_histograms.svg": fig_private_histograms,
    "07_timeline.svg": fig_timeline,
    "11_online_softmax.svg": fig_online_softmax,
    "11_attention_bytes.svg": fig_attention_bytes,
}


def pinned_python():
    """A python whose matplotlib is MATPLOTLIB: this one, else /usr/bin/python3; or None."""
    for python in (sys.executable, "/usr/bin/python3"):
        r = subprocess.run([python, "-c", "import matplotlib; print(matplotlib.__version__)"],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == MATPLOTLIB:
            return python
    return None


def check(committed, python):
    """Draw every figure with @p python into a temporary folder and compare it with the folder
    @p committed byte for byte: 0 when all match, else 1 naming the first difference."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([python, __file__, tmp], check=True, stdout=subprocess.DEVNULL)
        drawn = {p.name for p in pathlib.Path(tmp).iterdir()}
        kept = {p.name for p in committed.iterdir() if p.suffix in (".svg", ".png")}
        problems = []
        for name in sorted(drawn | kept):
            if name not in kept:
                problems.append(f"{committed / name} is missing")
            elif name not in drawn:
                problems.append(f"{committed / name} is drawn by no function of figures.py")
            elif not filecmp.cmp(pathlib.Path(tmp) / name, committed / name, shallow=False):
                problems.append(f"{committed / name} differs from what figures.py draws")
    if problems:
        print(f"FAIL {problems[0]} ({len(problems)} in all; ./course figures redraws "
              f"them, with matplotlib {MATPLOTLIB})")
        return 1
    print(f"figures: {len(drawn)} files in {committed} match figures.py (matplotlib {MATPLOTLIB})")
    return 0


def draw(out, only, bench):
    """Draw the figures named in @p only (all when empty) into @p out; 2 on an unknown name."""
    names = list(FIGURES) + ["roofline.svg"]
    unknown = [n for n in only if n not in names]
    if unknown:
        print(f"figures.py: no figure {unknown[0]}; the figures are: {' '.join(names)}",
              file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    for name in only or names:
        if name == "roofline.svg":
            fig_roofline(out, bench)
        else:
            FIGURES[name](out)
    return 0


def main():
    global as_pdf
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="folder for the figures (./course figures: "
                        "docs/figures)")
    parser.add_argument("--bench", nargs="*", default=[], help="benchmark CSV files")
    parser.add_argument("--only", nargs="*", default=[], help="draw only these figures")
    parser.add_argument("--pdf", action="store_true", help="every figure as PDF (for slides)")
    parser.add_argument("--check", metavar="DIR", help="compare DIR with a fresh drawing")
    args = parser.parse_args()
    if bool(args.out) == bool(args.check):
        parser.error("give OUT or --check DIR")
    python = pinned_python()
    if args.check:
        if python is None:
            print(f"SKIPPED: docs/figures was drawn with matplotlib {MATPLOTLIB}, and no python "
                  f"here has it (apt-get install python3-matplotlib on Debian 12 or Ubuntu 24.04)")
            return 77
        return check(pathlib.Path(args.check), python)
    if python and python != sys.executable:  # draw the bytes that docs/figures holds
        return subprocess.run([python, __file__, *sys.argv[1:]]).returncode
    if not load():
        print("matplotlib is not installed: apt-get install python3-matplotlib "
              "(or python3 -m pip install matplotlib)", file=sys.stderr)
        return 2
    as_pdf = args.pdf
    return draw(pathlib.Path(args.out), args.only, args.bench)


if __name__ == "__main__":
    sys.exit(main())
