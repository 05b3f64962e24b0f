"""python3 tools/grade VERB: the grader's verbs.

  prepare --course ROOT --build BUILD [--submission DIR] [--out DIR] [--lesson NN[,NN...]]
          [--work DIR] [--no-leaderboard]
      make the grade tree (tree.py) and print its path; ./course grade then configures it and
      picks the device, and calls run (--no-leaderboard: no modelled times, a few minutes less
      for a whole course)
  run --build BUILD
      build each lesson's exercise and run its tests where the student's code is contained
      (sandbox.py), then the report; the tree's settings are prepare's
  report --junit FILE --out DIR [--points FILE] [--lessons NN ...] [--build-logs DIR]
         [--exercises DIR] [--leaderboard FILE]
      results.json (Gradescope's format), grades.csv and a table (report.py)
  verdict --junit FILE --lesson NN [--points FILE] [--stages "S1 S2 ..."]
      one line per test for a student (./course check NN); with --stages (a staged exercise:
      add_lesson(... STAGES ...)) stage by stage, each with its own tally
  errors --log FILE
      the compiler's first errors in a build log, one line each
  take --submission DIR --into EXERCISES
      copy a student's exercise files into a grade tree (take.py)
  check-points --build DIR [--points FILE]
      exit 1 unless the points file lists exactly the exercise tests CTest knows, and every
      structure case names the correctness cases it follows
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

from . import leaderboard, messages, points, report, tree
from .paths import POINTS, ROOT
from .sandbox import Sandbox
from .take import take


def say(line):
    print(line, file=sys.stderr, flush=True)


def lesson_list(course, given):
    """The lessons of @p given (NN or NN_topic, comma-separated) as their numbers, or None after
    one line naming the lessons when one does not exist."""
    names = sorted(d.name for d in pathlib.Path(course).glob("lessons/[0-9][0-9]_*"))
    lessons = []
    for n in filter(None, (given or "").split(",")):
        found = [m for m in names if m == n or m.startswith(n + "_")]
        if not found:
            say(f"course: no lesson '{n}'; the lessons are: {' '.join(names)}")
            return None
        lessons.append(found[0][:2])
    return lessons


def cmd_prepare(args):
    lessons = lesson_list(args.course, args.lesson)
    if lessons is None:
        return 2
    where, build = tree.prepare(args.course, args.build, args.submission, args.out, lessons,
                                args.work, say)
    tree.set_state(build, leaderboard=not args.no_leaderboard)
    print(where)
    return 0


def lesson_dirs(tree_root, lessons):
    return [d for d in sorted(pathlib.Path(tree_root).glob("lessons/[0-9][0-9]_*"))
            if not lessons or d.name[:2] in lessons]


def build_lessons(sandbox, tree_root, build, lessons, logs):
    """Build each lesson's exercise side where its code is contained; the lessons that built."""
    built = []
    for d in lesson_dirs(tree_root, lessons):
        num = d.name[:2]
        # A runner left by an earlier build must not stand in for one that fails to build now.
        for old in (build / "bin" / f"runner_{num}_exercise", build / f"lib{num}_exercise.a"):
            old.unlink(missing_ok=True)
        with open(logs / f"{num}.log", "w") as log:
            done = sandbox.build(["cmake", "--build", str(build), "--target",
                                  f"test_{num}_exercise", f"{d.name}_exercise"], tree_root, build,
                                 stdout=log, stderr=subprocess.STDOUT)
        if done.returncode == 0:
            built.append(num)
            (logs / f"{num}.log").unlink()
        else:
            say(f"lesson {num}'s exercise does not compile: its tests score 0")
    return built


def open_tree(tree_root, user):
    """Make the tree readable, not writable, by the sandbox user; exit when a parent is private."""
    subprocess.run(["chmod", "-R", "a+rX,go-w", str(tree_root)], check=True)
    probe = subprocess.run(["runuser", "-u", user, "--", "test", "-r",
                            str(tree_root / "build" / "CMakeCache.txt")])
    if probe.returncode:
        raise SystemExit(f"course: {user} cannot read {tree_root} (a parent folder is private): "
                         "grade with --submission, which copies the course to a temporary "
                         "folder, or with --work in a readable folder")


