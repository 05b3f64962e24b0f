#!/usr/bin/env python3
"""The course's validation report: ./course gpu-report [--out DIR] [--skip STEP,...]
[--budget SECONDS] [--apply DIR].

On a GPU it describes the machine, measures what the time model assumes of the GPU
(tools/probes: latencies, clocks, rates) beside the model's values, benchmarks every lesson against cuBLAS at the size its
"Measured" section names, runs the suite's timing cases against their bars and its GPU cases,
puts the time model's estimate beside each benchmark, reads Nsight Compute's counters beside
the emulator's for the same kernels, runs the differential harness (the emulator against the
GPU) and compute-sanitizer on every lesson's GPU cases. Without a GPU every step runs on the
CPU emulator and every time or ncu column says "not run". It writes at most 11 files into DIR:

  report.md     the machine, a summary of each step, and the tables in markdown
  probes.csv    what the time model assumes of the GPU, measured on it, beside the model's row
  probes.gpu    the model's row with those measurements in place: a GPU file for --gpu=FILE
  suite.csv     every test: name, status, seconds
  perf.csv      every timing case's ratio against its bar (tests/common/course_bars.c)
  bench.csv     every lesson's benchmark rows
  clocks.csv    on a GPU, its SM clock and power while each lesson's benchmark ran (nvidia-smi)
  sanitize.csv  every lesson's sanitizer verdict
  ncu.csv       ncu's counters beside the emulator's, per kernel
  diff.csv      the differential harness's mismatches
  logs.tar.gz   every step's raw output

The steps run in the order of what they tell: the machine, the model's assumptions, the benchmarks, the suite, the time
model's column beside the benchmarks, ncu, the differential and the sanitizers. On a GPU the
suite runs what the GPU changes: the timing cases one at a time, then the lessons' GPU cases side
by side (the CPU cases are `./course test`'s, on any machine). report.md and logs.tar.gz are
rewritten after every step, so a run cut short keeps what it finished. For a short lease:
--skip STEP,... leaves steps out; --budget SECONDS starts no step, and no lesson within one,
once that time is spent. Either way the report names what did not run and why.

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
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import course_set  # noqa: E402  (a lesson's sources; benchmark rows paired with launches)
import estimate  # noqa: E402  (the model's environment and launches)
from grade import junit  # noqa: E402  (the one JUnit reader)

NOT_RUN = "not run"
FILE_OF = {"probes": "probes.csv", "bench": "bench.csv", "suite": "suite.csv", "differential": "diff.csv", "sanitize": "sanitize.csv",
           "ncu": "ncu.csv"}
BEGIN = "<!-- gpu-report: begin -->"
END = "<!-- gpu-report: end -->"
STEPS = ("probes", "bench", "suite", "model", "ncu", "differential", "sanitize")


def tree_stamp(root):
    """The commit and a hash of every uncommitted change: which tree a result is for."""
    def git(*args):
        try:
            return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True).stdout
        except OSError:  # no git on this machine (a course unpacked from an archive)
            return ""
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
        self.sections = {}  # step: its lines of report.md
        self.md = []
        self.bench_rows = []
        self.clock_rows = []  # the SM clock while each lesson's benchmark ran (a GPU's)
        self.start = time.monotonic()
        self.deadline = None if args.budget is None else self.start + args.budget
        self.lessons = sorted(os.path.basename(d) for d in glob.glob(os.path.join(self.root, "lessons", "[0-9][0-9]_*")))

    def begin(self, name):
        """Start (or restart) step @p name's section of report.md: rep.md is its lines."""
        self.md = self.sections[name] = []

    def spent(self):
        """Whether --budget's time is spent: no step, and no lesson within one, starts after."""
        return self.deadline is not None and time.monotonic() >= self.deadline

    def left(self, cap=None):
        """Seconds a command may still run: the budget's rest, at most @p cap (None: no limit)."""
        if self.deadline is None:
            return cap
        rest = max(1.0, self.deadline - time.monotonic())
        return rest if cap is None else min(cap, rest)

    def step(self, text):
        print(f"gpu-report [{time.monotonic() - self.start:5.0f} s] {text}", flush=True)

    def run(self, name, cmd, env=None, timeout=None):
        """Run @p cmd, keep its output as log @p name; return (exit status, output)."""
        full = dict(os.environ, **(env or {}))
        timeout = self.left(timeout)
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


