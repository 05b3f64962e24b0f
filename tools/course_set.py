#!/usr/bin/env python3
"""The time model against the course's own kernels as a GPU ran them: a validation set.

  tools/course_set.py REPORT [GPU]

REPORT is a folder of `./course gpu-report` from a GPU (docs/gpu-reports/2026-11-30-h200 holds
the H200's); its bench.csv has the GPU's time of every benchmark row. Each lesson's driver runs
once on the CPU emulator at the sizes the GPU ran (SIZES below: the drivers' GPU defaults) with
COURSE_EMU_MODEL=GPU (default h200), registers from ptxas -v and SASS counted when nvdisasm is
found (as ./course estimate does), every block of lesson 06 run (sampling cannot run its
look-back scan). Prints one line per kernel of KERNELS, in tools/model_validation.py's form: the
model's ms, the GPU's, the error (a negative one: the model is faster), the bound and the CPU
seconds of the lesson's whole run (the driver's every version and check). A benchmark row that
times one kernel is one line; the rows of a version the driver benchmarks twice (lesson 06's
histograms: uniform bytes, then half of them in one bin) match that kernel's last launches in
order. Needs a build (build/bin) and nvcc.
"""
import csv
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import estimate  # noqa: E402  (the model's environment and launches)

# The GPU's sizes: each driver's defaults on a GPU (on the emulator they are smaller).
SIZES = {"06": ["--len=67108864"],
         "11": ["--rows=4096", "--cols=4096", "--seq=4096", "--heads=16"]}
# The benchmark rows that time one kernel of the lesson's own, by lesson: its name less _kernel.
KERNELS = {
    "02": ["matmul_naive", "matmul_coalesced"],
    "03": ["matmul_tiled", "transpose_shared", "transpose_shared_padded"],
    "04": ["matmul_1d_tile", "matmul_2d_tile", "matmul_vectorized"],
    "05": ["gemv_warp", "matmul_warptile"],
    "06": ["reduce_atomic", "reduce_tree", "reduce_warp", "reduce_grid", "scan_lookback",
           "histogram_global", "histogram_shared", "histogram_aggregated"],
    "08": ["wmma_naive", "wmma_shared", "wmma_bf16"],
    "10": ["mma_ldmatrix", "mma_swizzled", "mma_pipelined", "mma_bf16"],
    "11": ["softmax_naive", "layernorm", "flash_attention"],
    "12": ["wgmma_tma", "wgmma_pipelined", "wgmma_warp_specialized"],
}


def lesson_dir(nn):
    """The lesson's full name (solutions/NN_*)."""
    return next((ROOT / "solutions").glob(f"{nn}_*")).name


def lesson_sources(nn, build):
    """The folders of lesson @p nn's solution and of the earlier lessons it links (BUILD/links/NN,
    add_lesson's LINK): every kernel its driver launches is in one of them."""
    links = pathlib.Path(build, "links", nn)
    linked = links.read_text().split() if links.exists() else []
    return [ROOT / "solutions" / lesson_dir(x) for x in [nn] + linked]


def lesson_env(nn, gpu, out, build, work):
    """The variables that run lesson @p nn's driver under the time model of @p gpu, its lines to
    @p out (estimate.model_env() with the lesson's sources); every block of lesson 06 run: its
    look-back scan cannot be sampled, and sampled launches leave outputs its checks refuse, which
    stops the driver before its benchmark's launches."""
    nvcc, nvdisasm = estimate.cuda_tools(build)
    env = estimate.model_env(gpu, out, pathlib.Path(build, "emulator", "lib"),
                             lesson_sources(nn, build), nvcc, nvdisasm, work)
    if nn == "06":
        env["COURSE_EMU_MODEL_SAMPLE"] = "0"
    return env


