#!/usr/bin/env python3
"""The course's validation report: ./course gpu-report [--out DIR] [--apply DIR].

On a GPU it describes the machine, runs the whole suite (timing cases included) and records
each timing case against its bar, benchmarks every lesson against cuBLAS at the size its
"Measured" section names, runs compute-sanitizer on every lesson's GPU cases, reads Nsight
Compute's counters beside the emulator's for the same kernels, and runs the differential
harness (the emulator against the GPU). Without a GPU every step runs on the CPU emulator and
every time or ncu column says "not run". It writes at most 8 files into DIR:

  report.md     the machine, a summary of each step, and the tables in markdown
  suite.csv     every test: name, status, seconds
  perf.csv      every timing case's ratio against its bar (tests/common/course_bars.c)
  bench.csv     every lesson's benchmark rows
  sanitize.csv  every lesson's sanitizer verdict
  ncu.csv       ncu's counters beside the emulator's, per kernel
  diff.csv      the differential harness's mismatches
  logs.tar.gz   every step's raw output

--apply DIR writes a GPU report's benchmark tables into the lessons' "Measured" sections.
The `course` script builds first and chooses the device; this script is its back end.
"""
import argparse
import csv
import datetime
import glob
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grade import junit  # noqa: E402  (the one JUnit reader)

NOT_RUN = "not run"
FILES = ("report.md", "suite.csv", "perf.csv", "bench.csv", "sanitize.csv", "ncu.csv", "diff.csv",
         "logs.tar.gz")
BEGIN = "<!-- gpu-report: begin -->"
END = "<!-- gpu-report: end -->"


def tree_stamp(root):
    """The commit and a hash of every uncommitted change: which tree a result is for."""
    def git(*args):
        return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True).stdout
    head = git("rev-parse", "HEAD").strip() or "no-git"
    changes = git("diff", "HEAD") + git("status", "--porcelain")
    return head + ("" if not changes else "+" + hashlib.sha1(changes.encode()).hexdigest()[:12])


class Report:
    """The steps' results, the raw logs, and the time since the start."""

    def __init__(self, args):
        self.args = args
        self.root, self.build, self.device = args.root, args.build, args.device
        self.bin = os.path.join(args.build, "bin")
        self.out = args.out
        self.logs = {}
        self.problems = []
        self.md = []
        self.start = time.monotonic()
        self.lessons = sorted(os.path.basename(d) for d in glob.glob(os.path.join(self.root, "lessons", "[0-9][0-9]_*")))

    def step(self, text):
        print(f"gpu-report [{time.monotonic() - self.start:5.0f} s] {text}", flush=True)

    def run(self, name, cmd, env=None, timeout=None):
        """Run @p cmd, keep its output as log @p name; return (exit status, output)."""
        full = dict(os.environ, **(env or {}))
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=full, timeout=timeout, cwd=self.root)
            code, text = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            code, text = 124, f"{e}\n"
        except OSError as e:
            code, text = 127, f"{e}\n"
        self.logs[name] = self.logs.get(name, "") + "$ " + " ".join(cmd) + "\n" + text
        return code, text

    def write_csv(self, name, header, rows):
        with open(os.path.join(self.out, name), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)

    def table(self, header, rows):
        self.md.append("| " + " | ".join(header) + " |")
        self.md.append("|" + " --- |" * len(header))
        for r in rows:
            self.md.append("| " + " | ".join(str(c) for c in r) + " |")
        self.md.append("")


def machine(rep):
    """Device, driver, clocks, the doctor's description and ceilings, date and commit."""
    rep.step("the machine")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rep.md += ["# Course validation report", "",
               f"- date: {now}", f"- commit: {tree_stamp(rep.root)}",
               f"- kernels ran on: {'the GPU' if rep.device == 'gpu' else 'the CPU emulator (no GPU here): no time, no ncu'}"]
    if rep.device == "gpu":
        query = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,mig.mode.current"
        _, smi = rep.run("machine", ["nvidia-smi", f"--query-gpu={query}", "--format=csv"])
        rep.md.append("- nvidia-smi: " + " / ".join(smi.strip().splitlines()))
        _, doctor = rep.run("machine", [os.path.join(rep.bin, "course_doctor")])
    else:
        # Only the description: the emulator's copy and GEMM "ceilings" would be the host's.
        _, doctor = rep.run("machine", [os.path.join(rep.bin, "course_doctor"), "--size=256"])
        doctor = doctor.split("measured ceilings")[0] + "measured ceilings: not run (no GPU)\n"
    rep.md += ["", "```", doctor.strip(), "```", ""]


