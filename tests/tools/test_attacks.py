#!/usr/bin/env python3
"""Grade each submission of a folder with ./course grade; check what it scores.

  test_attacks.py [--no-namespaces] [--build DIR] [FOLDER]
      FOLDER: tests/tools/attacks (the default) or tests/tools/variants; --no-namespaces: grade
      as a container that refuses namespaces would (COURSE_SANDBOX_NO_NAMESPACES=1, read by the
      grader's sandbox alone), where the sandbox user, limits and permissions are the defence;
      --build: the course's build, whose lessons are the ones judged (a submission to a lesson
      it leaves out, lesson 12 with CUDA 12, is skipped)

attacks/ holds cheating submissions, which must score nothing they did not earn; variants/ holds
correct solutions written differently, which must score full marks. Each subfolder is a
submission made from the untouched exercise (or the solution) of one lesson: NAME.append and
NAME.prepend add lines to that file, NAME.patch is a unified diff applied to it, other files are
copied as they are ({root} in their text becomes this course's checkout), and attack.txt (or
variant.txt) says the rest, one directive a line:
  lesson NN_topic               the lesson it submits (default 01_cpu_reference)
  base exercise|solution        what the submission starts from
  with NN_topic                 an earlier lesson the submitted one links (add_lesson's LINK),
                                handed in solved (its solution's files): the grade links the
                                student's own, so a lesson that calls it scores only with it
  link PATH TARGET              PATH becomes a symbolic link to TARGET ({root}: this course)
  env NAME=VALUE                set for ./course grade
  root-only                     only meaningful as root (the sandbox user is the defence)
  namespaces                    only meaningful where namespaces work (the private root is)
  copy-course PATH              a copy of this course's solutions at PATH while it is graded
  then NAME                     grade submission NAME right after this one, with its expectations
  expect total NN POINTS        lesson NN scores exactly POINTS
  expect fail TEST TEXT         TEST scores 0 and its output holds TEXT
  expect pass TEST              TEST scores its full points
  expect output TEXT            ./course grade prints TEXT
  expect untouched PATH...      these files of the grade tree are still the course's own
  expect leaderboard NN         results.json ranks lesson NN's kernels by modelled time (only
                                then is the leaderboard made: it runs the lesson's benchmark)
All grades share one kept tree (--work), so only the graded lesson rebuilds between them, and
each grades its own lesson alone (--lesson).
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from grade.cli import lessons_built  # noqa: E402 (tools/grade, found through the line above)

ATTACKS = pathlib.Path(__file__).resolve().parent / "attacks"
LESSON = "01_cpu_reference"
DIRECTIVES = ("attack.txt", "variant.txt")


def directives(case):
    """The directive file's lines of submission folder @p case, split into words."""
    text = next(case / d for d in DIRECTIVES if (case / d).exists()).read_text()
    return [l.split() for l in text.splitlines() if l.strip() and not l.startswith("#")]


def lesson_of(lines):
    return dict(l[:2] for l in lines if l[0] == "lesson").get("lesson", LESSON)


def make_submission(attack, sub):
    """Build the submission folder of @p attack in @p sub; return its directives."""
    lines = directives(attack)
    base = dict(l[:2] for l in lines if l[0] == "base").get("base", "exercise")
    lesson = lesson_of(lines)
    shutil.copytree(ROOT / f"{base}s" / lesson, sub / "exercises" / lesson)
    for l in lines:
        if l[0] == "with":
            shutil.copytree(ROOT / "solutions" / l[1], sub / "exercises" / l[1])
    for f in sorted(attack.rglob("*")):
        if not f.is_file() or f.name in DIRECTIVES:
            continue
        rel = f.relative_to(attack)
        edits = (".append", ".prepend", ".patch")
        target = sub / rel.with_suffix("") if f.suffix in edits else sub / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        text = f.read_text().replace("{root}", str(ROOT))
        if f.suffix == ".append":
            target.write_text(target.read_text() + text)
        elif f.suffix == ".prepend":
            target.write_text(text + target.read_text())
        elif f.suffix == ".patch":
            subprocess.run(["patch", "--quiet", "--no-backup-if-mismatch", str(target), str(f)],
                           check=True)
        else:
            target.write_text(text)
    for l in lines:
        if l[0] == "link":
            (sub / l[1]).unlink(missing_ok=True)
            (sub / l[1]).symlink_to(l[2].replace("{root}", str(ROOT)))
    return lines


def check(lines, res, printed, work):
    """The failed expectations, as messages."""
    by = {t["name"]: t for t in res["tests"]}
    bad = []
    for l in lines:
        if l[0] != "expect":
            continue
        kind, args = l[1], l[2:]
        if kind == "total":
            got = sum(t["score"] for n, t in by.items() if n.startswith(args[0] + "."))
            if got != float(args[1]):
                lost = [f"{n} ({t['score']:g}/{t['max_score']:g}): {t['output'][-200:]}"
                        for n, t in by.items() if n.startswith(args[0] + ".") and
                        t["score"] != t["max_score"]]
                bad.append(f"lesson {args[0]} scored {got:g}, want {args[1]}; not full: " +
                           " | ".join(lost))
        elif kind in ("fail", "pass"):
            t = by.get(args[0])
            text = " ".join(args[1:])
            if t is None:
                bad.append(f"{args[0]} is not in results.json")
            elif kind == "pass" and t["score"] != t["max_score"]:
                bad.append(f"{args[0]} should pass: {t['output'][-300:]}")
            elif kind == "fail" and (t["score"] != 0 or text not in t["output"]):
                bad.append(f"{args[0]} should fail with '{text}': {t['output'][-300:]}")
        elif kind == "output" and " ".join(args) not in printed:
            bad.append(f"./course grade did not print '{' '.join(args)}'")
        elif kind == "leaderboard":
            mine = [e for e in res["leaderboard"] if e["name"].startswith(args[0] + " ")]
            if not mine or not all("model" in e["name"] and e["value"] > 0 for e in mine):
                bad.append(f"no modelled times of lesson {args[0]}'s kernels: {res['leaderboard']}")
        elif kind == "untouched":
            bad += [f"{p} of the grade tree was changed" for p in args
                    if (work / p).read_bytes() != (ROOT / p).read_bytes()]
    return bad


