#!/usr/bin/env python3
"""Estimated kernel times on a named GPU, from the CPU emulator's time model (a model, never a
measurement).

  tools/estimate.py --lib DIR [--gpu GPU|FILE] [--regs-from SRC_DIR]... [--size N]
                    [--nvdisasm PATH] [--cuobjdump PATH] -- PROGRAM ARGS

Runs PROGRAM on the emulator (the stand-in libraries in DIR) with COURSE_EMU_MODEL=GPU, so every
launch is modelled (emulator/vm/model.c: occupancy, caches fed the launch's sector stream, a
bound per resource, sampling of the first wave and the tail), and prints one row per launch:
kernel, grid, block, registers, occupancy, estimated ms, GFLOP/s, DRAM GB/s, % of the published
cuBLAS throughput where one is known for this GPU and size, and the bounding resource. Registers
come from ptxas -v on SRC_DIR's .cu files for the GPU's architecture (as tools/sass.py reads
them; one --regs-from per folder, the lesson's and those of the earlier lessons it links);
without SRC_DIR, from PROGRAM's own code for that architecture with --cuobjdump (cuobjdump
--dump-resource-usage on the cubins nvcc embedded), else assumed (32). With --nvdisasm the same
cubins' SASS is counted per source line (tools/sass.py --lines), so the issue bound counts the
instructions the GPU issues; without it, PTX instructions. Sampled launches leave their outputs
incomplete, so the program's own checks and table are not shown. --markdown prints the table a
lesson README's "Estimated (model)" section holds instead: launches of one kernel with one grid
and block in a row merged into one row (their mean time, and how many). A program that labels
its phases (course_emu_mark, emulator/emu.h: lesson 07's driver) is then laid out in time on the
GPU's copy engines and SMs, a row per phase (tools/timeline.py: its stream record, the kernels'
estimates, a model of the host link).

  tools/estimate.py --from FILE [--gpu GPU] [--markdown]

prints the short table `./course run` shows beside the emulator's counts, from the model lines
a program already wrote (COURSE_EMU_MODEL_OUT=FILE): per kernel, its launches, the model's
total ms and bound.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import sass  # noqa: E402  (ptxas_report, demangle)
import timeline  # noqa: E402  (the copy engines and SMs over time, from the stream record)

# Hopper's registers come from sm_90a code: a superset of sm_90's, and the only target that
# holds lesson 12's wgmma and setmaxnreg.
ARCH = {"t4": "75", "a6000": "86", "rtx3090": "86", "a100": "80", "a100-40gb": "80", "l4": "89",
        "h100": "90a", "h200": "90a"}
# The part each name models (emulator/vm/gpus.c), for the tables' labels.
PART = {"t4": "T4", "a6000": "RTX A6000", "rtx3090": "RTX 3090", "a100": "A100 80GB SXM",
        "a100-40gb": "A100 40GB SXM4", "l4": "L4", "h100": "H100 SXM5", "h200": "H200 SXM"}
# Published cuBLAS throughput, GFLOP/s: (gpu, precision, M=N=K) -> (value, source).
CUBLAS = {
    ("a6000", "fp32", 4096): (23249.6, "SGEMM_CUDA README (Simon Boehm), RTX A6000, 4096^3"),
    ("a100", "fp32", 4096): (18140.0, "a public SGEMM_CUDA rerun on an A100, 4096^3 "
                                      "(emulator/MODEL.md)"),
    ("h100", "fp32", 4096): (50989.4, "a public SGEMM_CUDA rerun on an H100, 4096^3 "
                                      "(emulator/MODEL.md)"),
}
# Where the model's measured error is, beside every row.
ERROR = "error: emulator/MODEL.md"
# The validation table (tools/model_validation.py's sets, with their mean absolute error): one
# source for every line that quotes it.
README = pathlib.Path(__file__).resolve().parent.parent / "emulator" / "README.md"


def validation(readme=README):
    """The model's mean absolute error on each validation set, from @p readme's table (its header
    row begins "| set | GPU | kernels | MAE |"); a pointer to emulator/MODEL.md without one."""
    try:
        lines = readme.read_text().splitlines()
    except OSError:
        lines = []
    heads = [i for i, line in enumerate(lines) if line.startswith("| set | GPU | kernels | MAE |")]
    sets = []
    for line in lines[heads[0] + 2:] if heads else []:
        if not line.startswith("|"):
            break
        cells = [c.strip().replace("`", "") for c in line.strip("|").split("|")]
        sets.append(f"{cells[3]} ({cells[0]}, {cells[1]})")
    if not sets:
        return "validation error: emulator/MODEL.md"
    return ("validation, mean absolute error against measurements "
            "(emulator/README.md): " + "; ".join(sets))


def registers(srcs, gpu, nvcc, nvdisasm, work):
    """A "KERNEL REGISTERS" file from ptxas -v on every .cu file of the folders @p srcs, and with
    @p nvdisasm a "KERNEL FILE LINE COUNT ANCHORS IMADS LOADS WAITS" file of their SASS (None
    without); their paths."""
    arch = ARCH.get(gpu, "90a")
    lines, sass_lines = [], []
    for cu in sorted(cu for src in srcs for cu in pathlib.Path(src).glob("*.cu")):
        cubin = os.path.join(work, cu.stem + ".cubin")
        out = subprocess.run([nvcc, "-cubin", f"-arch=sm_{arch}", "-O3", "-std=c++17", "-lineinfo",
                              "-Xptxas", "-v", *sass.include_flags(cu.parent), str(cu), "-o", cubin],
                             capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"estimate.py: nvcc failed on {cu}:\n{out.stderr}")
        lines += [f"{k} {v[0]}" for k, v in sass.ptxas_report(out.stdout + out.stderr).items()]
        if nvdisasm:
            sass_lines += sass.cubin_lines(cubin, nvdisasm)
    return code_files(lines, sass_lines if nvdisasm else None, work)


def code_files(regs, sass_lines, work):
    """@p regs ("KERNEL REGISTERS" lines) and @p sass_lines (None: no SASS) written into @p work
    as the model's COURSE_EMU_MODEL_REGS and COURSE_EMU_MODEL_SASS files; their paths."""
    path = os.path.join(work, "regs.txt")
    pathlib.Path(path).write_text("\n".join(regs) + "\n")
    if sass_lines is None:
        return path, None
    sass_path = os.path.join(work, "sass.txt")
    pathlib.Path(sass_path).write_text("\n".join(sass_lines) + "\n")
    return path, sass_path