def junit_rows(path):
    """(name, status, seconds) of every test in a CTest JUnit file (grade/junit.py reads it):
    status passed, failed or skipped."""
    words = {"passed": "passed", "failed": "failed", "notrun": "skipped"}
    return [(c.name, words[c.status], f"{c.seconds:g}") for c in junit.read(path)]


def suite(rep):
    """The whole suite with its timing cases; on the emulator, ./course test's run of this very
    tree when there is one (the emulator's results do not change from run to run)."""
    junit = os.path.join(rep.build, "test-results.xml")
    stamp = os.path.join(rep.build, "test-results.stamp")
    perf_tsv = os.path.join(rep.out, ".perf.tsv")
    reuse = (rep.device == "emulator" and os.path.exists(junit) and os.path.exists(stamp)
             and open(stamp).read().strip() == tree_stamp(rep.root))
    if reuse:
        rep.step("the suite: ./course test's results for this tree (emulator)")
        source = "the results of `./course test` on this same tree"
    else:
        rep.step("the suite" + (", timing cases one at a time" if rep.device == "gpu" else ""))
        jobs = "1" if rep.device == "gpu" else str(os.cpu_count() or 2)
        if os.path.exists(perf_tsv):
            os.remove(perf_tsv)
        rep.run("suite", ["ctest", "--test-dir", rep.build, "-LE", "exercise", "--output-junit", junit,
                          "-j", jobs], env={"COURSE_PERF_OUT": perf_tsv})
        source = "this run"
    rows = junit_rows(junit)
    rep.write_csv("suite.csv", ["test", "status", "seconds"], rows)
    count = {s: sum(1 for r in rows if r[1] == s) for s in ("passed", "failed", "skipped")}
    rep.md += ["## The suite", "", f"{len(rows)} tests ({source}): {count['passed']} passed, "
               f"{count['failed']} failed, {count['skipped']} skipped.", ""]
    failed = [r[0] for r in rows if r[1] == "failed"]
    if failed:
        rep.md += ["Failed: " + ", ".join(f"`{n}`" for n in failed), ""]
    perf(rep, rows, perf_tsv)
    return rows


def perf(rep, rows, perf_tsv):
    """Each timing case's ratio against its bar, or "not run"."""
    measured = []
    if os.path.exists(perf_tsv):
        with open(perf_tsv) as f:
            measured = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        os.remove(perf_tsv)
    header = ["bar", "ratio", "bar value", "expected", "family", "verdict", "gpu", "source"]
    out = [[m[0], m[1], m[2], f"{m[3]}-{m[4]}", m[5], m[6], m[7], m[8]] for m in measured]
    timing = [r[0] for r in rows if r[0].split(".")[1:2] == ["solution"] and r[1] == "skipped"]
    if not out:
        out = [[name, NOT_RUN, "", "", "", "no GPU" if rep.device != "gpu" else "skipped", "", ""]
               for name in timing]
    rep.write_csv("perf.csv", header, out)
    rep.md += ["## Timing cases against their bars", ""]
    rep.table(header[:6], [r[:6] for r in out] or [["(none)"] + [""] * 5])


def emulator_flags(lesson):
    """What a lesson's driver needs to print its counts on the emulator: lesson 13's trains, and
    counts its kernels only when asked (the course script's table_flags)."""
    return ["--counters"] if lesson.startswith("13_") else []


def bench_flags(rep, lesson):
    """The flags of the command in the lesson's "Measured" section (the published size); none on
    the emulator, whose drivers pick sizes it runs in seconds."""
    if rep.device != "gpu":
        return emulator_flags(lesson)
    text = open(os.path.join(rep.root, "lessons", lesson, "README.md")).read()
    m = re.search(r"^\s+\./course bench \d\d(.*)$", text.split("## Measured", 1)[-1], re.M)
    return m.group(1).split() if m else []


# The columns report.md shows of bench.csv: a GPU's times, or the emulator's counts.
BENCH_COLUMNS = ("version", "device", "m", "n", "k", "ms", "model_ms", "gflops", "gbs", "pct_baseline", "warp_insts",
                 "gld_requests", "gld_sectors", "lds_requests", "lds_wavefronts", "check")


def model_gpu(rep):
    """The time model's GPU row for this machine's GPU (h100 without a GPU or a matching row)."""
    if rep.device == "gpu":
        name = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.lower()
        for row in ("h100", "a100", "a6000", "l4", "t4"):
            if row in name:
                return row
    return "h100"


