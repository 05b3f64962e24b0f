#!/usr/bin/env python3
"""tools/grade.py on a hand-written CTest JUnit file: scores, not-run tests, missing tests."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
GRADE = ROOT / "tools" / "grade.py"

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3">
  <testcase name="01.exercise.a" status="run"><system-out>100%: Checks: 1</system-out></testcase>
  <testcase name="01.exercise.b" status="fail"><failure message=""/>
    <system-out>x.c:9:F:b:b:0: matmul at M=1: 1 bad</system-out></testcase>
  <testcase name="02.exercise.c" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>SKIPPED c: no CUDA device (none found)</system-out></testcase>
  <testcase name="02.exercise.e" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>SKIPPED e: timing needs a GPU (this one is the CPU emulator)</system-out>
  </testcase>
</testsuite>
"""
POINTS = ("# comment\n01.exercise.a\t10\n01.exercise.b\t5\n02.exercise.c\t7\n02.exercise.d\t3\n"
          "02.exercise.e\t0\n")


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
        self.assertEqual(res["score"], 10)
        self.assertEqual(by["01.exercise.a"]["score"], 10)
        self.assertEqual(by["01.exercise.b"]["score"], 0)
        self.assertIn("1 bad", by["01.exercise.b"]["output"])
        for t in res["tests"]:
            self.assertEqual(set(t) >= {"name", "score", "max_score", "output"}, True)
        self.assertIn("TOTAL", table)

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
        sub = d / "sub" / "exercises" / "01_x"
        sub.mkdir(parents=True)
        (sub / "a.c").write_text("student\n")
        (sub / "new.c").write_text("student\n")
        (sub / "b.c").symlink_to(d / "elsewhere")
        (d / "sub" / "points.tsv").write_text("x\t100\n")
        out = subprocess.run([sys.executable, GRADE, "take", "--submission", d / "sub",
                              "--into", d / "tree" / "exercises"],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual((official / "a.c").read_text(), "student\n")
        self.assertEqual((official / "b.c").read_text(), "official\n")
        self.assertFalse((official / "new.c").exists())
        self.assertIn("ignoring exercises/01_x/new.c", out)
        self.assertIn("ignoring exercises/01_x/b.c: a symbolic link", out)
        self.assertIn("ignoring points.tsv: outside exercises/", out)

    def test_lesson_filter_and_csv(self):
        res, _ = self.run_report("--lessons", "01")
        self.assertEqual([t["name"] for t in res["tests"]], ["01.exercise.a", "01.exercise.b"])
        rows = (pathlib.Path(self.tmp.name) / "out" / "grades.csv").read_text().splitlines()
        self.assertEqual(rows[0], "test,result,score,max_score,solution_match")
        self.assertEqual(rows[-1], "TOTAL,,10,15,")

    def test_solution_match(self):
        res, table = self.run_report("--lessons", "01", "--exercises", ROOT / "solutions")
        self.assertEqual(res["extra_data"]["solution_match"]["01"], {"percent": 100, "copy": True})
        self.assertIn("100% (copy)", table)
        res, table = self.run_report("--lessons", "01", "--exercises", ROOT / "exercises")
        self.assertEqual(res["extra_data"]["solution_match"]["01"], {"percent": 0, "copy": False})
        rows = (pathlib.Path(self.tmp.name) / "out" / "grades.csv").read_text().splitlines()
        self.assertEqual(rows[1], "01.exercise.a,passed,10,10,0%")


if __name__ == "__main__":
    unittest.main()