def model_lesson(nn, gpu, build, work):
    """Each launch of lesson @p nn's driver at the GPU's sizes as (kernel, ms, bound), in order,
    and the CPU seconds the run took."""
    exe = build / "bin" / lesson_dir(nn)
    if not exe.exists():
        sys.exit(f"course_set.py: no {exe} (build the course first)")
    out = os.path.join(work, f"model_{nn}.txt")
    env = dict(os.environ, **lesson_env(nn, gpu, out, build, work))
    cpu = out + ".cpu"
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "cpu_seconds.py"), cpu, str(exe),
                          "--reps=1", "--warmup=0", *SIZES.get(nn, ["--size=4096"])],
                         env=env, capture_output=True, text=True)
    launches = estimate.kernel_launches(out)
    if not launches:  # sampled launches leave outputs incomplete: the driver's own checks may fail
        sys.exit(f"course_set.py: lesson {nn}'s driver launched no kernel the model saw "
                 f"(exit {run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return launches, float(pathlib.Path(cpu).read_text().split()[0])


def own_rows(nn, version, bench):
    """Lesson @p nn's rows of @p version in @p bench (bench.csv's dicts) that time or count
    VERSION_kernel: a GPU's rows time the version, the emulator's have a row for each kernel it
    launched (its `kernel` column), a helper's or a library's among them."""
    return [r for r in bench if r["lesson"].startswith(nn) and r["version"] == version
            and estimate.kernel_name(r.get("kernel") or version) in (version, version + "_kernel")]


def paired(nn, version, launches, bench):
    """[(model ms, bound, GPU ms)] for lesson @p nn's @p version: its own rows in @p bench
    (own_rows()) against the last launches of VERSION_kernel in @p launches ((kernel, ms, bound),
    in order), one for one; GPU ms is None for a row with no time (the emulator's); ValueError
    when there are fewer launches than rows."""
    measured = [float(r["ms"]) if r.get("ms") else None for r in own_rows(nn, version, bench)]
    mine = [x for x in launches if x[0] == version + "_kernel"]
    if not measured or len(mine) < len(measured):
        raise ValueError(f"lesson {nn}'s {version}: {len(measured)} GPU rows, "
                         f"{len(mine)} launches of {version}_kernel")
    return [(ms, bound, gpu_ms) for (_, ms, bound), gpu_ms in zip(mine[-len(measured):], measured)]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: tools/course_set.py REPORT [GPU]")
    report = pathlib.Path(sys.argv[1])
    gpu = sys.argv[2] if len(sys.argv) == 3 else "h200"
    with open(report / "bench.csv") as f:
        bench = list(csv.DictReader(f))
    device = bench[-1].get("device", "?") if bench else "?"
    build = pathlib.Path(os.environ.get("BUILD", ROOT / "build"))
    if estimate.cuda_tools(build)[1] is None:
        sys.exit(f"course_set.py: no nvdisasm (on the PATH, beside nvcc or in {build}/nvdisasm, "
                 "where ./course sass installs it): the course's set counts SASS")
    print(f"#   model ms   GPU ms   error  bound    (model, {gpu}; measured: {report}/bench.csv, "
          f"{device})")
    k = 0
    with tempfile.TemporaryDirectory() as work:
        for nn, versions in KERNELS.items():
            launches, seconds = model_lesson(nn, gpu, build, work)
            for version in versions:
                try:
                    rows = paired(nn, version, launches, bench)
                except ValueError as e:
                    sys.exit(f"course_set.py: {e}")
                for ms, bound, gpu_ms in rows:
                    if gpu_ms is None:
                        sys.exit(f"course_set.py: {report}/bench.csv's lesson {nn} {version} "
                                 f"has no GPU time (an emulator's report?)")
                    k += 1
                    print(f"{k:<3} {ms:10.4g} {gpu_ms:8.4g} {100 * (ms - gpu_ms) / gpu_ms:+6.0f}%  "
                          f"{bound:<8} lesson {nn} {version} (its driver's run: {seconds:.1f} s "
                          f"CPU on the emulator)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