def probes(rep):
    """What the time model assumes of this GPU (its row in emulator/vm/gpus.c), measured by
    course_probes beside the row's values; on the emulator each probe's kernel runs small and is
    checked, and nothing is timed."""
    rep.step("the time model's assumptions, measured (course_probes)")
    path = os.path.join(rep.out, "probes.csv")
    code, text = rep.run("probes", [os.path.join(rep.bin, "course_probes"), f"--gpu={model_gpu(rep)}",
                                    f"--csv={path}", f"--gpu-file={os.path.join(rep.out, 'probes.gpu')}"],
                         timeout=600)
    if code != 0:
        rep.problems.append(f"probes: exit {code}: {(text.strip().splitlines() or [''])[-1]}")
    rows = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    where = "measured on this GPU" if rep.device == "gpu" else "not run (the CPU emulator: each probe's result checked)"
    rep.md += [f"## {TITLES['probes']}", "", f"`./course probes`, {where}; the model's column is "
               "its row in `emulator/vm/gpus.c` (`-`: a value it does not have); `probes.gpu` is that row with "
               "the measured values in place (`./course estimate NN --gpu=probes.gpu`).", ""]
    rep.table(rows[0] if rows else ["probe"], rows[1:] or [["none: " + text.strip()[-200:]]])


def junit_rows(path):
    """(name, status, seconds) of every test in a CTest JUnit file (grade/junit.py reads it):
    status passed, failed or skipped."""
    words = {"passed": "passed", "failed": "failed", "notrun": "skipped"}
    return [(c.name, words[c.status], f"{c.seconds:g}") for c in junit.read(path)]


def suite(rep):
    """The suite with its timing cases; on the emulator, ./course test's run of this very tree
    when there is one (the emulator's results do not change from run to run)."""
    junit = os.path.join(rep.build, "test-results.xml")
    stamp = os.path.join(rep.build, "test-results.stamp")
    perf_tsv = os.path.join(rep.out, ".perf.tsv")
    reuse = (rep.device == "emulator" and os.path.exists(junit) and os.path.exists(stamp)
             and open(stamp).read().strip() == tree_stamp(rep.root))
    if os.path.exists(perf_tsv):
        os.remove(perf_tsv)
    if reuse:
        rep.step("the suite: ./course test's results for this tree (emulator)")
        source = "the results of `./course test` on this same tree"
        rows = junit_rows(junit)
    elif rep.device == "gpu":
        rows = gpu_suite(rep, perf_tsv)
        source = "this run: the timing cases one at a time, then the lessons' GPU cases side by side"
    else:
        rep.step("the suite")
        rep.run("suite", ["ctest", "--test-dir", rep.build, "-LE", "exercise", "--output-junit", junit,
                          "-j", str(os.cpu_count() or 2)], env={"COURSE_PERF_OUT": perf_tsv})
        rows = junit_rows(junit) if os.path.exists(junit) else []
        source = "this run"
    rep.write_csv("suite.csv", ["test", "status", "seconds"], rows)
    count = {s: sum(1 for r in rows if r[1] == s) for s in ("passed", "failed", "skipped")}
    rep.md += ["## The suite", "", f"{len(rows)} tests ({source}): {count['passed']} passed, "
               f"{count['failed']} failed, {count['skipped']} skipped.", ""]
    failed = [r[0] for r in rows if r[1] == "failed"]
    if failed:
        rep.md += ["Failed: " + ", ".join(f"`{n}`" for n in failed), ""]
    perf(rep, rows, perf_tsv)
    return rows


