#!/usr/bin/env python3
"""tools/plot.py: charts from a small benchmark CSV, and one line plus exit 2 without matplotlib.

Exit 0 when both checks pass; 77 (skipped) when matplotlib is not installed, after checking
the missing-matplotlib message; 1 on a failure.
"""
import importlib.util
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
PLOT = ROOT / "tools" / "plot.py"
HEADER = "lesson,device,version,m,n,k,ms,gflops,gbs,pct_baseline,pct_peak,check\n"
DEV = '"NVIDIA Test GPU"'


def sample_csv(path):
    """Two sizes of a GEMM ladder across lessons, plus rows that are not GEMMs."""
    lines = [HEADER]
    for size, scale in ((1024, 0.5), (2048, 1.0)):
        for lesson, version, gflops in (
                ("01_cpu_reference", "matmul_blocked", 20),
                ("02_threads_blocks_grids", "cublas_sgemm", 40000),
                ("02_threads_blocks_grids", "matmul_coalesced", 2000),
                ("03_shared_memory_tiling", "matmul_tiled", 6000),
                ("04_register_tiling", "matmul_2d_tile", 22000),
                ("05_warp_level", "cublas_sgemm", 41000),
                ("05_warp_level", "matmul_warptile", 36000)):
            g = gflops * scale
            pct = 100.0 * g / (41000 * scale)
            dev = '"CPU"' if lesson.startswith("01") else DEV
            lines.append(f'{lesson},{dev},{version},{size},{size},{size},1.0,{g:.3f},0.000,'
                         f'{pct:.2f},0.00,"ok"\n')
        lines.append(f'03_shared_memory_tiling,{DEV},transpose_shared,{size},{size},{size},0.1,'
                     f'0.000,1500.000,0.00,50.00,"ok"\n')
        lines.append(f'05_warp_level,{DEV},gemv_warp,{size},{size},{size},0.1,300.000,'
                     f'2900.000,95.00,90.00,"ok"\n')
    path.write_text("".join(lines))


def check_missing_matplotlib(csv, out):
    """With matplotlib hidden, plot.py prints one line and exits 2."""
    code = ("import runpy, sys; sys.modules['matplotlib'] = None; "
            f"sys.argv = ['plot.py', {str(csv)!r}, '--out', {str(out)!r}]; "
            f"runpy.run_path({str(PLOT)!r}, run_name='__main__')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = (r.stdout + r.stderr).strip().splitlines()
    want = "matplotlib is not installed: python3 -m pip install matplotlib"
    if r.returncode != 2 or lines != [want]:
        print(f"FAIL without matplotlib: exit {r.returncode}, output {lines!r}")
        return False
    return True


def check_charts(csv, out):
    """With matplotlib, plot.py writes ladder.png and one NN_sizes.png per lesson."""
    r = subprocess.run([sys.executable, str(PLOT), str(csv), "--out", str(out)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL plot.py exit {r.returncode}: {r.stderr.strip()}")
        return False
    want = ["ladder.png"] + [f"0{n}_sizes.png" for n in range(1, 6)]
    ok = True
    for name in want:
        path = out / name
        if not path.exists() or path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
            print(f"FAIL {name} is missing or not a PNG")
            ok = False
    return ok


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        csv = tmp / "results.csv"
        sample_csv(csv)
        ok = check_missing_matplotlib(csv, tmp / "none")
        if importlib.util.find_spec("matplotlib") is None:
            print("SKIPPED the charts: matplotlib is not installed")
            return 77 if ok else 1
        ok = check_charts(csv, tmp / "charts") and ok
    print("plot.py: ok" if ok else "plot.py: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
