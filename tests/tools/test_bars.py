#!/usr/bin/env python3
"""tools/bars.py: the course's texts and decks state the tests' bars and bounds as the tests
hold them, and the checker fails on a number that differs, a number stated by hand after a
comparison, a mark that names nothing, and a stale bars table; --apply rewrites them."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
BARS = ROOT / "tools" / "bars.py"
sys.path.insert(0, str(ROOT / "tools"))
import bars  # noqa: E402


def run(*files, apply=False):
    cmd = [sys.executable, BARS, *(["--apply"] if apply else []), *map(str, files)]
    return subprocess.run(cmd, capture_output=True, text=True)


class Bars(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.lesson = pathlib.Path(self.tmp.name) / "lessons" / "02_threads_blocks_grids"
        self.lesson.mkdir(parents=True)

    def tearDown(self):
        self.tmp.cleanup()

    def text(self, body, name="ANSWERS.md"):
        path = self.lesson / name
        path.write_text(body)
        return path

    def test_the_course_agrees_with_its_tests(self):
        res = run()
        self.assertEqual(res.returncode, 0, res.stdout)

    def test_reads_every_row_of_course_bars_c(self):
        table = bars.read_bars()
        self.assertEqual(table[("coalesced_over_naive", 86)]["bar"], 4.8)
        self.assertTrue(table[("coalesced_over_naive", 86)]["source"].startswith("published: "))
        for row in table.values():
            self.assertRegex(row["source"], r"^(published|derived, not measured|placeholder): ")

    def test_reads_the_judges_constants(self):
        self.assertEqual(bars.read_bounds()[("02", "coalesced_min_efficiency")], 0.8)

    def test_a_number_that_differs_fails_and_apply_fixes_it(self):
        path = self.text("at least 75%<!--bound:coalesced_min_efficiency--> and "
                         "4.5x<!--bar:coalesced_over_naive@86-->\n")
        res = run(path)
        self.assertEqual(res.returncode, 1)
        self.assertIn("75% where the tests say 80%", res.stdout)
        self.assertIn("4.5x where the tests say 4.8x", res.stdout)
        self.assertEqual(run(path, apply=True).returncode, 0)
        self.assertEqual(path.read_text(), "at least 80%<!--bound:coalesced_min_efficiency--> "
                                           "and 4.8x<!--bar:coalesced_over_naive@86-->\n")

    def test_a_number_stated_by_hand_fails(self):
        for line in ("coalesced >= 4.8x naive", "at least 80% efficient", "the bar is 4.8x",
                     "at most 1.1x the bytes"):
            res = run(self.text(line + "\n"))
            self.assertEqual(res.returncode, 1, line)
            self.assertIn("states a number by hand", res.stdout)
        for line in ("at most 1024 threads", "`__CUDA_ARCH__ >= 800`", "    x >= 4 in code\n"):
            self.assertEqual(run(self.text(line + "\n")).returncode, 0, line)

    def test_a_mark_that_names_nothing_fails(self):
        res = run(self.text("80%<!--bound:no_such_constant--> 2x<!--bar:no_such_bar-->\n"))
        self.assertEqual(res.returncode, 1)
        self.assertIn("no constant no_such_constant", res.stdout)
        self.assertIn("no row no_such_bar", res.stdout)

    def test_a_stale_or_missing_bars_table_fails(self):
        readme = self.text("## Measured\n\n<!-- bars -->\n| old |\n<!-- /bars -->\n", "README.md")
        res = run(readme)
        self.assertEqual(res.returncode, 1)
        self.assertIn("bars table differs", res.stdout)
        self.assertEqual(run(readme, apply=True).returncode, 0)
        self.assertIn("| `coalesced_over_naive` | sm_86 | 4.8x | 6.4x | published: ",
                      readme.read_text())
        self.assertIn("no bars table", run(self.text("## Measured\n", "README.md")).stdout)

    def test_regions_are_counted_in_the_solutions(self):
        res = run(self.text("7<!--regions:02--> regions\n"))
        self.assertEqual(res.returncode, 0 if bars.regions("02") == 7 else 1, res.stdout)
        self.assertEqual(run(self.text("1<!--regions:02-->\n")).returncode,
                         0 if bars.regions("02") == 1 else 1)


if __name__ == "__main__":
    unittest.main()