def gpu_suite(rep, perf_tsv):
    """On a GPU: the timing cases alone on it, then the lessons' other GPU cases side by side."""
    rows = []
    for what, args in (("timing cases, one at a time", ["-L", "perf", "-LE", "exercise", "-j", "1"]),
                       ("the lessons' GPU cases", ["-R", r"^[0-9][0-9]\.solution\.", "-L", "gpu", "-LE", "exercise|perf",
                                                   "-j", str(min(8, os.cpu_count() or 2))])):
        if rep.spent():
            rep.md += [f"The suite's {what}: not run (the budget was spent).", ""]
            continue
        rep.step(f"the suite: {what}")
        junit = os.path.join(rep.out, ".suite.xml")
        # One -LE each: CTest keeps only one label exclusion, so the timing cases name none.
        rep.run("suite", ["ctest", "--test-dir", rep.build, "--output-junit", junit, *args],
                env={"COURSE_PERF_OUT": perf_tsv})
        if os.path.exists(junit):
            rows += junit_rows(junit)
            os.remove(junit)
        else:
            rep.problems.append(f"the suite's {what} wrote no results (cut short by the budget?)")
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
BENCH_COLUMNS = ("version", "variant", "inputs", "device", "m", "n", "k", "ms", "model_ms", "gflops", "tflops", "gbs", "pct_baseline", "rel_err", "warp_insts",
                 "gld_requests", "gld_sectors", "lds_requests", "lds_wavefronts", "check")


def model_gpu(rep):
    """The time model's GPU row for this machine's GPU: the row `course_probes --row-of` gives its
    name (emulator/vm/gpus.c's gpus_of_device()), h100 without a GPU or a matching row."""
    if rep.device != "gpu":
        return "h100"
    names = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                           capture_output=True, text=True).stdout.splitlines()
    row = subprocess.run([os.path.join(rep.bin, "course_probes"), f"--row-of={names[0] if names else ''}"],
                         capture_output=True, text=True).stdout.strip()
    return row or "h100"


def model_times(rep, lesson, flags, gpu):
    """Each launch of the lesson's driver at @p flags, run on the emulator with the time model of
    @p gpu (emulator/README.md, "Time model"), as (kernel, estimated ms, bound), in order."""
    out = os.path.join(rep.out, ".model.txt")
    if os.path.exists(out):
        os.remove(out)
    with tempfile.TemporaryDirectory() as work:
        env = course_set.lesson_env(lesson[:2], gpu, out, rep.build, work)
        rep.run("model", [os.path.join(rep.bin, lesson), *flags], env=env, timeout=900)
    launches = estimate.kernel_launches(out)
    if os.path.exists(out):
        os.remove(out)
    return launches


# What nvidia-smi's clock event reasons mean, by bit (NVML's nvmlClocksEventReasons).
CLOCK_REASONS = {0x1: "idle", 0x2: "application clocks", 0x4: "power cap", 0x8: "hardware slowdown",
                 0x10: "sync boost", 0x20: "software thermal", 0x40: "hardware thermal",
                 0x80: "power brake", 0x100: "display clock"}
CLOCK_HEADER = ["lesson", "busy_samples", "sm_mhz_min", "sm_mhz_median", "sm_mhz_max", "power_w_max", "reasons"]


def clock_query():
    """The nvidia-smi command that prints GPU 0's SM clock, power and clock event reasons once (the
    reasons' field under its new name, else its old one), or None where nvidia-smi answers
    neither: asked once a report."""
    for reasons in ("clocks_event_reasons.active", "clocks_throttle_reasons.active"):
        query = ["nvidia-smi", "-i", "0", f"--query-gpu=clocks.sm,power.draw,{reasons}",
                 "--format=csv,noheader,nounits"]
        if subprocess.run(query, capture_output=True).returncode == 0:
            return query
    return None


