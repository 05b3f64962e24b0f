#!/usr/bin/env python3
"""tools/grade (the grader) on hand-written CTest JUnit files and build logs (scores, not-run
tests, missing tests, shape points that follow behaviour, Gradescope's fields, the one-line
feedback), and tools/sanitize.sh on a stand-in suite."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
GRADE = ROOT / "tools" / "grade"

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3">
  <testcase name="01.exercise.a" status="run" time="1.25"><system-out>100%: Checks: 1</system-out>
  </testcase>
  <testcase name="01.exercise.ptx_a" status="run"><system-out>100%: Checks: 1</system-out>
  </testcase>
  <testcase name="01.exercise.ptx_b" status="run"><system-out>100%: Checks: 1</system-out>
  </testcase>
  <testcase name="01.exercise.b" status="fail"><failure message=""/>
    <system-out>x.c:9:F:b:b:0: matmul at M=1: 1 bad</system-out></testcase>
  <testcase name="02.exercise.c" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>SKIPPED c: no CUDA device (none found)</system-out></testcase>
  <testcase name="02.exercise.e" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>SKIPPED e: timing needs a GPU (this one is the CPU emulator)</system-out>
  </testcase>
</testsuite>
"""
POINTS = ("# comment\n01.exercise.a\t10\tvisibility=after_published\n01.exercise.b\t5\n"
          "01.exercise.ptx_a\t2\tafter=a\n01.exercise.ptx_b\t2\tafter=a,b\n"
          "02.exercise.c\t7\n02.exercise.d\t3\n02.exercise.e\t0\n")


