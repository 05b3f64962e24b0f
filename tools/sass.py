#!/usr/bin/env python3
"""The SASS of a lesson's kernels: what the GPU really runs, for one architecture.

  tools/sass.py DIR [KERNEL] --nvdisasm PATH [--arch 90] [--count] [--out DIR]
  tools/sass.py --lines BINARY --nvdisasm PATH --cuobjdump PATH [--arch 90]

Compiles every .cu file of DIR (solutions/NN_topic or exercises/NN_topic; the lesson's headers
come from lessons/NN_topic/src) to a cubin for sm_ARCH with nvcc (-O3 -lineinfo, the course's
flags), reads ptxas -v, and disassembles the cubin with nvdisasm (neither needs a GPU). For each
kernel whose name contains KERNEL (all when omitted) it prints one header line (registers per
thread, shared memory, spills, and how many warps of the SM's 64 its registers allow), then
either the listing or, with --count, the instruction counts of the whole kernel and of its main
loop: the backward branch whose body holds the most FFMA or HMMA (for a GEMM, one step of the
tile loop). `cuobjdump -sass` on a built binary prints the same listing.

--lines prints, for every kernel of BINARY's sm_ARCH code (an executable, an object or a cubin,
built with -lineinfo), "KERNEL FILE LINE COUNT ANCHORS IMADS" lines: the SASS instructions ptxas
made of each source line (NOPs left out), how many of them are anchors (fp32 arithmetic, global
loads, stores and atomics: instructions ptxas neither merges nor splits, so their count against
the PTX's tells how much more ptxas unrolled the line) and how many are plain IMADs (one for each
PTX 32-bit mul.lo or mad.lo ptxas keeps: the unrolling of integer lines, which have no anchors),
the time model's COURSE_EMU_MODEL_SASS file.
"""
import argparse
import collections
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
REGS_PER_SM = 65536
SUB_PARTITIONS = 4  # an SM's schedulers, each with a quarter of the register file
INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);")
BRANCH_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
LABEL = re.compile(r"^(\.L_x_\d+):")
FUNCTION = re.compile(r"^\.text\.(\S+):")
PTXAS_ENTRY = re.compile(r"Compiling entry function '(\S+)'")
PTXAS_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")
PTXAS_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
LINE_INFO = re.compile(r'//## File "([^"]+)", line (\d+)')
PREDICATED = re.compile(r"\*/\s+@")


def include_flags(src):
    """nvcc's -I flags for the .cu files of @p src (solutions/NN_topic or exercises/NN_topic):
    the folder, its lesson's headers, the reference library's, and every other lesson's (a
    lesson may call an earlier one's launchers: add_lesson's LINK)."""
    own = ROOT / "lessons" / pathlib.Path(src).name / "src"
    others = sorted(d for d in (ROOT / "lessons").glob("*/src") if d != own)
    return [f"-I{d}" for d in [pathlib.Path(src), own, ROOT / "reference", *others]]