def cmd_run(args):
    build = pathlib.Path(args.build)
    state = tree.state_of(build)
    tree_root = pathlib.Path(state["tree"])
    out = pathlib.Path(state["out"])
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o755)
    (out / "ctest.xml").unlink(missing_ok=True)
    logs = pathlib.Path(tempfile.mkdtemp(prefix="course-grade-logs."))
    try:
        with Sandbox(state["course"], say) as sandbox:
            if sandbox.way != "none":  # the sandbox user reads it, never writes it
                open_tree(tree_root, sandbox.user())
            built = build_lessons(sandbox, tree_root, build, state["lessons"], logs)
            if sandbox.way != "none":
                open_tree(tree_root, sandbox.user())
            if built:
                with open(out / "ctest.log", "w") as log:
                    sandbox.run(["ctest", "--test-dir", str(build), "-L", "exercise", "-R",
                                 f"^({'|'.join(built)})\\.exercise\\.", "--output-junit",
                                 str(logs / "ctest.xml")], writable=[tree_root, logs],
                                judge=True, stdout=log, stderr=subprocess.STDOUT)
                if (logs / "ctest.xml").exists():
                    shutil.move(logs / "ctest.xml", out / "ctest.xml")
            board = leaderboard.collect(sandbox, tree_root, build, built, logs) if state.get(
                "leaderboard", True) else []
        (logs / "leaderboard.json").write_text(json.dumps(board))
        rep = argparse.Namespace(junit=str(out / "ctest.xml"), out=str(out), points=str(
            tree_root / "tests" / "points.tsv"), lessons=state["lessons"],
            build_logs=str(logs), exercises=str(tree_root / "exercises"),
            leaderboard=str(logs / "leaderboard.json"))
        return report.report(rep)
    finally:
        shutil.rmtree(logs, ignore_errors=True)
        if state["temporary"]:
            shutil.rmtree(tree_root, ignore_errors=True)


def cmd_errors(args):
    for line in messages.first_errors(pathlib.Path(args.log).read_text(errors="replace")):
        print(f"  {line}")
    return 0


def cmd_take(args):
    take(args.submission, args.into)
    return 0


def ctest_names(build, *label):
    """The names of the tests CTest knows in @p build (with @p label: -L and its value)."""
    listing = subprocess.run(["ctest", "--test-dir", build, "-N", *label, "--show-only=json-v1"],
                             capture_output=True, text=True, check=True).stdout
    return {t["name"] for t in json.loads(listing)["tests"]}


def lessons_built(build):
    """The first parts of the names of @p build's tests: the lessons it holds ("02"), and the
    other suites' names ("emulator")."""
    return {n.split(".")[0] for n in ctest_names(build)}


def cmd_check_points(args):
    known = ctest_names(args.build, "-L", "exercise")
    entries = points.read(args.points)
    # A lesson this build leaves out (lesson 12 with CUDA 12: no driver stand-in) has no tests
    # to cover; a name of no lesson at all is still a problem.
    lessons = {d.name[:2] for d in (ROOT / "lessons").iterdir() if d.is_dir()}
    absent = lessons - lessons_built(args.build)
    for lesson in sorted(absent):
        print(f"lesson {lesson} is not in this build: its points are not checked")
    entries = {n: e for n, e in entries.items() if n.split(".")[0] not in absent}
    bad = points.problems(entries, known)
    for line in bad:
        print(f"{args.points}: {line}")
    if bad:
        return 1
    print(f"points cover all {len(known)} exercise tests")
    return 0


def parser():
    p = argparse.ArgumentParser(prog="tools/grade", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pre = sub.add_parser("prepare")
    for flag in ("--course", "--build"):
        pre.add_argument(flag, required=True)
    for flag in ("--submission", "--out", "--lesson", "--work"):
        pre.add_argument(flag)
    pre.add_argument("--no-leaderboard", action="store_true")
    sub.add_parser("run").add_argument("--build", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("--junit", required=True)
    rep.add_argument("--out", required=True)
    rep.add_argument("--points", default=str(POINTS))
    rep.add_argument("--lessons", nargs="*")
    for flag in ("--build-logs", "--exercises", "--leaderboard"):
        rep.add_argument(flag)
    tk = sub.add_parser("take")
    tk.add_argument("--submission", required=True)
    tk.add_argument("--into", required=True)
    ver = sub.add_parser("verdict")
    ver.add_argument("--junit", required=True)
    ver.add_argument("--lesson", required=True)
    ver.add_argument("--points", default=str(POINTS))
    ver.add_argument("--stages", help="the lesson's stages in order, space-separated")
    sub.add_parser("errors").add_argument("--log", required=True)
    chk = sub.add_parser("check-points")
    chk.add_argument("--build", required=True)
    chk.add_argument("--points", default=str(POINTS))
    return p


def main():
    args = parser().parse_args()
    return {"prepare": cmd_prepare, "run": cmd_run, "report": report.report,
            "verdict": report.verdict, "errors": cmd_errors, "take": cmd_take,
            "check-points": cmd_check_points}[args.cmd](args)