def clock_sampler(query):
    """@p query (clock_query()'s) repeated every 20 ms, started; stop it with clock_samples()."""
    return subprocess.Popen(query + ["-lms", "20"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)


def clock_samples(sampler):
    """The lines a clock_sampler() printed, once it is stopped."""
    sampler.terminate()
    return sampler.communicate()[0].splitlines()


def clock_row(lesson, lines):
    """A row of CLOCK_HEADER from nvidia-smi's samples "MHz, W, reasons" while @p lesson's
    benchmark ran: the samples whose reasons do not say idle (the driver's host work between
    kernels), and every reason they name."""
    busy, reasons = [], 0
    for line in lines:
        try:
            mhz, watts, bits = (x.strip() for x in line.split(","))
            sample = (float(mhz), float(watts), int(bits, 16))
        except ValueError:
            continue  # a line cut short when the sampler stopped, or "[N/A]"
        if not sample[2] & 0x1:
            busy.append(sample)
            reasons |= sample[2]
    if not busy:
        return [lesson, 0, "", "", "", "", "no sample outside idle"]
    mhz = sorted(b[0] for b in busy)
    named = ", ".join(name for bit, name in CLOCK_REASONS.items() if reasons & bit) or "none"
    return [lesson, len(busy), f"{mhz[0]:.0f}", f"{mhz[len(mhz) // 2]:.0f}", f"{mhz[-1]:.0f}",
            f"{max(b[1] for b in busy):.0f}", named]


def bench(rep):
    """Every lesson's benchmark, one run each; its CSV rows into bench.csv (on a GPU, its SM
    clock meanwhile into clocks.csv)."""
    rows = []
    csv_path = os.path.join(rep.out, ".bench.csv")
    query = clock_query() if rep.device == "gpu" else None
    for lesson in rep.lessons:
        exe = os.path.join(rep.bin, lesson)
        if not os.path.exists(exe):
            continue
        if rep.spent():
            rows.append({"lesson": lesson, "version": "not run: the budget was spent"})
            continue
        rep.step(f"bench {lesson}")
        if os.path.exists(csv_path):
            os.remove(csv_path)
        sampler = clock_sampler(query) if query else None
        code, _ = rep.run("bench", [exe, *bench_flags(rep, lesson), f"--csv={csv_path}"], timeout=900)
        if sampler is not None:
            rep.clock_rows.append(clock_row(lesson, clock_samples(sampler)))
        if code != 0 or not os.path.exists(csv_path):
            cut = code == 124 and rep.spent()
            why = "not finished: the budget was spent" if cut else f"the benchmark failed (exit {code}): see logs"
            rows.append({"lesson": lesson, "version": why})
            rep.problems.append(f"{lesson}'s benchmark: {why}")
            if os.path.exists(csv_path):
                os.remove(csv_path)
            continue
        with open(csv_path) as f:
            rows += list(csv.DictReader(f))
        os.remove(csv_path)
    rep.bench_rows = rows
    if rep.clock_rows:
        rep.write_csv("clocks.csv", CLOCK_HEADER, rep.clock_rows)
    bench_table(rep)
    return rows


def model(rep):
    """The time model's estimate beside each benchmark row, at the benchmark's own size."""
    gpu = model_gpu(rep)
    done = set()
    for r in rep.bench_rows:
        lesson = r.get("lesson", "")
        if lesson[:2] in ("01", "13") or lesson in done or "device" not in r:  # 01: no kernel; 13: ranks
            continue
        done.add(lesson)
        launches = []
        if rep.spent():
            missing = "not modelled: the budget was spent"
        else:
            rep.step(f"model {lesson}")
            launches = model_times(rep, lesson, bench_flags(rep, lesson), gpu)
            missing = "not modelled: no kernel of that name"
        mine = [row for row in rep.bench_rows if row.get("lesson") == lesson]
        for version in dict.fromkeys(row.get("version", "") for row in mine):
            for row in mine:  # the emulator's rows of a helper's or a library's kernel keep it
                if row.get("version", "") == version:
                    row["model_ms"] = f"not modelled: not {version}_kernel"
            rows = course_set.own_rows(lesson[:2], version, mine)
            try:  # a version benchmarked twice: its kernel's last two launches, in order
                times = [f"{ms:.4g} ({gpu} model)"
                         for ms, _, _ in course_set.paired(lesson[:2], version, launches, rows)]
            except ValueError:
                times = [missing] * len(rows)
            for row, ms in zip(rows, times):
                row["model_ms"] = ms
    bench_table(rep)


def bench_table(rep):
    """bench.csv and the report's benchmark section, from the rows so far."""
    rows = rep.bench_rows
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    keys += [k for k in ("model_ms",) if k not in keys]
    for r in rows:
        r.setdefault("model_ms", "not modelled")
    with open(os.path.join(rep.out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore", restval="")
        w.writeheader()
        w.writerows(rows)
    rep.begin("bench")
    rep.md += ["## Benchmarks", "", "Every lesson's driver, once, at the size its \"Measured\" section names "
               "(on the emulator: its own small sizes, and counts, not times). Rows: bench.csv.", ""]
    shown = [k for k in BENCH_COLUMNS if any(r.get(k) for r in rows)]
    rep.table(["lesson"] + shown, [[r.get("lesson", "")[:2]] + [r.get(k, "") for k in shown] for r in rows])
    if rep.device != "gpu":
        rep.md += ["The SM clock during the benchmarks: not run (no GPU).", ""]
    elif rep.clock_rows:
        rep.md += ["The SM clock while each lesson's benchmark ran (nvidia-smi every 20 ms, GPU 0; the samples "
                   "its clock event reasons do not call idle; what they name). Rows: clocks.csv.", ""]
        rep.table(CLOCK_HEADER, rep.clock_rows)


def sanitize(rep, rows):
    """compute-sanitizer's four tools on every lesson's GPU cases; on the emulator, its own
    checks as the suite ran them (NN.solution.sanitize)."""
    out = []
    if rep.device == "gpu":
        for lesson in rep.lessons[1:]:
            if rep.spent():
                out.append([lesson, "compute-sanitizer", "not run: the budget was spent"])
                continue
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
# The launch's shape: a kernel is compared only where the GPU and the emulator ran the same one.
NCU_LAUNCH = {"blocks": "launch__grid_size", "threads": "launch__block_size"}


def emulator_counts(rep, lesson):
    """The emulator's counts of every kernel of @p lesson's driver, by kernel name."""
    path = os.path.join(rep.out, ".profile.csv")
    env = {"LD_LIBRARY_PATH": os.path.join(rep.build, "emulator", "lib") + ":" + os.environ.get("LD_LIBRARY_PATH", "")}
    rep.run("ncu", [os.path.join(rep.bin, lesson), *emulator_flags(lesson), f"--csv={path}"], env=env)
    counts = {}
    if os.path.exists(path):
        with open(path) as f:
            counts = {r["kernel"].split("(")[0]: r for r in csv.DictReader(f) if r.get("kernel")}
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
            if rep.spent():
                out.append([lesson, "", "", NOT_RUN, "", "the budget was spent"])
                continue
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
    metrics = list(NCU_METRICS.values()) + list(NCU_LAUNCH.values())
    code, text = rep.run("ncu", ["ncu", "--clock-control", "none", "--csv", "--page", "raw", "--kernel-name-base",
                                 "function", "--metrics", ",".join(metrics), "-c", "64",
                                 os.path.join(rep.bin, lesson), *flags])
    return ncu_rows(lesson, emu, text) or [[lesson, "", "", f"ncu failed (exit {code})", "", "see logs"]]


def blocks_and_threads(grid, block):
    """A launch's block count and block size from the emulator's "XxYxZ" columns."""
    def product(dims):
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        return n
    return product(grid), product(block)


def ncu_rows(lesson, emu, text):
    """ncu's raw CSV in @p text beside the emulator's counts @p emu (by kernel name), one row per
    kernel and counter. A kernel is compared only where both launched the same grid and block
    (sizes the flags do not set differ between a GPU's defaults and the emulator's); the
    instruction count is a ratio, since the emulator counts PTX and ncu the SASS ptxas made."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    rows, seen = [], set()
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        kernel = r.get("Kernel Name", "")
        if not kernel or kernel in seen:
            continue
        seen.add(kernel)
        mine = emu.get(kernel.split("(")[0])
        shape = tuple(int(float(r.get(m, "0").replace(",", "") or 0)) for m in NCU_LAUNCH.values())
        for ours, metric in NCU_METRICS.items():
            theirs = r.get(metric, "").replace(",", "")
            if not mine:
                rows.append([lesson, kernel, ours, theirs, "",
                             "not counted: the emulator's run did not launch it (a library's "
                             "kernel, or one its sizes do not pick)"])
            elif shape != blocks_and_threads(mine["grid"], mine["block"]):
                rows.append([lesson, kernel, ours, theirs, mine.get(ours, ""),
                             f"not compared: launch {shape[0]}x{shape[1]} on the GPU, "
                             f"{mine['grid']} x {mine['block']} on the emulator"])
            elif ours == "warp_insts":
                ratio = float(mine[ours]) / float(theirs) if float(theirs or 0) else 0
                rows.append([lesson, kernel, ours, theirs, mine[ours], f"{ratio:.2f} (PTX against SASS)"])
            else:
                same = theirs and float(mine[ours]) == float(theirs)
                rows.append([lesson, kernel, ours, theirs, mine[ours], "yes" if same else "no"])
    return rows


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
        if rep.spent():
            open(raw, "a").write(f"summary lesson {num}: not run (the budget was spent)\n")
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


TITLES = {"probes": "The time model's assumptions, measured", "bench": "Benchmarks", "suite": "The suite", "model": "The time model beside the benchmarks",
          "differential": "The differential", "sanitize": "Sanitizers", "ncu": "Nsight Compute beside the emulator"}


def write_report(rep, waiting, final):
    """report.md from the sections so far, the steps not run named with why, and the logs."""
    lines = list(rep.sections.get("machine", []))
    for name in STEPS:
        if name in rep.sections:
            lines += rep.sections[name]
        elif name in waiting:
            lines += [f"## {TITLES[name]}", "", waiting[name], ""]
    state = "in" if final else "cut short after"
    lines.append(f"Written by `./course gpu-report` {state} {time.monotonic() - rep.start:.0f} s.")
    with open(os.path.join(rep.out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    write_logs(rep)


def report(args):
    os.makedirs(args.out, exist_ok=True)
    rep = Report(args)
    rep.begin("machine")
    machine(rep)
    waiting = {s: "Not run: left out with --skip." if s in args.skip else "Not run: the report was cut short."
               for s in STEPS}
    rows = []
    for name in STEPS:
        if name in args.skip:
            continue
        if rep.spent():
            waiting[name] = "Not run: the budget (--budget) was spent."
            continue
        rep.begin(name)
        if name == "suite":
            rows = suite(rep)
        elif name == "sanitize":
            sanitize(rep, rows)
        else:
            {"probes": probes, "bench": bench, "model": model, "differential": differential, "ncu": ncu}[name](rep)
        write_report(rep, waiting, final=False)
    write_report(rep, waiting, final=True)
    files = sorted(os.listdir(args.out))
    rep.step(f"done: {len(files)} files in {args.out}: {' '.join(files)}")
    rep.problems += [f"{r[0]} failed" for r in rows if r[1] == "failed"]
    wanted = {"report.md", "logs.tar.gz"} | {FILE_OF[s] for s in STEPS if s in rep.sections and s in FILE_OF}
    if not wanted <= set(files):
        rep.problems.append(f"want {' '.join(sorted(wanted))} in {args.out}, have {' '.join(files)}")
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
    gpu = next((r["device"] for r in rows if r.get("device") not in (None, "", "CPU")), "a GPU")
    for lesson in sorted({r["lesson"] for r in rows}):
        mine = [r for r in rows if r["lesson"] == lesson]
        device = mine[0].get("device") or gpu
        if device == "CPU":  # lesson 01: the host's loops, and cuBLAS on the GPU beside them
            device = f"the CPU of the machine with the {gpu}"
        cols = [k for k in mine[0] if k not in ("lesson", "device")
                and any(r.get(k) and not r[k].startswith("not modelled") for r in mine)]
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


def steps(text):
    """--skip's list of steps, each one of STEPS."""
    names = [n for n in text.split(",") if n]
    for n in names:
        if n not in STEPS:
            raise argparse.ArgumentTypeError(f"unknown step '{n}' (steps: {','.join(STEPS)})")
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--device", choices=("gpu", "emulator"), default="emulator")
    ap.add_argument("--out", default="gpu-report")
    ap.add_argument("--apply", metavar="DIR")
    ap.add_argument("--skip", default="", type=steps, help="steps to leave out: " + ",".join(STEPS))
    ap.add_argument("--budget", type=float, metavar="SECONDS", help="start nothing once this time is spent")
    ap.add_argument("--stamp", action="store_true", help="print the tree's stamp and exit")
    args = ap.parse_args()
    if args.stamp:
        print(tree_stamp(args.root))
        return 0
    return apply(args) if args.apply else report(args)


if __name__ == "__main__":
    sys.exit(main())