def model_times(rep, lesson, flags):
    """{kernel: estimated ms} for the lesson's driver at @p flags, run on the emulator with the
    time model (emulator/README.md, "Time model"): the last launch of each kernel."""
    import estimate  # tools/estimate.py: the model's lines, registers from ptxas -v
    out = os.path.join(rep.out, ".model.txt")
    if os.path.exists(out):
        os.remove(out)
    gpu = model_gpu(rep)
    src = os.path.join(rep.root, "solutions", lesson)
    env = {"COURSE_EMU_MODEL": gpu, "COURSE_EMU_MODEL_OUT": out,
           "LD_LIBRARY_PATH": os.path.join(rep.build, "emulator", "lib")}
    with tempfile.TemporaryDirectory() as work:
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        nvdisasm = shutil.which("nvdisasm", path=os.path.dirname(nvcc))
        regs, sass_file = estimate.registers(src, gpu, nvcc, nvdisasm, work)
        env["COURSE_EMU_MODEL_REGS"] = regs
        if sass_file:
            env["COURSE_EMU_MODEL_SASS"] = sass_file
        rep.run("model", [os.path.join(rep.bin, lesson), *flags], env=env, timeout=900)
    rows = estimate.launches(out) if os.path.exists(out) else []
    if os.path.exists(out):
        os.remove(out)
    names = estimate.sass.demangle(sorted({r["kernel"] for r in rows}))
    return {names[r["kernel"]].split("(")[0]: f"{float(r['ms']):.4g} ({gpu} model)" for r in rows}