class GradeReport(unittest.TestCase):
    def run_report(self, *extra):
        d = pathlib.Path(self.tmp.name)
        (d / "j.xml").write_text(JUNIT)
        (d / "points.tsv").write_text(POINTS)
        out = subprocess.run([sys.executable, GRADE, "report", "--junit", d / "j.xml",
                              "--points", d / "points.tsv", "--out", d / "out", *extra],
                             capture_output=True, text=True, check=True).stdout
        return json.loads((d / "out" / "results.json").read_text()), out

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_scores(self):
        res, table = self.run_report()
        by = {t["name"]: t for t in res["tests"]}
        self.assertEqual(res["score"], 12)
        self.assertEqual(by["01.exercise.a"]["score"], 10)
        self.assertEqual(by["01.exercise.b"]["score"], 0)
        self.assertIn("1 bad", by["01.exercise.b"]["output"])
        for t in res["tests"]:
            self.assertEqual(set(t) >= {"name", "score", "max_score", "output"}, True)
        self.assertIn("TOTAL", table)

    def test_shape_points_follow_behaviour(self):
        res, table = self.run_report()
        by = {t["name"]: t for t in res["tests"]}
        self.assertEqual(by["01.exercise.ptx_a"]["score"], 2)  # a passed
        b = by["01.exercise.ptx_b"]  # passed, but b failed
        self.assertEqual((b["score"], b["status"], b["extra_data"]["result"]), (0, "failed", "held"))
        self.assertIn("scores only when b pass", b["output"])
        self.assertIn("scores only when b pass", table)

    def test_gradescope_fields(self):
        res, _ = self.run_report()
        by = {t["name"]: t for t in res["tests"]}
        a = by["01.exercise.a"]
        self.assertEqual((a["number"], a["visibility"], a["output_format"], a["execution_time"]),
                         ("1.1", "after_published", "md", 1.25))
        self.assertEqual(by["02.exercise.c"]["number"], "2.1")
        self.assertEqual(by["01.exercise.b"]["visibility"], "visible")
        self.assertEqual((res["output_format"], res["leaderboard"]), ("md", []))

    def test_not_run_is_never_passed(self):
        res, _ = self.run_report()
        c = {t["name"]: t for t in res["tests"]}["02.exercise.c"]
        self.assertEqual(c["score"], 0)
        self.assertEqual(c["status"], "failed")
        self.assertEqual(c["extra_data"]["result"], "notrun")
        self.assertIn("NOT RUN", c["output"])
        self.assertIn("no CUDA device", c["output"])

    def test_timing_case_is_feedback(self):
        res, table = self.run_report()
        e = {t["name"]: t for t in res["tests"]}["02.exercise.e"]
        self.assertEqual((e["score"], e["max_score"]), (0, 0))
        self.assertIn("feedback only", e["output"])
        self.assertIn("1 tests could not run", res["output"])  # 02.exercise.c, not e

    def test_missing_test_scores_zero(self):
        res, _ = self.run_report()
        d = {t["name"]: t for t in res["tests"]}["02.exercise.d"]
        self.assertEqual((d["score"], d["max_score"]), (0, 3))

    def test_build_errors_reach_every_test_of_the_lesson(self):
        logs = pathlib.Path(self.tmp.name) / "logs"
        logs.mkdir()
        (logs / "02.log").write_text(
            "[1/3] Building CUDA object x.o\n"
            "/tmp/course-grade.x/exercises/02_threads_blocks_grids/t.cu(41): error: "
            "identifier \"idx\" is undefined\n")
        res, table = self.run_report("--build-logs", str(logs))
        d = {t["name"]: t for t in res["tests"]}["02.exercise.d"]
        self.assertIn("did not compile", d["output"])
        self.assertIn("exercises/02_threads_blocks_grids/t.cu:41: identifier", d["output"])
        self.assertIn("lesson 02 did not compile", table)

    def test_take_copies_only_exercise_files(self):
        d = pathlib.Path(self.tmp.name)
        official = d / "tree" / "exercises" / "01_x"
        official.mkdir(parents=True)
        (official / "a.c").write_text("official\n")
        (official / "b.c").write_text("official\n")
        shared = d / "tree" / "lessons" / "01_x" / "src"
        shared.mkdir(parents=True)
        (shared / "x_main.c").write_text("official\n")
        sub = d / "sub" / "exercises" / "01_x"
        sub.mkdir(parents=True)
        (sub / "a.c").write_text("student\n")
        (sub / "new.c").write_text("student\n")
        (sub / "x_main.c").write_text("student\n")  # a driver that older exercises held
        (sub / "b.c").symlink_to(d / "elsewhere")
        (d / "sub" / "points.tsv").write_text("x\t100\n")
        out = subprocess.run([sys.executable, GRADE, "take", "--submission", d / "sub",
                              "--into", d / "tree" / "exercises"],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual((official / "a.c").read_text(), "student\n")
        self.assertEqual((official / "b.c").read_text(), "official\n")
        self.assertFalse((official / "new.c").exists())
        self.assertFalse((official / "x_main.c").exists())
        self.assertEqual((shared / "x_main.c").read_text(), "official\n")
        self.assertIn("ignoring exercises/01_x/new.c: not a file of the exercises", out)
        self.assertIn("ignoring exercises/01_x/x_main.c: the lesson's own "
                      "lessons/01_x/src/x_main.c is used", out)
        self.assertIn("ignoring exercises/01_x/b.c: a symbolic link", out)
        self.assertIn("ignoring points.tsv: outside exercises/", out)

    def test_take_moves_an_old_lesson_number_to_its_new_folder(self):
        d = pathlib.Path(self.tmp.name)
        for lesson in ("08_tensor_cores", "09_mixed_precision"):
            (d / "tree" / "exercises" / lesson).mkdir(parents=True)
        (d / "tree" / "exercises" / "08_tensor_cores" / "tensor_cores.cu").write_text("official\n")
        (d / "tree" / "exercises" / "09_mixed_precision" / "loss_scale.c").write_text("official\n")
        for lesson in ("06_tensor_cores", "07_mixed_precision", "09_mixed_precision"):
            (d / "sub" / "exercises" / lesson).mkdir(parents=True)
        (d / "sub" / "exercises" / "06_tensor_cores" / "tensor_cores.cu").write_text("old\n")
        (d / "sub" / "exercises" / "07_mixed_precision" / "loss_scale.c").write_text("old\n")
        (d / "sub" / "exercises" / "09_mixed_precision" / "loss_scale.c").write_text("new\n")
        out = subprocess.run([sys.executable, GRADE, "take", "--submission", d / "sub",
                              "--into", d / "tree" / "exercises"],
                             capture_output=True, text=True, check=True).stdout
        tree = d / "tree" / "exercises"
        self.assertEqual((tree / "08_tensor_cores" / "tensor_cores.cu").read_text(), "old\n")
        self.assertIn("exercises/06_tensor_cores/tensor_cores.cu is graded as "
                      "exercises/08_tensor_cores/tensor_cores.cu: lesson 06 is lesson 08 now", out)
        # Both layouts handed in: the new folder's file is graded, the old one ignored.
        self.assertEqual((tree / "09_mixed_precision" / "loss_scale.c").read_text(), "new\n")
        self.assertIn("ignoring exercises/07_mixed_precision/loss_scale.c", out)

    def test_lesson_filter_and_csv(self):
        res, _ = self.run_report("--lessons", "01")
        self.assertEqual([t["name"] for t in res["tests"]],
                         ["01.exercise.a", "01.exercise.b", "01.exercise.ptx_a", "01.exercise.ptx_b"])
        rows = (pathlib.Path(self.tmp.name) / "out" / "grades.csv").read_text().splitlines()
        self.assertEqual(rows[0], "test,result,score,max_score,solution_match")
        self.assertEqual(rows[-1], "TOTAL,,12,19,")

    def test_solution_match(self):
        res, table = self.run_report("--lessons", "01", "--exercises", ROOT / "solutions")
        self.assertEqual(res["extra_data"]["solution_match"]["01"], {"percent": 100, "copy": True})
        self.assertIn("100% (copy)", table)
        res, table = self.run_report("--lessons", "01", "--exercises", ROOT / "exercises")
        self.assertEqual(res["extra_data"]["solution_match"]["01"], {"percent": 0, "copy": False})
        rows = (pathlib.Path(self.tmp.name) / "out" / "grades.csv").read_text().splitlines()
        self.assertEqual(rows[1], "01.exercise.a,passed,10,10,0%")


# What the judge wrote, on the emulator, for a lesson 02 vector_add without its bound check
# (c[i] = a[i] + b[i] for every thread of the grid), and a PTX case: in the suite's order,
# reversed here.
FAULT = ("vector_add: invalid global read of 4 bytes at 0x7f2625100300 (4 bytes past the end "
         "of a 768-byte allocation) in vector_add_kernel at 02_threads_blocks_grids/"
         "threads_blocks_grids.cu:31, block (0,0,0), thread (128,0,0)")
REAL_JUNIT = f"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3">
  <testcase name="02.exercise.ptx_uses_thread_hierarchy" status="fail"><failure message=""/>
    <system-out>Running suite(s): course
0%: Checks: 1, Failures: 1, Errors: 0
/work/x/tests/02_threads_blocks_grids/test_threads_blocks_grids.c:222:F:ptx_uses_thread_hierarchy:ptx_uses_thread_hierarchy:0: vector_add_kernel does not read gridDim.x and blockDim.x: no grid-stride loop
</system-out></testcase>
  <testcase name="02.exercise.vector_add_host_edges" status="run"><system-out>100%</system-out>
  </testcase>
  <testcase name="02.exercise.vector_add_edges" status="fail"><failure message=""/>
    <system-out>Running suite(s): course
0%: Checks: 1, Failures: 1, Errors: 0
/work/x/tests/common/course_judge.c:544:F:vector_add_edges:vector_add_edges:0: {FAULT}; then the student's code exited with status 1; its output ends: /tmp/course-grade.Ab12/exercises/02_threads_blocks_grids/threads_blocks_grids.cu:49: cudaGetLastError() failed: cudaErrorIllegalAddress (an illegal memory access was encountered)
</system-out></testcase>
</testsuite>
"""
REAL_POINTS = ("02.exercise.vector_add_edges\t10\n02.exercise.vector_add_host_edges\t10\n"
               "02.exercise.ptx_uses_thread_hierarchy\t5\n")
# nvcc's own lines for float4 + float4, after ninja's FAILED line and the command it ran.
NVCC_LOG = """[1/3] Building CUDA object CMakeFiles/02_exercise.dir/exercises/02_x/x.cu.o
FAILED: CMakeFiles/02_exercise.dir/exercises/02_x/x.cu.o
/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -Xcompiler=-Wall -c /g/exercises/02_x/x.cu
/g/exercises/02_x/x.cu(31): error: no operator "+" matches these operands
            operand types are: float4 + float4
      c[0] = (x + y).x;
                ^
/g/exercises/02_x/x.cu(31): note #3328-D: built-in operator+(<promoted arithmetic>) does not match
      c[0] = (x + y).x;
                ^

1 error detected in the compilation of "/g/exercises/02_x/x.cu".
ninja: build stopped: subcommand failed.
"""
GCC_LOG = """/g/exercises/01_x/x.c: In function 'matmul_naive':
/g/exercises/01_x/x.c:12:5: error: 'foo' undeclared (first use in this function)
   12 |     foo = 1;
      |     ^~~
/g/exercises/01_x/x.c:12:5: note: each undeclared identifier is reported only once
"""


class Feedback(unittest.TestCase):
    """What a student reads: one clean line per case, most important first."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = pathlib.Path(self.tmp.name)
        (self.d / "j.xml").write_text(REAL_JUNIT)
        (self.d / "points.tsv").write_text(REAL_POINTS)

    def tearDown(self):
        self.tmp.cleanup()

    def grade(self, *args, check=True):
        return subprocess.run([sys.executable, GRADE, *map(str, args)], capture_output=True,
                              text=True, check=check).stdout

    def test_fault_line_first_whole_and_clean(self):
        self.grade("report", "--junit", self.d / "j.xml", "--points", self.d / "points.tsv",
                   "--out", self.d / "out")
        res = json.loads((self.d / "out" / "results.json").read_text())
        out = {t["name"]: t for t in res["tests"]}["02.exercise.vector_add_edges"]["output"]
        self.assertTrue(out.startswith(FAULT), out)
        self.assertIn("exercises/02_threads_blocks_grids/threads_blocks_grids.cu:49: "
                      "cudaGetLastError() failed: cudaErrorIllegalAddress (an illegal memory "
                      "access was encountered)", out)
        self.assertNotIn("\n", out)
        for raw in ("/work/", "/tmp/", ":F:", "course_judge.c", "Checks:"):
            self.assertNotIn(raw, out)

    def test_check_lists_cases_in_file_order_with_points(self):
        res = subprocess.run([sys.executable, GRADE, "verdict", "--junit", self.d / "j.xml",
                              "--lesson", "02", "--points", self.d / "points.tsv"],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 1)
        lines = res.stdout.splitlines()
        cases = [l.split()[-1] for l in lines if l.startswith("  PASS") or l.startswith("  FAIL")]
        self.assertEqual(cases, ["vector_add_edges", "vector_add_host_edges",
                                 "ptx_uses_thread_hierarchy"])
        self.assertIn("  FAIL   0/10  vector_add_edges", lines)
        self.assertIn("  PASS  10/10  vector_add_host_edges", lines)
        self.assertTrue(lines[1].strip().startswith(FAULT), lines[1])  # whole, not cut at 200

    def test_check_shows_a_staged_lesson_stage_by_stage(self):
        def case(name, ok):
            return (f'<testcase name="06.exercise.{name}" status="{"run" if ok else "fail"}">'
                    + ("" if ok else '<failure message=""/>') +
                    f"<system-out>x.c:9:F:{name}:{name}:0: {name} wrong</system-out></testcase>")
        (self.d / "j.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?><testsuite tests="4">' +
            case("no_cublas_calls", True) + case("scan_tiles_edges", False) +
            case("reduce_tree_edges", True) + case("reduce_atomic_edges", False) + "</testsuite>")
        (self.d / "points.tsv").write_text(
            "06.exercise.reduce_atomic_edges\t4\n06.exercise.reduce_tree_edges\t6\n"
            "06.exercise.scan_tiles_edges\t8\n06.exercise.no_cublas_calls\t0\n")
        res = subprocess.run([sys.executable, GRADE, "verdict", "--junit", self.d / "j.xml",
                              "--lesson", "06", "--points", self.d / "points.tsv",
                              "--stages", "reduce scan histogram"],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 1)
        lines = [l for l in res.stdout.splitlines() if not l.startswith("     ")]
        self.assertEqual(lines[:10], [
            "stage reduce (./course check 06 --stage reduce):",
            "  FAIL   0/4   reduce_atomic_edges",
            "  PASS   6/6   reduce_tree_edges",
            "  reduce: 1 passed, 1 failed, 0 skipped",
            "stage scan (./course check 06 --stage scan):",
            "  FAIL   0/8   scan_tiles_edges",
            "  scan: 0 passed, 1 failed, 0 skipped",
            "the whole lesson:",
            "  PASS   0/0   no_cublas_calls",
            "  the whole lesson: 1 passed, 0 failed, 0 skipped"])
        self.assertIn("2 passed, 2 failed, 0 skipped", lines)

    def test_compile_error_keeps_nvcc_detail(self):
        (self.d / "nvcc.log").write_text(NVCC_LOG)
        (self.d / "gcc.log").write_text(GCC_LOG)
        nvcc = self.grade("errors", "--log", self.d / "nvcc.log").splitlines()
        self.assertEqual(nvcc, ['  exercises/02_x/x.cu:31: no operator "+" matches these '
                                'operands; operand types are: float4 + float4'])
        gcc = self.grade("errors", "--log", self.d / "gcc.log").splitlines()
        self.assertEqual(gcc, ["  exercises/01_x/x.c:12: 'foo' undeclared (first use in this "
                               "function)"])

    def test_lesson_scoring_nothing_says_why(self):
        logs = self.d / "logs"
        logs.mkdir()
        (logs / "01.log").write_text(GCC_LOG)
        (self.d / "points.tsv").write_text(REAL_POINTS + "01.exercise.a\t5\n03.exercise.b\t5\n"
                                           "04.exercise.c\t5\n")
        skipped = ('<testcase name="03.exercise.b" status="notrun"><skipped/><system-out>'
                   "SKIPPED b: no CUDA device (no NVIDIA driver is installed)</system-out>"
                   "</testcase>\n</testsuite>")
        (self.d / "j.xml").write_text(REAL_JUNIT.replace("</testsuite>", skipped))
        table = self.grade("report", "--junit", self.d / "j.xml", "--points",
                           self.d / "points.tsv", "--out", self.d / "out",
                           "--build-logs", logs)
        self.assertIn("lesson 01 did not compile (it scores 0)", table)
        self.assertIn("    exercises/01_x/x.c:12: 'foo' undeclared", table)
        self.assertIn("lesson 03 not run: no CUDA device (no NVIDIA driver is installed)", table)
        self.assertIn("lesson 04 did not run (see ctest.log)", table)
        self.assertNotIn("lesson 02 ", table)
        self.assertIn(f"    {FAULT}", table)


class Sanitize(unittest.TestCase):
    """tools/sanitize.sh reports why a case failed before the leaks its crash left."""

    def test_fault_before_leaks(self):
        with tempfile.TemporaryDirectory() as tmp:
            suite = pathlib.Path(tmp) / "suite"
            suite.write_text(f"""#!/bin/sh
[ "$1" = --list ] && {{ printf 'vector_add_edges\\tgpu\\n'; exit 0; }}
printf 'leak-check: 768 bytes at 0x7f00 allocated in main() never freed\\n' >>"$COURSE_EMU_REPORT"
echo "/w/tests/common/course_judge.c:544:F:vector_add_edges:vector_add_edges:0: {FAULT}"
exit 1
""")
            suite.chmod(0o755)
            res = subprocess.run(["sh", ROOT / "tools" / "sanitize.sh", suite,
                                  pathlib.Path(tmp) / "logs"], capture_output=True, text=True)
        self.assertEqual(res.returncode, 1)
        lines = [l.strip() for l in res.stdout.splitlines()]
        self.assertEqual(lines[1], f"failed: {FAULT}")
        self.assertTrue(lines[2].startswith("leak-check: 768 bytes"), lines)


if __name__ == "__main__":
    unittest.main()
