#!/usr/bin/env python3
"""tools/gpu_report.py --apply: a GPU report's tables land in the lessons' "Measured" sections,
once (a second apply replaces the first), and a report from the emulator is refused. A report
names each step that did not run and why (--skip, --budget), and an unknown step is refused.
ncu's counters meet the emulator's by kernel name, only where both ran the same launch. The model's
column pairs a version benchmarked twice with its kernel's last two launches, in order.

Exit 0 when every check passes, 1 on the first failure.
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
TOOL = ROOT / "tools" / "gpu_report.py"
LESSON = "03_shared_memory_tiling"
HEADER = "lesson,device,version,m,n,k,ms,gflops,gbs,pct_baseline,pct_peak,check,model_ms\n"


def fake_report(folder, device_line, ms):
    folder.mkdir()
    (folder / "report.md").write_text(f"# Course validation report\n\n- date: 2026-11-25 10:00 UTC\n"
                                      f"- commit: 0123456789abcdef\n- kernels ran on: {device_line}\n")
    rows = [f'{LESSON},"NVIDIA H100 80GB HBM3",matmul_tiled,4096,4096,4096,{ms},1.0,0,12.0,0,ok,\n',
            f'{LESSON},"NVIDIA H100 80GB HBM3",cublas_sgemm,4096,4096,4096,2.5,1.0,0,100,0,ok,\n']
    (folder / "bench.csv").write_text(HEADER + "".join(rows))


def apply(root, report):
    return subprocess.run([sys.executable, str(TOOL), "--root", str(root), "--build", str(root),
                           "--apply", str(report)], capture_output=True, text=True)


def run_report(root, out, *flags):
    return subprocess.run([sys.executable, str(TOOL), "--root", str(root), "--build", str(root), "--device",
                           "emulator", "--out", str(out), *flags], capture_output=True, text=True)


def check_skipped(tmp):
    """Every step left out by --skip, or not started once --budget is spent, says so."""
    for flags, why in ((["--skip", "probes,bench,suite,model,ncu,differential,sanitize"], "left out with --skip"),
                       (["--budget", "0"], "the budget (--budget) was spent")):
        out = tmp / flags[0][2:]
        p = run_report(tmp, out, *flags)
        text = (out / "report.md").read_text() if (out / "report.md").exists() else ""
        if text.count(f"Not run: {why}.") != 7 or not (out / "logs.tar.gz").exists():
            fail(f"{' '.join(flags)}: the report does not name seven steps as {why} (exit {p.returncode}: {p.stderr})")
    p = run_report(tmp, tmp / "bad", "--skip", "bench,warp")
    if p.returncode != 2 or "unknown step 'warp'" not in p.stderr:
        fail(f"--skip warp was not refused (exit {p.returncode}: {p.stderr})")


def check_ncu_join():
    """ncu names kernels with their parameters; a launch of another shape is not compared."""
    sys.path.insert(0, str(TOOL.parent))
    import gpu_report
    metrics = list(gpu_report.NCU_METRICS.values()) + list(gpu_report.NCU_LAUNCH.values())
    head = ",".join(f'"{m}"' for m in ["Kernel Name"] + metrics)
    def line(name, value, blocks):
        return ",".join(f'"{v}"' for v in [name] + [value] * len(gpu_report.NCU_METRICS) + [blocks, 256])
    text = "\n".join(["==PROF== noise", head, line("tiled(int, const float *)", 7, "1,300"),
                      line("copy(const float *)", 9, 40), line("sm90_xmma_gemm", 5, 8)])
    counts = dict.fromkeys(gpu_report.NCU_METRICS, "7")
    emu = {"tiled": dict(counts, grid="13x25x4", block="256x1x1"), "copy": dict(counts, grid="41x1x1", block="256x1x1")}
    rows = {(r[1].split("(")[0], r[2]): r[5] for r in gpu_report.ncu_rows("03", emu, text)}
    if rows.get(("tiled", "gld_sectors")) != "yes" or not rows.get(("tiled", "warp_insts"), "").startswith("1.00"):
        fail(f"a kernel named with its parameters did not meet its emulator row: {rows}")
    if not rows.get(("copy", "gld_sectors"), "").startswith("not compared"):
        fail(f"a launch of another shape was compared: {rows}")
    if not rows.get(("sm90_xmma_gemm", "gld_sectors"), "").startswith("not counted"):
        fail(f"a library's kernel was not named as such: {rows}")


def check_model_pairs(tmp):
    """Lesson 06's histograms run twice (uniform, then a hot bin), in rows as the emulator writes
    them (a row a kernel launched, no time): each row of the version's kernel gets its own launch,
    a helper's or a library's row says it is not modelled."""
    sys.path.insert(0, str(TOOL.parent))
    import argparse
    import gpu_report
    args = argparse.Namespace(root=str(tmp), build=str(tmp), device="emulator", out=str(tmp), budget=None)
    rep = gpu_report.Report(args)
    lesson = "06_parallel_patterns"
    rep.bench_rows = [{"lesson": lesson, "device": "emu", "version": v, "kernel": k}
                      for v, k in (("histogram_global", "zero_bins_kernel"),
                                   ("histogram_global", "histogram_global_kernel"),
                                   ("histogram_cub", "cub::DeviceHistogramSweepKernel"),
                                   ("histogram_global", "zero_bins_kernel"),
                                   ("histogram_global", "histogram_global_kernel"))]
    launches = [("histogram_global_kernel", 0.005, "atomic"), ("histogram_global_kernel", 0.136, "atomic"),
                ("histogram_global_kernel", 17.0, "atomic")]
    gpu_report.model_times = lambda rep, lesson, flags, gpu: launches
    gpu_report.bench_table = lambda rep: None
    gpu_report.model(rep)
    got = [r["model_ms"] for r in rep.bench_rows]
    if got != ["not modelled: not histogram_global_kernel", "0.136 (h100 model)",
               "not modelled: not histogram_cub_kernel", "not modelled: not histogram_global_kernel",
               "17 (h100 model)"]:
        fail(f"the model's column did not pair each row with its own launch: {got}")


def check_model_gpu():
    """On a GPU, the model's row is the one course_probes --row-of gives nvidia-smi's first name."""
    sys.path.insert(0, str(TOOL.parent))
    import gpu_report
    import os
    import types
    with tempfile.TemporaryDirectory() as tmp:
        for name, body in (("nvidia-smi", "printf 'NVIDIA A100-SXM4-40GB\\nNVIDIA H100 80GB HBM3\\n'"),
                           ("course_probes", 'echo "row of $1" >"$(dirname "$0")/asked"; echo a100-40gb')):
            path = pathlib.Path(tmp) / name
            path.write_text(f"#!/bin/sh\n{body}\n")
            path.chmod(0o755)
        old = os.environ["PATH"]
        os.environ["PATH"] = f"{tmp}:{old}"
        try:
            row = gpu_report.model_gpu(types.SimpleNamespace(device="gpu", bin=tmp))
        finally:
            os.environ["PATH"] = old
        asked = (pathlib.Path(tmp) / "asked").read_text().strip()
        if row != "a100-40gb" or asked != "row of --row-of=NVIDIA A100-SXM4-40GB":
            fail(f"the model's row on a GPU: {row!r}, course_probes asked {asked!r}")


def check_clock_row():
    """nvidia-smi's samples while a benchmark ran: the idle ones (reason bit 0x1) and lines cut
    short are left out, the rest summed up with every reason they name."""
    sys.path.insert(0, str(TOOL.parent))
    import gpu_report
    lines = ["345, 80.1, 0x0000000000000001", "1980, 410.5, 0x0000000000000000",
             "1755, 699.8, 0x0000000000000004", "1830, 650.0, 0x0000000000000004", "19", "[N/A], 1, 0x0"]
    row = gpu_report.clock_row("10_mma_pipeline", lines)
    if row != ["10_mma_pipeline", 3, "1755", "1830", "1980", "700", "power cap"]:
        fail(f"the clock samples were not summed up: {row}")
    if gpu_report.clock_row("02", lines[:1])[-1] != "no sample outside idle":
        fail("a lesson sampled only idle did not say so")


def fail(why):
    print(f"test_gpu_report: {why}")
    sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        readme = tmp / "lessons" / LESSON / "README.md"
        readme.parent.mkdir(parents=True)
        shutil.copy(ROOT / "lessons" / LESSON / "README.md", readme)
        fake_report(tmp / "gpu", "the GPU", "20.875")
        p = apply(tmp, tmp / "gpu")
        text = readme.read_text()
        if p.returncode != 0 or "| matmul_tiled | 4096 | 4096 | 4096 | 20.875 |" not in text:
            fail(f"apply did not write the table (exit {p.returncode}: {p.stdout}{p.stderr})")
        if "Measured on NVIDIA H100 80GB HBM3 on 2026-11-25 10:00 UTC at commit `0123456789ab`" not in text:
            fail("the block does not name the device, date and commit")
        if "Not yet measured" in text.split("## Measured", 1)[1].split("\n## ", 1)[0]:
            fail("the section still says it is not yet measured")
        shutil.rmtree(tmp / "gpu")
        fake_report(tmp / "gpu", "the GPU", "19.5")
        apply(tmp, tmp / "gpu")
        text = readme.read_text()
        if text.count("gpu-report: begin") != 1 or "19.5" not in text or "20.875" in text:
            fail("a second apply did not replace the first block")
        fake_report(tmp / "emu", "the CPU emulator (no GPU here): no time, no ncu", "1")
        p = apply(tmp, tmp / "emu")
        if p.returncode == 0 or "holds counts, not times" not in p.stderr:
            fail(f"an emulator report was applied (exit {p.returncode}: {p.stderr})")
        check_skipped(tmp)
        check_model_pairs(tmp)
    check_ncu_join()
    check_clock_row()
    check_model_gpu()
    print("test_gpu_report: apply writes, replaces, and refuses an emulator report; skipped steps are named")


if __name__ == "__main__":
    main()
