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
built with -lineinfo), "KERNEL FILE LINE COUNT ANCHORS IMADS LOADS WAITS" lines: the SASS
instructions ptxas made of each source line (NOPs left out), how many of them are anchors (fp32
arithmetic, global loads, stores and atomics: instructions ptxas neither merges nor splits, so
their count against the PTX's tells how much more ptxas unrolled the line), how many are plain
IMADs (one for each PTX 32-bit mul.lo or mad.lo ptxas keeps: the unrolling of integer lines,
which have no anchors), how many are global loads (LDG), and the waits those loads cost: each
load 1/k of one, k the most loads a warp has in flight when it first waits for one of the
line's (load_rounds()), so that a line whose loads ptxas issues together costs one wait and a
line whose loads each wait alone costs one a load. The most, not the mean: where ptxas unrolls
a loop it adds a remainder loop that loads one at a time, which runs fewer times than the
unrolled body. The time model's COURSE_EMU_MODEL_SASS file.
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
REGISTER = re.compile(r"\bR(\d+)\b(\.64)?")
ADDRESS = re.compile(r"\[([^\]]*)\]")


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


def registers(operands, width):
    """The registers @p operands names: an address's (in brackets) one, or two as R2.64; a
    value's widened to @p width (a 64- or 128-bit access's register names the first of 2 or
    4)."""
    named = set()
    for i, part in enumerate(ADDRESS.split(operands)):  # odd parts: inside brackets
        for m in REGISTER.finditer(part):
            n = (2 if m.group(2) else 1) if i % 2 else width
            named.update(range(int(m.group(1)), int(m.group(1)) + n))
    return named


def access_width(op):
    """The registers one operand of @p op spans: 4 for a 128-bit access, 2 for 64, else 1."""
    parts = op.split(".")
    return 4 if "128" in parts else 2 if "64" in parts else 1


def follow(code, i, k, seen, first):
    """Walk the likely path from instruction @p i of @p code (load_rounds()'s: each instruction's
    registers named, registers loaded, branch target, conditional or not): a forward conditional
    branch falls through, as a bounds test's fast path does, and a loop's backward branch is taken
    once. Give each global load met the loads in flight when the warp first waits for it (kept in
    @p k from the first walk that meets it): when an instruction names a register one of them
    writes (scoreboarding; a branch or a barrier does not wait). A walk but the @p first stops
    where an earlier one went (@p seen) with nothing in flight."""
    pending, busy, looped = [], set(), set()

    def wait():
        for addr in pending:
            k.setdefault(addr, len(pending))
        pending.clear()
        busy.clear()

    while i < len(code):
        addr, base, named, loaded, target, conditional = code[i]
        if not first and i in seen and not pending:
            return
        seen.add(i)
        if named & busy or base == "CALL":
            wait()
        if loaded:
            pending.append(addr)
            busy |= loaded
        if base in ("EXIT", "RET", "BRX", "JMX") and not conditional:
            break
        if target is not None and (target > i and not conditional
                                   or target <= i and i not in looped):
            looped.add(i)
            i = target
            continue
        if base == "BRA" and not conditional:
            break
        i += 1
    wait()


def load_rounds(instrs, labels):
    """{address of a global load: the loads a warp has in flight when it first waits for it},
    along the likely path from the kernel's start, then from each label for the loads that path
    did not meet (a slow path's)."""
    index = {addr: i for i, (addr, *_) in enumerate(instrs)}
    code = []
    for addr, op, operands, text in instrs:
        base = op.split(".")[0]
        m = BRANCH_TARGET.search(operands) if base == "BRA" else None
        loaded = registers(operands.split(",")[0], access_width(op)) if base == "LDG" else set()
        code.append((addr, base, registers(operands, access_width(op)), loaded,
                     index.get(labels.get(m.group(1))) if m else None,
                     bool(PREDICATED.search(text))))
    k, seen = {}, set()
    for n, start in enumerate([0] + sorted(index[a] for a in labels.values() if a in index)):
        follow(code, start, k, seen, n == 0)
    return k


def line_counts(text):
    """{mangled kernel: {(file, line): [SASS instructions, anchors, plain IMADs, global loads,
    their waits]}} from nvdisasm -g output, divergence fallbacks left out. An IMAD with a
    modifier is something else (a move, shift, add, wide or high half); a load costs 1/k of a
    wait, k the most load_rounds() gives any of its line's loads."""
    code = parse_sass(text)
    cold = {name: divergence_fallbacks(*c) for name, c in code.items()}
    rounds = {name: load_rounds(*c) for name, c in code.items()}
    counts, most, name, where = {}, collections.Counter(), None, None
    for line in text.splitlines():
        if m := FUNCTION.match(line):
            name, where = m.group(1), None
            counts[name] = collections.defaultdict(lambda: [0, 0, 0, 0, 0.0])
        elif m := LINE_INFO.search(line):
            where = (m.group(1), int(m.group(2)))
        elif (name and where and (m := INSTR.search(line)) and m.group(2) != "NOP"
              and int(m.group(1), 16) not in cold[name]):
            op = m.group(2).split(".")[0]
            counts[name][where][0] += 1
            counts[name][where][1] += op in ANCHORS
            counts[name][where][2] += m.group(2) == "IMAD"
            if op == "LDG":
                counts[name][where][3] += 1
                k = rounds[name].get(int(m.group(1), 16), 1)
                most[name, where] = max(most[name, where], k)
    for name, by_line in counts.items():  # a line's loads over the most in flight at a wait
        for where, c in by_line.items():
            c[4] = c[3] / most[name, where] if c[3] else 0.0
    return counts


def lines_file(counts):
    """The COURSE_EMU_MODEL_SASS lines (KERNEL FILE LINE COUNT ANCHORS IMADS LOADS WAITS) of
    line_counts()."""
    return [f"{kernel} {pathlib.Path(file).name} {line} {n} {anchors} {imads} {loads} {waits:.4f}"
            for kernel, by_line in counts.items()
            for (file, line), (n, anchors, imads, loads, waits) in sorted(by_line.items())]


def cubins_of(binary, arch, cuobjdump, work):
    """@p binary's sm_@p arch cubins, extracted into @p work (an sm_90a binary's for 90 too, an
    sm_90 one's for 90a), [] without; a cubin is its own."""
    binary = pathlib.Path(binary).resolve()
    if binary.suffix == ".cubin":
        return [binary]
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([cuobjdump, "-xelf", "all", str(binary)], cwd=work, capture_output=True)
    base = arch.rstrip("a")
    for a in dict.fromkeys((arch, base, base + "a")):
        cubins = sorted(work.glob(f"*.sm_{a}.cubin"))
        if cubins:
            return cubins
    return []


def cubin_registers(cubin, cuobjdump):
    """{mangled kernel: registers per thread} of @p cubin."""
    return resource_registers(run([cuobjdump, "--dump-resource-usage", str(cubin)]))


def resource_registers(text):
    """{mangled kernel: registers per thread} from cuobjdump --dump-resource-usage's @p text."""
    regs, name = {}, None
    for line in text.splitlines():
        if m := re.match(r"\s*Function (\S+):$", line):
            name = m.group(1)
        elif name and (m := re.search(r"\bREG:(\d+)", line)):
            regs[name] = int(m.group(1))
            name = None
    return regs


def cubin_lines(cubin, nvdisasm):
    """The --lines table's lines for @p cubin (nvdisasm -g)."""
    return lines_file(line_counts(run([nvdisasm, "-g", "-c", str(cubin)])))


def print_lines(binary, arch, nvdisasm, cuobjdump, work):
    """The --lines table of @p binary's sm_@p arch cubins (extracted into @p work)."""
    cubins = cubins_of(binary, arch, cuobjdump, work)
    if not cubins:
        sys.exit(f"sass.py: no sm_{arch} code in {binary}")
    for cubin in cubins:
        for line in cubin_lines(cubin, nvdisasm):
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


def arch_digits(text):
    """The digits (and a or f suffix) of an architecture written 90, 90a, sm_90 or sm_90a."""
    digits = text.removeprefix("sm_")
    if not re.fullmatch(r"[0-9]{2,3}[af]?", digits):
        raise argparse.ArgumentTypeError(f"'{text}' is no SM architecture (write 90, 90a or sm_90)")
    return digits


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", nargs="?", help="solutions/NN_topic or exercises/NN_topic")
    p.add_argument("kernel", nargs="?", default="", help="part of a kernel's name")
    p.add_argument("--arch", default="90", type=arch_digits,
                   help="the SM architecture, e.g. 80, 90a or sm_90")
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
