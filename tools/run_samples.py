#!/usr/bin/env python3
"""Build and run a checkout of public CUDA programs on the emulator, one line per program.

  tools/run_samples.py CHECKOUT [FOLDER ...] [--out DIR] [--timeout S] [--only NAME]
                       [--markdown] [--rebuild] [--checks mem,race,sync,init] [--jobs N] [--sized]
  tools/run_samples.py CHECKOUT --hopper NAME [--out DIR] [--timeout S] [--rebuild] [--checks ...]

CHECKOUT is a copy of NVIDIA's cuda-samples (or any tree laid out as Samples/FOLDER/NAME/ with a
CMakeLists.txt per program) that the developer fetched; nothing of it is committed here.
FOLDER defaults to the five folders emulator/STATUS.md reports on. For every program the script
reads its CMakeLists.txt for its sources and libraries. A program that links a library the
emulator has no stand-in for (cuSPARSE, cuSOLVER, NPP, nvJPEG, OpenGL, EGL, MPI,
FreeImage, ...) is listed as "needs" with the library and not built. The driver API is the
emulator's libcuda.so.1; NVRTC is the toolkit's own (it compiles on the host, no GPU needed).
The others are compiled as the course compiles (nvcc for sm_90 with its PTX, -cudart shared,
-lineinfo, the checkout's Common/ on the include path), unmodified, and run from their own
folder (where their data/ lies) with the emulator's libraries on LD_LIBRARY_PATH and a time
limit (a driver-API program that loads a module it builds: from a folder in --out holding the
module, built for sm_90 with its PTX, and a link to its data/). A line gives the program, its verdict (pass: exit 0; fail: the exit status; timeout;
build), the seconds it ran, and the first line the emulator printed (or the program's last).
--jobs N builds and runs N programs at once, each with its own device server; the rows still
come in order, and each program's seconds then include the others' load.
--sized builds the few programs of SIZED below as that table says: a smaller problem than their
default (which asks for more than the time limit of the VM), and, for the tensor-core GEMMs, the
CPU check their source leaves compiled out turned on (their mismatch lines then fail them).
Nothing else of a program changes; without --sized every program is built unmodified.
--hopper NAME builds and runs one public Hopper program of HOPPER below (CHECKOUT is its own
checkout) with the edits that table lists, and prints its line.
Binaries are kept in --out (default build/samples) and rebuilt only when asked. With --checks
the programs run under the emulator's sanitizer (COURSE_EMU_CHECKS): a program that exits 0
with a finding is "found", and the finding is its line (on a correct program, a false report).
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = [
    "0_Introduction",
    "2_Concepts_and_Techniques",
    "3_CUDA_Features",
    "4_CUDA_Libraries",
    "6_Performance",
]
# Libraries the emulator stands in for: linked as named.
EMULATED = {"CUDA::cudart": None, "CUDA::cublas": "-lcublas", "CUDA::cublasLt": "-lcublasLt",
            "CUDA::cuda_driver": "-lcuda", "CUDA::nvrtc": "-lnvrtc", "CUDA::cufft": "-lcufft",
            "CUDA::curand": "-lcurand"}
# What a program's CMakeLists.txt names, and the library it stands for, when there is no stand-in.
NEEDS = [
    (re.compile(r"CUDA::cusparse"), "cuSPARSE"),
    (re.compile(r"CUDA::cusolver"), "cuSOLVER"),
    (re.compile(r"CUDA::npp"), "NPP"),
    (re.compile(r"CUDA::nvjpeg"), "nvJPEG"),
    (re.compile(r"CUDA::nvJitLink|nvJitLink"), "nvJitLink"),
    (re.compile(r"find_package\(OpenGL"), "OpenGL"),
    (re.compile(r"find_package\(EGL|EGL_"), "EGL"),
    (re.compile(r"find_package\(MPI"), "MPI"),
    (re.compile(r"FreeImage"), "FreeImage"),
    (re.compile(r"nvsci", re.I), "NvSci"),
    (re.compile(r"find_package\(OpenMP"), "OpenMP"),
]
# --sized: per program, nvcc flags, run arguments, source edits (old, new), and a line of output
# that means its own check failed. Every edit is a problem size, a time to spin, or the
# program's own check switched on (CPU_DEBUG); none touches a kernel.
SIZED = {
    "simpleAttributes": {"edits": [("dim3 blocks(deviceProp.maxGridSize[1], 1)", "dim3 blocks(64, 1)"),
                                   ("bigDataSize, 0xAFFFF", "bigDataSize, 0xFFFF")]},
    "globalToShmemAsyncCopy": {"args": ["-wA=320", "-hA=320", "-wB=320", "-hB=320"]},
    "graphMemoryFootprint": {"edits": [("kernelTime            = 5;", "kernelTime            = 0.05;"),
                                       ("bytes  = 64 * 1024 * 1024", "bytes  = 4 * 1024 * 1024")]},
    "UnifiedMemoryPerf": {"args": ["-kernel-iterations=2"],
                          "edits": [("maxSampleSizeInMb = 64", "maxSampleSizeInMb = 4")]},
    "dmmaTensorCoreGemm": {"check": True, "edits": [("#define M_TILES 1024", "#define M_TILES 64"),
                                                    ("#define N_TILES 1024", "#define N_TILES 64"),
                                                    ("#define K_TILES 1024", "#define K_TILES 64")]},
}
for gemm, tiles in [("cudaTensorCoreGemm", 256), ("immaTensorCoreGemm", 256),
                    ("bf16TensorCoreGemm", 512), ("tf32TensorCoreGemm", 512)]:
    SIZED[gemm] = {"check": True, "edits": [(f"#define {d}_TILES {tiles}", f"#define {d}_TILES 64")
                                            for d in "MNK"]}
# --hopper NAME: CHECKOUT is that public Hopper program's repository (TMA, wgmma, clusters),
# fetched by the developer: the folder the program lies in, its files (copied with the edits:
# problem sizes, and the runs that only time it), the one nvcc compiles, its include folders,
# nvcc's flags (its own Makefile's, for sm_90a with its PTX and -cudart shared), the arguments
# it runs with ("args", if any), and a pattern of the lines its own check prints when it fails. fast.cu's kernels 6 to 12 need M and N multiples
# of 2048 and its cuBLAS reference K == N, so 2048^3; its cuBLAS-only entry (0), its SIMT kernel
# (1) and its timed repeats are left out for the VM's time.
FAST_FLAGS = ["-std=c++17", "-O3", "-DNDEBUG", "-w", "--expt-relaxed-constexpr",
              "--expt-extended-lambda", "--use_fast_math", "-lineinfo", "-cudart", "shared",
              "-lcublas", "-lcuda", "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]"]
TK_FLAGS = ["-std=c++20", "-O3", "--use_fast_math", "-DNDEBUG", "-lineinfo", "-DKITTENS_HOPPER",
            "--expt-extended-lambda", "--expt-relaxed-constexpr", "-Xcompiler=-Wno-psabi",
            "-Xcompiler=-fno-strict-aliasing", "-cudart", "shared", "-lcuda", "-gencode",
            "arch=compute_90a,code=[sm_90a,compute_90a]"]
HOPPER = {
    "fast.cu": {"folder": ".", "files": ["matmul.cu"], "main": "matmul.cu", "includes": ["."],
                "edits": [("long max_size = 8192;", "long max_size = 2048;"),
                          ("int repeat_times = 8;", "int repeat_times = 0;"),
                          ("{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {",
                           "{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}) {")],
                "flags": FAST_FLAGS, "failed": r"Failed to pass the correctness verification"},
}
# yf225/simplegemm's pingpong GEMM (its Makefile's flags): M 2176 and N 2048 (multiples of its
# 128-wide tiles, an even count of N tiles) give 272 tiles, more than its 132 blocks' first
# consumer warpgroups take, so both consumers of a block work; K 512 wraps its 6-stage ring.
HOPPER["simplegemm"] = {
    "folder": ".", "files": ["main.cu"], "main": "main.cu", "includes": ["."],
    "edits": [("  m = 6 * 11 * 128;\n  n = 6 * 12 * 128;\n  k = 640;",
               "  m = 2176;\n  n = 2048;\n  k = 512;"),
              ("int max = 16384;", "int max = 2176;")],
    "flags": ["-std=c++17", "-O3", "-DNDEBUG", "-w", "--expt-relaxed-constexpr",
              "--expt-extended-lambda", "-Xcompiler=-fPIE", "-Xcompiler=-Wno-psabi",
              "-Xcompiler=-fno-strict-aliasing", "-lineinfo", "-cudart", "shared", "-lcublas",
              "-lcuda", "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]"],
    "failed": r"Failed tolerance check"}
# The same repository at 55a18aa (CHECKOUT at that commit): its cooperative stmatrix + TMA-store
# kernel (stmatrix.cu), M 1024 and N 2048 as its main asks; K 512 (it asks 64, one K tile) wraps
# its 3-stage ring.
HOPPER["simplegemm-55a18aa"] = dict(HOPPER["simplegemm"], edits=[
    ("  k = 64;\n  //m = n = k = 8192;", "  k = 512;\n  //m = n = k = 8192;"),
    ("int max = 16384;", "int max = 2048;")])
# ThunderKittens' educational H100 GEMM: CUDA cores (01 to 03), WMMA and movmatrix (04), wgmma
# (05), TMA from 06.
for level in ["01", "02", "03", "04", "05", "06", "07", "08"]:
    HOPPER[f"thunderkittens-{level}"] = {
        "folder": "kernels/gemm/educational_h100", "files": [f"level_{level}.cu", "launch.cu"],
        "main": f"level_{level}.cu", "includes": ["include", "prototype",
                                                  "kernels/gemm/educational_h100"],
        "edits": [("    N = 4096;", "    N = 512;")], "flags": TK_FLAGS,
        "failed": r"Error count: [1-9]"}
# Its BF16 and FP8 GEMMs on its persistent lcf template, at 512^3 (its main asks 4096^3). The
# BF16 check prints the greatest difference from its device reference (bf16's rounding of sums
# near 38 is 0.125; a wrong tile is off by whole units), the FP8 one a count.
for kind, template in [("bf16", "2,4,8"), ("fp8", "8")]:
    HOPPER[f"thunderkittens-{kind}"] = {
        "folder": f"kernels/gemm/{kind}_h100", "files": [f"{kind}_h100_gemm.cu"],
        "main": f"{kind}_h100_gemm.cu",
        "includes": ["include", "prototype", f"kernels/gemm/{kind}_h100"],
        "edits": [(f"    N = 4096;\n    run_benchmark<matmul_template<{template}>>",
                   f"    N = 512;\n    run_benchmark<matmul_template<{template}>>")],
        "flags": TK_FLAGS,
        "failed": r"err max:\s+(?:[1-9]|0\.[5-9])" if kind == "bf16" else r"Error count: [1-9]"}
# ColfaxResearch/cfx-article-src (d142df3; CHECKOUT with its external/cutlass submodule at
# 44dae8b): its CuTe/CUTLASS Hopper tutorials, each at its Makefile's flags for sm_90a with its
# PTX. CUTLASS at 44dae8b takes cudaGetDriverEntryPointByVersion's path only when
# __CUDACC_VER_MAJOR__ >= 12 && __CUDACC_VER_MINOR__ >= 5, false for 13.0, whose fallback names
# PFN_cuTensorMapEncodeTiled, which CUDA 13.0's cudaTypedefs.h does not define (only its _v12000
# form): CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL, CUTLASS's own switch, calls libcuda instead.
COLFAX_INCLUDES = ["external/cutlass/include", "external/cutlass/examples/common",
                   "external/cutlass/tools/util/include", "include/utils"]
COLFAX_FLAGS = ["-std=c++17", "-O3", "-Xcompiler=-Wno-psabi", "-Xcompiler=-fno-strict-aliasing",
                "--expt-relaxed-constexpr", "-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1",
                "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]", "-cudart", "shared",
                "-lineinfo", "-lcuda"]
COLFAX_GEMM_FLAGS = COLFAX_FLAGS + ["-Xptxas=--verbose", "-DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED"]
# tma/: TMA load and store (no swizzle), a scaling copy, and clusters of 2 and 4 with and
# without multicast, each checked element by element ("Success N, Fail M"); 2048 x 2048 (it
# asks 16384 x 16384), one launch each (it times 10; its check needs at least one).
HOPPER["colfax-tma"] = {
    "folder": "tma", "files": ["main.cu"], "main": "main.cu", "includes": COLFAX_INCLUDES,
    "args": ["--M=2048", "--N=2048", "--iterations=1"], "flags": COLFAX_FLAGS,
    "failed": r"Fail [1-9]"}
# pipeline-gemm/sm90_gemm_ws.cu: warp-specialized TMA + wgmma GEMM (a producer warpgroup, two
# consumers, 256 x 192 x 128 tiles, 2 stages, clusters 1 x 2), checked against its own
# 128 x 256 one-consumer configuration; 1024 x 1536 x 1024 (it asks 8192^3), no timed runs.
HOPPER["colfax-gemm-ws"] = {
    "folder": "pipeline-gemm", "files": ["sm90_gemm_ws.cu"], "main": "sm90_gemm_ws.cu",
    "includes": COLFAX_INCLUDES + ["pipeline-gemm"],
    "edits": [("  int iterations = 10;", "  int iterations = 0;")],
    "args": ["1024", "1536", "1024"], "flags": COLFAX_GEMM_FLAGS,
    "failed": r"Validation error"}
# pipeline-gemm/sm90_gemm_multistage.cu: TMA + wgmma through a 2-stage full/empty mbarrier ring
# in one warpgroup pair, stmatrix and a TMA store; it checks nothing, so the copy adds a check
# of C against a CPU reference (fp32 sums, within 0.02 + 0.2%); 512 x 768 x 512, no timed runs.
HOPPER["colfax-gemm-multistage"] = {
    "folder": "pipeline-gemm", "files": ["sm90_gemm_multistage.cu"],
    "main": "sm90_gemm_multistage.cu", "includes": COLFAX_INCLUDES + ["pipeline-gemm"],
    "edits": [("  const int timing_iterations = 10;", "  const int timing_iterations = 0;"),
              ("  thrust::host_vector<TC> cute_result = d_C;\n",
               "  thrust::host_vector<TC> cute_result = d_C;\n"
               "  long wrong = 0;\n"
               "  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) {\n"
               "    float ref = 0.f;\n"
               "    for (int l = 0; l < k; ++l) ref += float(h_A[i*k + l]) * float(h_B[j*k + l]);\n"
               "    if (!(std::fabs(float(cute_result[i*n + j]) - ref) <= 0.02f + 0.002f*std::fabs(ref))) ++wrong;\n"
               "  }\n"
               "  printf(\"check: %ld of %ld wrong\\n\", wrong, long(m)*n);\n")],
    "args": ["512", "768", "512"], "flags": COLFAX_GEMM_FLAGS,
    "failed": r"check: [1-9]"}
# streamk/: the warp-specialized GEMM under its four tile schedulers (0 one tile a block, 1
# persistent data-parallel, 2 stream-K, 3 stream-K's heuristic), --task=validate: checked
# against its own one-tile 128 x 256 kernel ("Validation passed!"). K 3072 is 24 k-blocks, which
# stream-K's 8-block minimum splits among blocks for each of the 8 tiles (a fixup through the
# workspace); its check then reports 1-ulp differences of a split fp32 sum rounded to half
# ("Validation error.", max abs diff 0.03125 at |C| about 37), which the copy's CPU check in
# double finds as accurate as its reference kernel: so 2 and 3 are judged by that check.
# Each fixup makes the block holding a tile's first k-blocks wait for a later block, which the
# emulator runs beside it (vm/exec.c's run_beside()), on any number of host threads and under
# --checks.
STREAMK_CHECK = (
    "    std::cout << \"Validation passed!\\n\";\n  }\n",
    "    std::cout << \"Validation passed!\\n\";\n  }\n"
    "  long wrong = 0;\n"
    "  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) {\n"
    "    double acc = 0;\n"
    "    for (int l = 0; l < k; ++l) acc += double(float(h_A[i*k + l])) * double(float(h_B[j*k + l]));\n"
    "    float ref = float(alpha * acc);\n"
    "    if (!(std::fabs(float(h_C[i*n + j]) - ref) <= 0.02f + 0.002f*std::fabs(ref))) ++wrong;\n"
    "  }\n"
    "  printf(\"check: %ld of %ld wrong\\n\", wrong, long(m)*n);\n")
for scheduler in range(4):
    HOPPER[f"colfax-streamk-{scheduler}"] = {
        "folder": "streamk", "files": ["streamk.cu", "hopper_gemm_kernel_launch.h"],
        "main": "streamk.cu", "includes": COLFAX_INCLUDES + ["streamk"],
        "edits": [STREAMK_CHECK] if scheduler >= 2 else [],
        "args": ["--task=validate", f"--scheduler={scheduler}", "--m=512", "--n=768",
                 "--k=3072", "--seed=1"],
        "flags": COLFAX_GEMM_FLAGS + ["-DNDEBUG"],
        "failed": r"check: [1-9]" if scheduler >= 2 else r"Validation error"}
# evt/: a CuTe GEMM whose epilogue is a CUTLASS epilogue visitor tree, alpha AB + beta C checked
# against CUTLASS's own EVT GEMM and cuBLAS, then a BCE-loss tree against CUTLASS's; at its
# Makefile's libraries but NVIDIA's static runtime (-lcudart_static, -lcudadevrt). M <= N: its
# BCE bias is sized N but is a column broadcast read for every row, M of them.
HOPPER["colfax-evt"] = {
    "folder": "evt", "files": ["evt_gemm_cute.cu"], "main": "evt_gemm_cute.cu",
    "includes": COLFAX_INCLUDES + ["evt"],
    "args": ["--m=768", "--n=1024", "--k=512", "--alpha=1.5", "--beta=0.5", "--seed=1"],
    "flags": COLFAX_FLAGS + ["-Xptxas=--verbose", "-lcublas", "-lrt", "-lpthread", "-ldl"],
    "failed": r": Failed"}
# A module a driver-API program loads at run time, which its CMakeLists.txt builds beside it:
# built here for sm_90 with its PTX (the sample's own build keeps machine code only).
MODULE = re.compile(r'set\(CUDA_(FATBIN|PTX)_FILE\s+"[^"]*/([^"/]+)"\)')
KERNEL_SOURCE = re.compile(r'set\(CUDA_KERNEL_SOURCE\s+"[^"]*/([^"/]+)"\)')
DRIVER_CALL = re.compile(r"\bcu(Init|Ctx|Module|Launch|Mem|Device|Stream|Event|Graph|Func|Link)\w*\(")
ADD_EXECUTABLE = re.compile(r"add_executable\(\s*(\S+)\s+([^)]*)\)")
NVCC_FLAGS = ["-arch=sm_90", "-cudart", "shared", "-lineinfo", "-std=c++17", "--extended-lambda",
              "-Wno-deprecated-gpu-targets", "-w"]


def programs(checkout, folders):
    """Yield (folder, directory, name, sources, cmake text) for every program of the folders."""
    for folder in folders:
        base = checkout / "Samples" / folder
        if not base.is_dir():
            sys.exit(f"run_samples: {base} is not a folder of the checkout")
        for directory in sorted(p for p in base.iterdir() if (p / "CMakeLists.txt").is_file()):
            text = (directory / "CMakeLists.txt").read_text(errors="replace")
            match = ADD_EXECUTABLE.search(text)
            if not match:
                continue
            sources = [s for s in match.group(2).split() if re.search(r"\.(cu|cpp|c)$", s)]
            yield folder, directory, match.group(1), sources, text


def needs(text):
    """The libraries without a stand-in that a program links, as a list of names."""
    return [what for pattern, what in NEEDS if pattern.search(text)]


def calls_driver(directory):
    """1 when the program calls the driver API without naming it in its CMakeLists.txt."""
    return any(DRIVER_CALL.search(s.read_text(errors="replace")) for s in directory.glob("*.c*"))


def edited(directory, sources, sized, out):
    """The source paths to compile: the program's own, or copies in @p out with SIZED's edits."""
    paths = [directory / s for s in sources]
    if not sized.get("edits"):
        return paths
    texts = {path: path.read_text(errors="replace") for path in paths}
    missing = [old for old, _ in sized["edits"] if not any(old in t for t in texts.values())]
    if missing:
        sys.exit(f"run_samples: {directory.name} no longer has '{missing[0]}' (SIZED is stale)")
    copies = []
    for path, text in texts.items():
        for old, new in sized["edits"]:
            text = text.replace(old, new)
        copy = out / "sized-sources" / directory.name / path.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(text)
        copies.append(copy)
    return copies


def run_directory(directory, name, text, out):
    """Where a program runs: its own folder (its data/ and kernel sources lie there), or, for a
    driver-API program that loads a module (MODULE), a folder in @p out holding the module and
    a link to its data/ (the program looks in the folder it runs in)."""
    return out / (name + ".run") if MODULE.search(text) and KERNEL_SOURCE.search(text) else directory


def build_module(directory, name, text, out):
    """Build the module a driver-API program loads into its run_directory(); None, or the first
    error line."""
    module, source = MODULE.search(text), KERNEL_SOURCE.search(text)
    if not module or not source:
        return None
    where = run_directory(directory, name, text, out)
    where.mkdir(parents=True, exist_ok=True)
    if (directory / "data").is_dir() and not (where / "data").exists():
        (where / "data").symlink_to(directory / "data")
    kind = "-fatbin" if module.group(1) == "FATBIN" else "-ptx"
    done = subprocess.run(["nvcc", kind, "-arch=sm_90", "-lineinfo", f"-I{directory}",
                           str(directory / source.group(1)), "-o", str(where / module.group(2))],
                          capture_output=True, text=True)
    return None if done.returncode == 0 else (done.stderr.splitlines() or ["nvcc failed"])[0]


def build(checkout, directory, name, sources, text, out, rebuild, sized):
    """Compile one program into out/name; return (binary, None) or (None, first error line)."""
    binary = out / (name + (".sized" if sized else ""))
    if binary.exists() and not rebuild:
        return binary, None
    why = build_module(directory, name, text, out)
    if why:
        return None, why
    libs = [flag for lib, flag in EMULATED.items() if flag and lib in text]
    if "-lcuda" not in libs and calls_driver(directory):
        libs.append("-lcuda")
    includes = [checkout / "Common", directory, directory / "inc"]
    flags = ["-DCPU_DEBUG=1"] if sized.get("check") else []
    command = ["nvcc", *NVCC_FLAGS, *flags, *[f"-I{i}" for i in includes],
               *map(str, edited(directory, sources, sized, out)), "-o", str(binary), *libs]
    for extra in ([], ["-rdc=true"]):  # whole-program first; separate compilation if it needs it
        done = subprocess.run(command + extra, capture_output=True, text=True)
        if done.returncode == 0:
            return binary, None
    errors = [l for l in done.stderr.splitlines() if "error" in l] or done.stderr.splitlines()[-1:]
    return None, errors[0].strip() if errors else "nvcc failed"


def run(binary, directory, timeout, checks, sized):
    """Run one program; return (verdict, seconds, the line that says most about it). With
    @p checks (COURSE_EMU_CHECKS's list), a finding of the sanitizer's turns a pass into
    "found" and is the line. A sized tensor-core GEMM that prints a mismatch fails."""
    env = dict(os.environ, LD_LIBRARY_PATH=str(ROOT / "build" / "emulator" / "lib"))
    report = binary.with_suffix(".checks")
    if checks:
        report.unlink(missing_ok=True)
        env.update(COURSE_EMU_CHECKS=checks, COURSE_EMU_REPORT=str(report))
    start = time.monotonic()
    try:
        done = subprocess.run([str(binary), *sized.get("args", [])], cwd=directory, env=env, capture_output=True,
                              text=True, errors="replace", timeout=timeout, stdin=subprocess.DEVNULL)
        code, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        code, output = None, (expired.stdout or b"").decode(errors="replace")
    seconds = time.monotonic() - start
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    emulator = [l[l.index("emulator:"):] for l in lines if "emulator:" in l]
    why = emulator[0] if emulator else (lines[-1] if lines else "")
    verdict = "timeout" if code is None else "pass" if code == 0 else f"exit {code}"
    mismatches = [l for l in lines if (sized.get("check") and l.startswith("mismatch")) or
                  ("failed" in sized and re.search(sized["failed"], l))]
    if verdict == "pass" and mismatches:
        verdict, why = "mismatch", f"{len(mismatches)} mismatch lines, the first: {mismatches[0]}"
    findings = report.read_text(errors="replace").splitlines() if checks and report.exists() else []
    if findings:
        verdict, why = ("found" if verdict == "pass" else verdict), findings[0]
    return verdict, seconds, why


def run_hopper(checkout, args):
    """Build public Hopper program args.hopper (HOPPER) from @p checkout and run it: one line."""
    spec = HOPPER[args.hopper]
    folder = checkout / spec["folder"]
    binary = args.out / args.hopper.replace(".", "_")
    if args.rebuild or not binary.exists():
        copies = edited(folder, spec["files"], spec, args.out)
        main_copy = [c for c in copies if c.name == spec["main"]]
        includes = [f"-I{checkout / i}" for i in spec["includes"]]
        done = subprocess.run(["nvcc", *map(str, main_copy), *includes, "-o", str(binary),
                               *spec["flags"]], capture_output=True, text=True)
        if done.returncode:
            print(f"{args.hopper} build {(done.stderr.splitlines() or ['nvcc failed'])[-1]}")
            return
    verdict, seconds, why = run(binary, folder, args.timeout, args.checks, spec)
    print(f"{args.hopper} {verdict} {seconds:.1f} {why}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", type=pathlib.Path)
    parser.add_argument("folders", nargs="*", default=FOLDERS)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "build" / "samples")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--only", help="run only programs whose name contains this (or one of "
                        "these, comma-separated)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--checks", help="run under the sanitizer's checks, e.g. mem,race,sync,init")
    parser.add_argument("--sized", action="store_true",
                        help="build the programs of SIZED with a smaller problem and their check on")
    parser.add_argument("--jobs", type=int, default=1,
                        help="programs built and run at once (rows still print in order)")
    parser.add_argument("--hopper", choices=sorted(HOPPER),
                        help="CHECKOUT is this public Hopper program: build it as HOPPER says, run it")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    checkout = args.checkout.resolve()
    if args.hopper:
        return run_hopper(checkout, args)
    tally = {}
    if args.markdown:
        print("| program | result | s | first emulator line, or the program's last |")
        print("| --- | --- | --- | --- |")
    wanted = args.only.split(",") if args.only else [""]
    chosen = [p for p in programs(checkout, args.folders) if any(w in p[2] for w in wanted)]

    def verdict_of(program):
        folder, directory, name, sources, text = program
        missing = needs(text)
        if missing:
            return folder, name, "needs", 0.0, ", ".join(missing)
        sized = SIZED.get(name, {}) if args.sized else {}
        binary, why = build(checkout, directory, name, sources, text, args.out, args.rebuild, sized)
        if not binary:
            return folder, name, "build", 0.0, why
        label = name + (" (sized)" if sized else "")
        where = run_directory(directory, name, text, args.out)
        return (folder, label, *run(binary, where, args.timeout, args.checks, sized))

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for folder, name, verdict, seconds, why in pool.map(verdict_of, chosen):
            tally[verdict.split()[0]] = tally.get(verdict.split()[0], 0) + 1
            row = (f"{folder}/{name}", verdict, f"{seconds:.1f}", why[:160].replace("|", "/"))
            print(("| %s | %s | %s | %s |" if args.markdown else "%-55s %-8s %6s  %s") % row,
                  flush=True)
    print("total: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