def run(cmd):
    """Run @p cmd; return its stdout and stderr together, or exit 1 with its output."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(f"sass.py: {cmd[0]} failed (output above)")
    return r.stdout + r.stderr


def demangle(names):
    """Readable kernel names (c++filt from binutils), or the mangled ones without it."""
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return dict(zip(names, out.stdout.splitlines()))


def ptxas_report(text):
    """{mangled kernel: (registers, smem bytes, spill bytes)} from ptxas -v output."""
    info, name = {}, None
    for line in text.splitlines():
        if m := PTXAS_ENTRY.search(line):
            name = m.group(1)
            info[name] = [0, 0, 0]
        elif name and (m := PTXAS_SPILL.search(line)):
            info[name][2] = int(m.group(1)) + int(m.group(2))
        elif name and (m := PTXAS_USED.search(line)):
            info[name][0] = int(m.group(1))
            info[name][1] = int(m.group(2) or 0)
    return info


def parse_sass(text):
    """{mangled kernel: (instructions, labels)}: instructions as (address, opcode, operands,
    line) in order, labels as {label: address of the next instruction}."""
    kernels, name, pending = {}, None, []
    for line in text.splitlines():
        if m := FUNCTION.match(line):
            name = m.group(1)
            kernels[name] = ([], {})
            pending = []
        elif name and (m := LABEL.match(line)):
            pending.append(m.group(1))
        elif name and (m := INSTR.search(line)):
            addr = int(m.group(1), 16)
            instrs, labels = kernels[name]
            for label in pending:
                labels[label] = addr
            pending = []
            instrs.append((addr, m.group(2), m.group(3), line.strip()))
    return kernels


ANCHORS = ("FFMA", "FADD", "FMUL", "LDG", "STG", "RED", "ATOM")


def divergence_fallbacks(instrs, labels):
    """The addresses of a kernel's divergence fallbacks: from each BRA.DIV's target to the next
    unpredicated BRA, the out-of-line code ptxas adds for a warp that reaches a .sync shuffle or
    vote diverged, which a converged warp never runs."""
    cold = set()
    for _, op, operands, _ in instrs:
        m = BRANCH_TARGET.search(operands)
        if op != "BRA.DIV" or not m or m.group(1) not in labels:
            continue
        for addr, op2, _, text in instrs:
            if addr >= labels[m.group(1)]:
                cold.add(addr)
                if op2 == "BRA" and not PREDICATED.search(text):
                    break
    return cold


def line_counts(text):
    """{mangled kernel: {(file, line): [SASS instructions, anchors, plain IMADs]}} from nvdisasm
    -g output, divergence fallbacks left out. An IMAD with a modifier is something else (a move,
    shift, add, wide or high half)."""
    cold = {name: divergence_fallbacks(*code) for name, code in parse_sass(text).items()}
    counts, name, where = {}, None, None
    for line in text.splitlines():
        if m := FUNCTION.match(line):
            name, where = m.group(1), None
            counts[name] = collections.defaultdict(lambda: [0, 0, 0])
        elif m := LINE_INFO.search(line):
            where = (m.group(1), int(m.group(2)))
        elif (name and where and (m := INSTR.search(line)) and m.group(2) != "NOP"
              and int(m.group(1), 16) not in cold[name]):
            counts[name][where][0] += 1
            counts[name][where][1] += m.group(2).split(".")[0] in ANCHORS
            counts[name][where][2] += m.group(2) == "IMAD"
    return counts


def lines_file(counts):
    """The COURSE_EMU_MODEL_SASS lines (KERNEL FILE LINE COUNT ANCHORS IMADS) of line_counts()."""
    return [f"{kernel} {pathlib.Path(file).name} {line} {n} {anchors} {imads}"
            for kernel, by_line in counts.items()
            for (file, line), (n, anchors, imads) in sorted(by_line.items())]


def print_lines(binary, arch, nvdisasm, cuobjdump, work):
    """The --lines table of @p binary's sm_@p arch cubins (extracted into @p work)."""
    binary = pathlib.Path(binary).resolve()
    if binary.suffix == ".cubin":
        cubins = [binary]
    else:
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run([cuobjdump, "-xelf", "all", str(binary)], cwd=work, capture_output=True)
        cubins = sorted(work.glob(f"*.sm_{arch}.cubin"))
    if not cubins:
        sys.exit(f"sass.py: no sm_{arch} code in {binary}")
    for cubin in cubins:
        for line in lines_file(line_counts(run([nvdisasm, "-g", "-c", str(cubin)]))):
            print(line)


def math_ops(instrs):
    """How many FFMA and HMMA (fp32 and Tensor Core multiply-adds) @p instrs holds."""
    return sum(op == "FFMA" or op.startswith("HMMA") for _, op, _, _ in instrs)