def skipped(lines, name):
    """Why submission @p name cannot be judged here, or None."""
    if ["root-only"] in lines and os.geteuid() != 0:
        return f"skip  {name}: the defence is the sandbox user, which needs root"
    if ["namespaces"] in lines and (os.geteuid() != 0 or NO_NAMESPACES):
        return f"skip  {name}: the defence is the sandbox's private root, which needs namespaces"
    lesson = lesson_of(lines)[:2]
    if BUILT is not None and lesson not in BUILT:
        return f"skip  {name}: lesson {lesson} is not in this build"
    return None


def copy_course(lines):
    """Make the copies of the course that copy-course asks for; their paths."""
    made = [pathlib.Path(l[1]) for l in lines if l[0] == "copy-course"]
    for path in made:
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(ROOT / "solutions", path / "solutions")
        for p in [path, *path.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    return made


def grade(folder, name, tmp):
    """Grade submission @p name of @p folder in the kept tree under @p tmp; the failed
    expectations, or None when it was skipped."""
    lines = make_submission(folder / name, tmp / name / "sub")
    why = skipped(lines, name)
    if why:
        print(why)
        return None
    env = dict(os.environ, **dict(l[1].split("=", 1) for l in lines if l[0] == "env"))
    env.setdefault("COURSE_GRADE_USER", USER)
    if NO_NAMESPACES:
        env["COURSE_SANDBOX_NO_NAMESPACES"] = "1"
    copies = copy_course(lines)
    # Kernels run on the emulator here, which reads the PTX: one architecture builds 5x faster.
    env.setdefault("COURSE_CUDA_ARCHS", "90")
    out = tmp / name / "out"
    work = tmp / "work"
    start = time.monotonic()
    try:
        run = subprocess.run(
            [str(ROOT / "course"), "grade", "--submission", str(tmp / name / "sub"),
             "--out", str(out), "--lesson", lesson_of(lines)[:2], "--work", str(work)] +
            ([] if any(l[:2] == ["expect", "leaderboard"] for l in lines) else
             ["--no-leaderboard"]),
            capture_output=True, text=True, env=env, timeout=900)
    finally:
        for path in copies:
            shutil.rmtree(path, ignore_errors=True)
    printed = run.stdout + run.stderr
    results = out / "results.json"
    bad = [] if results.exists() else [f"no results.json:\n{printed[-2000:]}"]
    if not bad:
        bad = check(lines, json.loads(results.read_text()), printed, work)
    print(f"{'ok  ' if not bad else 'FAIL'}  {name} ({time.monotonic() - start:.0f} s)")
    for b in bad:
        print(f"      {b}")
    for l in lines:
        if l[0] == "then":
            shutil.rmtree(tmp / l[1], ignore_errors=True)
            after = grade(folder, l[1], tmp)
            bad += [f"after {name}: {b}" for b in after or []]
    return bad


NO_NAMESPACES = False
USER = "nobody"
BUILT = None  # the lessons the build given holds (--build), or None: all
# The user the grades run the student's code as: one of the test's own, one per way, so that what
# the sandbox does to its user's processes (limits, the sweep where namespaces are refused)
# reaches no other grade on the machine, the other way's included.
SANDBOX_USERS = ("course-sandbox", "course-sandbox-nons")


def sandbox_user():
    """The user of this way (SANDBOX_USERS), made when missing (as root), else nobody."""
    user = SANDBOX_USERS[NO_NAMESPACES]
    if os.geteuid() != 0:
        return "nobody"
    if subprocess.run(["getent", "passwd", user], capture_output=True).returncode:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                               "/usr/sbin/nologin", user], capture_output=True)
        if made.returncode:
            return "nobody"
    return user


def main():
    global NO_NAMESPACES, USER, BUILT
    args = sys.argv[1:]
    NO_NAMESPACES = "--no-namespaces" in args
    USER = sandbox_user()
    args = [a for a in args if a != "--no-namespaces"]
    if "--build" in args:
        at = args.index("--build")
        BUILT = lessons_built(args[at + 1])
        del args[at:at + 2]
    folder = pathlib.Path(args[0]) if args else ATTACKS
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"course-{folder.name}-"))
    tmp.chmod(0o755)  # the sandbox user must reach the kept grade tree below it
    names = sorted(p.name for p in folder.iterdir()
                   if any((p / d).exists() for d in DIRECTIVES))
    names.sort(key=lambda n: n != "honest")  # the honest one first: it builds the tree
    passed = failed = 0
    try:
        for name in names:
            bad = grade(folder, name, tmp)
            if bad is not None:
                passed += not bad
                failed += bool(bad)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