def bench(rep):
    """Every lesson's benchmark, one run each; its CSV rows into bench.csv."""
    rows = []
    csv_path = os.path.join(rep.out, ".bench.csv")
    for lesson in rep.lessons:
        exe = os.path.join(rep.bin, lesson)
        if not os.path.exists(exe):
            continue
        rep.step(f"bench {lesson}")
        if os.path.exists(csv_path):
            os.remove(csv_path)
        code, _ = rep.run("bench", [exe, *bench_flags(rep, lesson), f"--csv={csv_path}"], timeout=900)
        if code != 0 or not os.path.exists(csv_path):
            rows.append({"lesson": lesson, "version": f"the benchmark failed (exit {code}): see logs"})
            rep.problems.append(f"{lesson}'s benchmark failed (exit {code})")
            continue
        with open(csv_path) as f:
            got = list(csv.DictReader(f))
        os.remove(csv_path)
        if lesson[:2] not in ("01", "13"):  # 01: no kernel; 13: ranks and NCCL
            rep.step(f"model {lesson}")
            model = model_times(rep, lesson, bench_flags(rep, lesson))
            for r in got:
                r["model_ms"] = model.get(r.get("version", "") + "_kernel", "not modelled: no kernel of that name")
        rows += got
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    keys += [k for k in ("model_ms",) if k not in keys]
    for r in rows:
        r.setdefault("model_ms", "not modelled")
    with open(os.path.join(rep.out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    rep.md += ["## Benchmarks", "", "Every lesson's driver, once, at the size its \"Measured\" section names "
               "(on the emulator: its own small sizes, and counts, not times). Rows: bench.csv.", ""]
    shown = [k for k in BENCH_COLUMNS if any(r.get(k) for r in rows)]
    rep.table(["lesson"] + shown, [[r.get("lesson", "")[:2]] + [r.get(k, "") for k in shown] for r in rows])


def sanitize(rep, rows):
    """compute-sanitizer's four tools on every lesson's GPU cases; on the emulator, its own
    checks as the suite ran them (NN.solution.sanitize)."""
    out = []
    if rep.device == "gpu":
        for lesson in rep.lessons[1:]:
            rep.step(f"compute-sanitizer {lesson}")
            code, text = rep.run("sanitize", [os.path.join(rep.root, "course"), "sanitize", lesson[:2]])
            out.append([lesson, "compute-sanitizer", "clean" if code == 0 else f"reports (exit {code})"])
            if code != 0:
                rep.problems.append(f"compute-sanitizer on {lesson}: exit {code}")
    else:
        by_name = {r[0]: r[1] for r in rows}
        for lesson in rep.lessons[1:]:
            status = by_name.get(f"{lesson[:2]}.solution.sanitize", NOT_RUN)
            out.append([lesson, "the emulator's memcheck, racecheck, synccheck, initcheck",
                        {"passed": "clean"}.get(status, status)])
    rep.write_csv("sanitize.csv", ["lesson", "tool", "verdict"], out)
    rep.md += ["## Sanitizers", ""]
    rep.table(["lesson", "tool", "verdict"], out)


# What ncu measures of what the emulator counts (emulator column names: reference/bench.h).
NCU_METRICS = {
    "gld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "gld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "gst_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "gst_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lds_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sts_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "warp_insts": "smsp__inst_executed.sum",
}


def emulator_counts(rep, lesson):
    """The emulator's counts of every kernel of @p lesson's driver, by kernel name."""
    path = os.path.join(rep.out, ".profile.csv")
    env = {"LD_LIBRARY_PATH": os.path.join(rep.build, "emulator", "lib") + ":" + os.environ.get("LD_LIBRARY_PATH", "")}
    rep.run("ncu", [os.path.join(rep.bin, lesson), *emulator_flags(lesson), f"--csv={path}"], env=env)
    counts = {}
    if os.path.exists(path):
        with open(path) as f:
            counts = {r["kernel"]: r for r in csv.DictReader(f) if r.get("kernel")}
        os.remove(path)
    return counts


def ncu(rep):
    """ncu's counters for every course kernel beside the emulator's for the same sizes."""
    header = ["lesson", "kernel", "counter", "ncu", "emulator", "match"]
    out = []
    if rep.device != "gpu":
        out = [[lesson, "", "", NOT_RUN, "", "no GPU"] for lesson in rep.lessons[1:]]
    elif subprocess.run(["sh", "-c", "command -v ncu"], capture_output=True).returncode != 0:
        out = [[lesson, "", "", NOT_RUN, "", "ncu not found"] for lesson in rep.lessons[1:]]
    else:
        for lesson in rep.lessons[1:]:
            rep.step(f"ncu {lesson}")
            out += ncu_lesson(rep, lesson)
    rep.write_csv("ncu.csv", header, out)
    rep.md += ["## Nsight Compute beside the emulator", ""]
    rep.table(header, out[:60])


def ncu_lesson(rep, lesson):
    emu = emulator_counts(rep, lesson)
    sizes = next(iter(emu.values()), {})
    _, usage = rep.run("ncu", [os.path.join(rep.bin, lesson), "--help"])
    flags = [f"--{d}={sizes[d]}" for d in ("m", "n", "k") if sizes.get(d)] + ["--reps=1", "--warmup=0"]
    flags = [f for f in flags if f.split("=")[0] + "=" in usage]
    code, text = rep.run("ncu", ["ncu", "--csv", "--page", "raw", "--kernel-name-base", "function",
                                 "--metrics", ",".join(NCU_METRICS.values()), "-c", "64",
                                 os.path.join(rep.bin, lesson), *flags])
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows, seen = [], set()
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        kernel = r.get("Kernel Name", "")
        if kernel in seen or not kernel:
            continue
        seen.add(kernel)
        for ours, metric in NCU_METRICS.items():
            mine = emu.get(kernel, {}).get(ours, "")
            theirs = r.get(metric, "").replace(",", "")
            rows.append([lesson, kernel, ours, theirs, mine, "yes" if mine and theirs and float(mine) == float(theirs) else "no"])
    return rows or [[lesson, "", "", f"ncu failed (exit {code})", "", "see logs"]]


# On the emulator, the differential runs what CI's tools.differential_smoke runs: lesson 02's
# GPU cases and two of lesson 03's, in both warp schedules. On a GPU: every lesson's GPU cases.
SCHEDULE_SMOKE = {"02": [], "03": ["matmul_tiled_edges", "transpose_shared_padded_edges"]}
DIFF_FIELDS = ["kind", "case", "call", "kernels", "compare", "output", "first", "primary", "twin",
               "differing", "what"]


def diff_row(line):
    """A line of tools/differential.sh as a diff.csv row ("what=" holds spaces: it comes last)."""
    kind, _, rest = line.partition(" ")
    rest, _, what = rest.partition(" what=")
    fields = dict(f.split("=", 1) for f in rest.split(" ") if "=" in f)
    fields.update(kind=kind, what=what or fields.get("why", ""))
    return [fields.get(k, "") for k in DIFF_FIELDS]


def differential(rep):
    """The emulator against the GPU (on a GPU) or against itself in the other warp schedule."""
    mode = "gpu" if rep.device == "gpu" else "schedule"
    raw = os.path.join(rep.out, ".diff.txt")
    open(raw, "w").close()
    picks = {l[:2]: [] for l in rep.lessons[1:]} if mode == "gpu" else SCHEDULE_SMOKE
    for num, cases in picks.items():
        suite = os.path.join(rep.bin, f"test_{num}_solution")
        if not os.path.exists(suite):
            continue
        rep.step(f"differential {num} ({mode})")
        code, _ = rep.run("differential", ["sh", os.path.join(rep.root, "tools", "differential.sh"),
                                           suite, raw, mode, *cases])
        if code not in (0, 77):
            rep.problems.append(f"the differential on lesson {num} found mismatches or failures")
    with open(raw) as f:
        lines = [l.rstrip("\n") for l in f if l.strip()]
    os.remove(raw)
    rows = [diff_row(l) for l in lines if not l.startswith("summary ")]
    rep.write_csv("diff.csv", DIFF_FIELDS, rows)
    what = "the GPU" if mode == "gpu" else "itself in the other warp schedule (lessons 02 and 03)"
    rep.md += ["## The differential", "", f"The emulator against {what}: "
               + "; ".join(l.split(" ", 1)[1] for l in lines if l.startswith("summary ")) + ".", ""]
    rep.table(DIFF_FIELDS[:4] + ["first", "primary", "twin"], [r[:4] + r[6:9] for r in rows[:40]] or [["none"] + [""] * 6])


def write_logs(rep):
    with tarfile.open(os.path.join(rep.out, "logs.tar.gz"), "w:gz") as tar:
        for name, text in rep.logs.items():
            data = text.encode()
            info = tarfile.TarInfo(f"logs/{name}.log")
            info.size = len(data)
            info.mtime = int(time.time())
            tar.addfile(info, io.BytesIO(data))


def report(args):
    os.makedirs(args.out, exist_ok=True)
    rep = Report(args)
    machine(rep)
    rows = suite(rep)
    bench(rep)
    sanitize(rep, rows)
    ncu(rep)
    differential(rep)
    write_logs(rep)
    rep.md.append(f"Written by `./course gpu-report` in {time.monotonic() - rep.start:.0f} s.")
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write("\n".join(rep.md) + "\n")
    files = sorted(os.listdir(args.out))
    rep.step(f"done: {len(files)} files in {args.out}: {' '.join(files)}")
    rep.problems += [f"{r[0]} failed" for r in rows if r[1] == "failed"]
    missing = set(FILES) - set(files)
    if missing or len(files) > len(FILES):
        rep.problems.append(f"want exactly {' '.join(FILES)} in {args.out}, have {' '.join(files)}")
    for p in rep.problems:
        print(f"gpu-report: {p}", file=sys.stderr)
    return 1 if rep.problems else 0


def apply(args):
    """The benchmark tables of a GPU report into each lesson's "Measured" section."""
    text = open(os.path.join(args.apply, "report.md")).read()
    if "kernels ran on: the GPU" not in text:
        sys.exit("gpu-report --apply: this report ran on the emulator: it holds counts, not times")
    date = re.search(r"^- date: (.*)$", text, re.M).group(1)
    commit = re.search(r"^- commit: (.*)$", text, re.M).group(1)
    with open(os.path.join(args.apply, "bench.csv")) as f:
        rows = list(csv.DictReader(f))
    for lesson in sorted({r["lesson"] for r in rows}):
        mine = [r for r in rows if r["lesson"] == lesson]
        device = mine[0].get("device", "a GPU")
        cols = [k for k in mine[0] if k not in ("lesson", "device") and any(r.get(k) for r in mine)]
        block = [BEGIN, "", f"Measured on {device} on {date} at commit `{commit[:12]}`, by `./course gpu-report`:", "",
                 "| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
        block += ["| " + " | ".join(r.get(k, "") for k in cols) + " |" for r in mine]
        block += ["", END]
        put_measured(os.path.join(args.root, "lessons", lesson, "README.md"), "\n".join(block))
        print(f"gpu-report: lessons/{lesson}/README.md: {len(mine)} rows")
    return 0


def put_measured(path, block):
    """Replace the report block in @p path's "## Measured" section, or open the section with it."""
    text = open(path).read()
    if BEGIN in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    elif "## Measured\n" in text:
        head, tail = text.split("## Measured\n", 1)
        tail = re.sub(r"^\nNot yet measured[^\n]*\n(?:[^\n]+\n)*", "\n", tail, count=1)
        text = head + "## Measured\n\n" + block + "\n" + tail
    else:
        sys.exit(f"gpu-report --apply: {path} has no \"## Measured\" section")
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--device", choices=("gpu", "emulator"), default="emulator")
    ap.add_argument("--out", default="gpu-report")
    ap.add_argument("--apply", metavar="DIR")
    ap.add_argument("--stamp", action="store_true", help="print the tree's stamp and exit")
    args = ap.parse_args()
    if args.stamp:
        print(tree_stamp(args.root))
        return 0
    return apply(args) if args.apply else report(args)


if __name__ == "__main__":
    sys.exit(main())