def main_loop(instrs, labels):
    """The instructions of the loop with the most FFMA or HMMA (a backward branch), or []."""
    best = []
    for addr, op, operands, _ in instrs:
        m = BRANCH_TARGET.search(operands)
        if op != "BRA" or not m or labels.get(m.group(1), addr + 1) > addr:
            continue
        body = [i for i in instrs if labels[m.group(1)] <= i[0] <= addr]
        if math_ops(body) > math_ops(best):
            best = body
    return best


def histogram(instrs):
    """'LDS.128 32, FFMA 512, ...': the counts of the memory and FMA instructions (full opcode
    with its width) and of all instructions, most frequent first."""
    keep = ("LD", "ST", "LDS", "STS", "LDG", "STG", "LDSM", "MOVM", "FFMA", "HMMA", "BAR",
            "SHFL", "LDC")  # LD and ST: generic loads and stores, which a GPU resolves at run time
    counts = collections.Counter(op for _, op, _, _ in instrs if op.split(".")[0] in keep)
    parts = [f"{op} {n}" for op, n in counts.most_common()]
    return ", ".join(parts + [f"all {len(instrs)}"])


def warps_per_sm(regs):
    """Warps that the register file holds at @p regs per thread, at most 64. Registers go to a
    warp in units of 256, and the file is split over the SM's 4 sub-partitions, each holding
    whole warps (NVIDIA's occupancy calculator counts the same): 4 floor(16384 / per warp)."""
    per_warp = -(-regs * 32 // 256) * 256
    per_partition = REGS_PER_SM // SUB_PARTITIONS
    return min(64, SUB_PARTITIONS * (per_partition // per_warp)) if regs else 64


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", nargs="?", help="solutions/NN_topic or exercises/NN_topic")
    p.add_argument("kernel", nargs="?", default="", help="part of a kernel's name")
    p.add_argument("--arch", default="90", help="the SM architecture, e.g. 80 or 90")
    p.add_argument("--nvdisasm", required=True, help="path of nvdisasm")
    p.add_argument("--nvcc", default="nvcc")
    p.add_argument("--count", action="store_true", help="instruction counts, not the listing")
    p.add_argument("--out", default="build/sass", help="folder for the cubins")
    p.add_argument("--lines", metavar="BINARY", help="SASS instructions per source line")
    p.add_argument("--cuobjdump", default="cuobjdump", help="path of cuobjdump (--lines)")
    args = p.parse_args()
    if args.lines:
        print_lines(args.lines, args.arch, args.nvdisasm, args.cuobjdump, pathlib.Path(args.out))
        return 0
    if not args.dir:
        p.error("DIR or --lines BINARY is needed")
    src = pathlib.Path(args.dir)
    sources = sorted(src.glob("*.cu"))
    if not sources:
        sys.exit(f"sass.py: no .cu files in {src}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    found = 0
    for cu in sources:
        cubin = out / f"{cu.stem}.sm_{args.arch}.cubin"
        log = run([args.nvcc, "-cubin", f"-arch=sm_{args.arch}", "-O3", "-std=c++17",
                   "-lineinfo", "-Xptxas", "-v", *include_flags(src), str(cu), "-o", str(cubin)])
        info = ptxas_report(log)
        kernels = parse_sass(run([args.nvdisasm, "-c", str(cubin)]))
        names = demangle(list(kernels))
        for mangled, (instrs, labels) in kernels.items():
            name = names[mangled]
            if args.kernel not in name:
                continue
            found += 1
            regs, smem, spill = info.get(mangled, (0, 0, 0))
            print(f"== {name}  sm_{args.arch}: {regs} registers, {smem} bytes static smem, "
                  f"{spill} bytes spilled; registers allow {warps_per_sm(regs)} of 64 warps per SM")
            if args.count:
                print(f"   whole kernel: {histogram(instrs)}")
                loop = main_loop(instrs, labels)
                if loop:
                    print(f"   main loop (0x{loop[0][0]:04x}..0x{loop[-1][0]:04x}): "
                          f"{histogram(loop)}")
            else:
                for *_, line in instrs:
                    print(f"   {line}")
    if not found:
        sys.exit(f"sass.py: no kernel matching '{args.kernel}' in {src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