def program_code(binary, gpu, nvdisasm, cuobjdump, work):
    """The "KERNEL REGISTERS" file of @p binary's own code for @p gpu's architecture (an
    executable's fat binary, as nvcc built it) and, with @p nvdisasm, its SASS per source line;
    their paths, (None, None) when it holds no such code."""
    cubins = sass.cubins_of(binary, ARCH.get(gpu, "90a"), cuobjdump, pathlib.Path(work, "cubins"))
    if not cubins:
        return None, None
    regs = [f"{k} {v}" for c in cubins for k, v in sass.cubin_registers(c, cuobjdump).items()]
    lines = [line for c in cubins for line in sass.cubin_lines(c, nvdisasm)] if nvdisasm else None
    return code_files(regs, lines, work)


def cuda_tools(build):
    """(nvcc, nvdisasm or None): nvcc from the PATH (else CUDA's usual place); nvdisasm from the
    PATH, beside nvcc, or in BUILD/nvdisasm, where ./course sass installs it."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    nvdisasm = shutil.which("nvdisasm") or shutil.which("nvdisasm", path=os.path.dirname(nvcc))
    found = (p for p in pathlib.Path(build, "nvdisasm").rglob("nvdisasm") if p.is_file())
    return nvcc, nvdisasm or next((str(p) for p in found), None)


def model_env(gpu, out, lib, srcs, nvcc, nvdisasm, work):
    """The variables that run a program under the time model of @p gpu, its lines to @p out, the
    emulator's libraries (@p lib) first; with @p srcs (folders of .cu files) the registers ptxas
    gives their kernels and, with @p nvdisasm, their SASS per line (registers(), files in
    @p work)."""
    env = {"COURSE_EMU_MODEL": gpu, "COURSE_EMU_MODEL_OUT": out,
           "LD_LIBRARY_PATH": os.path.abspath(lib) + ":" + os.environ.get("LD_LIBRARY_PATH", "")}
    if srcs:
        regs, sass_file = registers(srcs, gpu, nvcc, nvdisasm, work)
        env["COURSE_EMU_MODEL_REGS"] = regs
        if sass_file:
            env["COURSE_EMU_MODEL_SASS"] = sass_file
    return env


def kernel_name(name):
    """A demangled kernel's name alone: "void layernorm_kernel<256>(float*, ...)" is
    "layernorm_kernel"."""
    return re.sub(r"<.*>", "", name.split("(")[0]).split()[-1]


def kernel_launches(path):
    """Each launch in the model file @p path as (its kernel's name alone, ms, bound), in order;
    none without the file."""
    rows = launches(path) if os.path.exists(path) else []
    names = sass.demangle(sorted({r["kernel"] for r in rows}))
    return [(kernel_name(names[r["kernel"]]), float(r["ms"]), r["bound"]) for r in rows]


def launches(path):
    """Each "model ..." line of @p path as a dict."""
    rows = []
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("model "):
            rows.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
    return rows


def merged(rows, consecutive=True):
    """@p rows with launches of one kernel, grid and block merged: mean ms, a count. Only
    consecutive ones when @p consecutive (the same kernel later, on other data, keeps its own
    row); all of them otherwise."""
    groups = []
    for r in rows:
        key = (r["kernel"], r["grid"], r["block"])
        same = groups[-1:] if consecutive else [g for g in groups if g[0] == key]
        if same and same[-1][0] == key:
            same[-1][1].append(r)
        else:
            groups.append((key, [r]))
    out = []
    for _, group in groups:
        r = dict(group[0], launches=len(group))
        for key in ("ms", "flops", "dram_bytes"):
            r[key] = sum(float(g[key]) for g in group) / len(group)
        out.append(r)
    return out


def short(name):
    """A demangled kernel name without its parameters, or for CUB's templates "cub::" and the
    kernel's own name."""
    name = name.removeprefix("void ")
    if name.startswith("cub::"):
        return "cub::" + name.split("<")[0].split("::")[-1]
    return name.split("(")[0]


def markdown(rows, gpu):
    """The rows as a Markdown table, every column headed "model"."""
    names = sass.demangle(sorted({r["kernel"] for r in rows}))
    print(f"| kernel | grid | block | launches | model ms | model GFLOP/s | model DRAM GB/s "
          f"| bound (model, {PART.get(gpu, gpu)}) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for r in merged(rows):
        ms = float(r["ms"])
        gflops = float(r["flops"]) / (ms * 1e-3) / 1e9
        print(f"| {short(names[r['kernel']])} | {r['grid']} | {r['block']} | "
              f"{r['launches']} | {ms:.4g} | {f'{gflops:.0f}' if gflops else '-'} | "
              f"{float(r['dram_bytes']) / (ms * 1e-3) / 1e9:.0f} | {r['bound']} |")


def brief(rows, gpu):
    """The short table of `./course run`: a "model (GPU)" column beside the counts above it."""
    names = sass.demangle(sorted({r["kernel"] for r in rows}))
    print(f"{'kernel':<34} {'launches':>8} {f'model ({gpu.upper()}) ms':>16}  bound (model)")
    for r in merged(rows, consecutive=False):
        print(f"{short(names[r['kernel']])[:34]:<34} {r['launches']:>8} "
              f"{float(r['ms']) * r['launches']:>16.4f}  {r['bound']}")
    regs = " registers assumed 32 (./course estimate NN reads them);" if any(
        "(assumed)" in r["regs"] for r in rows) else ""
    print(f"model: estimated, not measured;{regs} {validation()}")


def table(rows, gpu, size):
    """The rows, one line per launch, each saying "model"."""
    names = sass.demangle(sorted({r["kernel"] for r in rows}))
    cublas = CUBLAS.get((gpu, "fp32", size))
    print(f"model: estimated on {PART.get(gpu, gpu)} by the emulator's time model, not measured; "
          f"{validation()}")
    print(f"{'kernel':<34} {'grid':>12} {'block':>9} {'regs':>5} {'warps':>6} {'model ms':>10} "
          f"{'GFLOP/s':>9} {'DRAM GB/s':>9} {'%cuBLAS':>7}  bound")
    for r in rows:
        ms = float(r["ms"])
        gflops = float(r["flops"]) / (ms * 1e-3) / 1e9
        # the published cuBLAS rows are FP32 SGEMM: no yardstick for Tensor Core kernels
        fp32 = float(r.get("tensor_ms", 0)) == 0
        pct = f"{100 * gflops / cublas[0]:6.1f}%" if cublas and gflops and fp32 else "      -"
        name = short(names[r["kernel"]])[:34]
        print(f"{name:<34} {r['grid']:>12} {r['block']:>9} {r['regs']:>5} "
              f"{r['warps_per_sm']:>6} {ms:>10.4f} {gflops:>9.1f} "
              f"{float(r['dram_bytes']) / (ms * 1e-3) / 1e9:>9.1f} {pct}  {r['bound']} "
              f"(model, {ERROR})")
    ptx = sorted({short(names[r["kernel"]]) for r in rows if float(r.get("sass_insts", 0)) <= 0})
    if not ptx:
        print("issue bound: SASS instructions (ptxas's, per source line)")
    elif len(ptx) < len({r["kernel"] for r in rows}):
        print("issue bound: SASS instructions (ptxas's, per source line), but PTX instructions for "
              f"{', '.join(ptx)} (no SASS of theirs: their code is not the lesson's)")
    else:
        print("issue bound: PTX instructions (no SASS: no nvdisasm, which ./course sass installs, "
              "or no code of the program's for this GPU)")
    if cublas:
        print(f"cuBLAS SGEMM {size}^3 on {gpu}: {cublas[0]} GFLOP/s, published ({cublas[1]}); "
              "% of it shown for kernels with no Tensor Core math")
    else:
        print(f"cuBLAS: no published number for {gpu} at this size in tools/estimate.py; "
              "% of cuBLAS not shown")


def timeline_after(path, gpu, as_markdown):
    """The timeline of the program's copies and kernels (tools/timeline.py), after a blank line,
    when the program labelled its phases (course_emu_mark: lesson 07's driver does)."""
    if any(l.startswith("op ") and " kind=mark " in l
           for l in pathlib.Path(path).read_text().splitlines()):
        print()
        timeline.report(path, gpu, as_markdown)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", help="the emulator's library folder")
    p.add_argument("--from", dest="model_file", help="a model file to show (runs nothing)")
    p.add_argument("--gpu", default="h100",
                   help="t4, a6000, rtx3090, a100, a100-40gb, l4, h100, h200, or a GPU file")
    p.add_argument("--regs-from", action="append",
                   help="a folder of the program's .cu sources (again for each folder)")
    p.add_argument("--size", type=int, default=0, help="M = N = K, for %% of cuBLAS")
    p.add_argument("--nvcc", default="nvcc")
    p.add_argument("--nvdisasm", help="nvdisasm: count SASS (with --regs-from or --cuobjdump)")
    p.add_argument("--cuobjdump", help="cuobjdump: a program's own registers and, with "
                   "--nvdisasm, SASS (without --regs-from)")
    p.add_argument("--full", action="store_true", help="run every block (no sampling)")
    p.add_argument("--markdown", action="store_true", help="a README's Markdown table")
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS")
    args = p.parse_args()
    if args.model_file:
        rows = launches(args.model_file) if os.path.exists(args.model_file) else []
        if rows:
            (markdown if args.markdown else brief)(rows, args.gpu)
            timeline_after(args.model_file, args.gpu, args.markdown)
        return 0
    prog = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not prog or not args.lib:
        p.error("no program or no --lib: --lib DIR -- PROGRAM ARGS")
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "model.txt")
        env = dict(os.environ, **model_env(args.gpu, out, args.lib, args.regs_from, args.nvcc,
                                           args.nvdisasm, work))
        if not args.regs_from and args.cuobjdump:
            binary = shutil.which(prog[0]) or prog[0]
            regs, sass_file = program_code(binary, args.gpu, args.nvdisasm, args.cuobjdump, work)
            env.update({"COURSE_EMU_MODEL_REGS": regs} if regs else {})
            env.update({"COURSE_EMU_MODEL_SASS": sass_file} if sass_file else {})
            if not regs:
                print(f"registers assumed: {prog[0]} holds no sm_{ARCH.get(args.gpu, '90a')} code")
        if args.full:
            env["COURSE_EMU_MODEL_SAMPLE"] = "0"
        run = subprocess.run(prog, env=env, capture_output=True, text=True)
        rows = launches(out) if os.path.exists(out) else []
        if not rows:
            sys.stderr.write(run.stdout + run.stderr)
            sys.exit(f"estimate.py: {prog[0]} launched no kernel the model saw (exit {run.returncode})")
        if args.markdown:
            markdown(rows, args.gpu)
        else:
            table(rows, args.gpu, args.size)
        timeline_after(out, args.gpu, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
