#!/usr/bin/env python3
"""Turn CTest results of the exercise side into grades and verdicts.

  grade.py take --submission DIR --into EXERCISES
      copy a student's files into a clean copy's exercises/: only regular files whose
      names exist in the official exercises/NN_topic/ folders; everything else (links,
      new files, files outside exercises/, and the lesson's own drivers and headers of
      lessons/NN_topic/src/, which older exercises held) is reported and ignored. A lesson
      folder of the numbering before the taught order (06_tensor_cores, ...) is graded as its
      folder now, and said so in one line, unless the submission holds that folder too.
  grade.py report --junit FILE --out DIR [--points FILE] [--lessons NN ...] [--build-logs DIR]
                  [--exercises DIR]
      results.json (Gradescope autograder format), grades.csv and a terminal table.
      Every test named in the points file for the chosen lessons is reported, with why it
      scored what it did in one line (the judge's message, fault lines first; no absolute
      paths): one that did not run because there is no GPU is "not run" with 0 points,
      never passed; one that is missing from the results scores 0, and when its lesson did
      not compile (DIR/NN.log holds the build log) it carries the compiler's first errors.
      A lesson that scores nothing because it did not compile or run says so. With
      --exercises (the graded exercises/), a column per lesson says how much of the code
      the student had to write matches the course's solution token for token
      (informational, no points).
  grade.py verdict --junit FILE --lesson NN [--points FILE] [--stages "S1 S2 ..."]
      one line per test for a student (./course check NN), in the suite's order, with its
      points and why it failed, and a pointer to the lesson text. With --stages (a staged
      exercise: add_lesson(... STAGES ...)), the lines come stage by stage, each stage with
      its own tally; a case belongs to the stage its name begins with.
  grade.py errors --log FILE
      the compiler's first errors in a build log, one line each with its detail.
  grade.py check-points --build DIR
      exit 1 unless the points file lists exactly the exercise tests CTest knows.
"""
import argparse
import csv
import difflib
import json
import pathlib
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import gen_exercises

ROOT = pathlib.Path(__file__).resolve().parent.parent
POINTS = ROOT / "tests" / "points.tsv"
# Lesson folders of the numbering before the taught order, and their folders now.
RENUMBERED = {"06_tensor_cores": "08_tensor_cores", "07_mixed_precision": "09_mixed_precision",
              "08_data_parallel": "13_data_parallel", "09_parallel_patterns": "06_parallel_patterns"}


def read_points(path):
    """Ordered {test name: points} from the points file."""
    points = {}
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not re.fullmatch(r"\d+(\.\d+)?", fields[1].strip()):
            raise SystemExit(f"{path}:{number}: expected 'test<TAB>points', got {line!r}")
        points[fields[0].strip()] = float(fields[1])
    return points


def read_junit(path):
    """{test name: (status, output)} with status passed, failed or notrun."""
    results = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        out = case.findtext("system-out") or ""
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            status = "notrun"
        elif case.find("failure") is not None or case.get("status") == "fail":
            status = "failed"
        else:
            status = "passed"
        results[case.get("name")] = (status, out)
    return results


def why_not_run(output):
    """The harness's one-line reason for a skipped test."""
    for line in output.splitlines():
        if line.startswith("SKIPPED"):
            return line.split(":", 1)[-1].strip()
    return "not run"


CHECK_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):[FE]:[^:]*:[^:]*:-?\d+: (?P<msg>.*)$")
ABSOLUTE = re.compile(r"(?<![\w.~/:-])/(?:[^\s/:()'\"]+/)+[^\s/:()'\"]*")


def short_paths(text):
    """@p text with every absolute path cut to exercises/... (or solutions/...), else its name."""
    def short(m):
        parts = pathlib.PurePosixPath(m[0]).parts
        for top in ("exercises", "solutions"):
            if top in parts:
                return "/".join(parts[len(parts) - 1 - parts[::-1].index(top):])
        return parts[-1]
    return ABSOLUTE.sub(short, text)


def failure_line(output):
    """Why a case failed, in one clean line: Check's message (the judge puts the emulator's
    fault lines first in it), else the harness's error lines; absolute paths cut short."""
    keep = []
    for line in output.splitlines():
        check = CHECK_LINE.match(line.strip())
        if check:
            keep = [check["msg"]]
            break
        if re.search(r"error:|Timeout|timeout|signal|was not built", line):
            keep.append(line.strip())
    keep = keep or output.strip().splitlines()[-2:] or ["failed without output"]
    return short_paths(" | ".join(keep[:3]))


def lesson_of(test):
    return test.split(".", 1)[0]


COMPILER_ERROR = re.compile(
    r"^(?P<file>[^\s:()][^:()]*?)(?::(?P<line>\d+)(?::\d+)?|\((?P<nvline>\d+)\)):"
    r"\s*(?:fatal )?error:?\s*(?P<msg>.*)$")
SOURCE_ECHO = re.compile(r"^\s*\d*\s*\|")  # gcc's "  12 |     code" and "     |     ^~~"


def error_detail(lines):
    """The indented lines after an error that carry its detail (nvcc's "operand types are:
    ..."), not the source line it echoes and the caret under it."""
    block = []
    for line in lines:
        if not line.startswith(" ") or not line.strip() or SOURCE_ECHO.match(line):
            break
        block.append(line.strip())
    if block and block[-1].startswith("^"):
        block = block[:-2]  # the echoed source and its caret
    return block


def first_errors(log, limit=3):
    """The compiler's first errors in a build log, one line each: 'file:line: message; detail',
    with paths from exercises/."""
    lines = log.splitlines()
    found = []
    for i, line in enumerate(lines):
        m = COMPILER_ERROR.match(line.strip())
        if m:
            found.append("; ".join([f"{m['file']}:{m['line'] or m['nvline']}: {m['msg']}"]
                                   + error_detail(lines[i + 1:])))
        elif "undefined reference" in line:
            found.append(line.strip().split(": ", 1)[-1])
        if len(found) == limit:
            break
    if not found:
        found = [l.strip() for l in lines if "rror" in l][:limit]
    return [short_paths(f) for f in found] or ["(no error line found in the build log)"]


def build_errors(logs_dir):
    """{lesson number: first error lines} for every lesson whose build failed."""
    if not logs_dir:
        return {}
    return {log.stem: first_errors(log.read_text(errors="replace"))
            for log in sorted(pathlib.Path(logs_dir).glob("[0-9][0-9].log"))}


def case_message(lesson, status, output, max_score, errors):
    """Why a case scored what it did, in one line (passed, not run, failed: why)."""
    if status == "passed":
        return "passed"
    if status == "notrun":
        worth = "counted as 0, not as passed" if max_score else "feedback only, worth 0 points"
        return f"NOT RUN ({worth}): {why_not_run(output)}"
    if status == "missing":
        if lesson in errors:
            return f"lesson {lesson} did not compile: " + " | ".join(errors[lesson])
        return "did not run: the lesson's tests were not run (see ctest.log)"
    return failure_line(output)


def lesson_reason(lesson, tests, errors):
    """Why lesson @p lesson scores nothing, or None: it did not compile, or did not run."""
    mine = [t for t in tests if lesson_of(t["name"]) == lesson]
    results = {t["extra_data"]["result"] for t in mine if t["max_score"] > 0}
    if lesson in errors:
        return "did not compile"
    if results == {"missing"}:
        return "did not run (see ctest.log)"
    if results == {"notrun"}:
        return "not run: " + next(t["output"] for t in mine if t["max_score"] > 0).split(": ", 1)[1]
    return None


C_TOKEN = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|[A-Za-z_]\w*"
                     r"|\d[\w.]*|<<<|>>>|->|\+\+|--|&&|\|\||<<=?|>>=?|[<>=!+\-*/%&|^]=|\S", re.S)


def tokens(text, known):
    """The C tokens of @p text without comments; a name not in @p known (the exercise's own: its
    API, parameters, types) becomes its order of first appearance, so renaming changes nothing."""
    out, names = [], {}
    for t in C_TOKEN.findall(text):
        if t.startswith(("//", "/*")):
            continue
        if (t[0].isalpha() or t[0] == "_") and t not in known:
            t = names.setdefault(t, f"name{len(names)}")
        out.append(t)
    return out


def solution_regions(text):
    """The text of each BEGIN/END SOLUTION region of @p text, in order."""
    regions, inside = [], None
    for line in text.splitlines(keepends=True):
        if gen_exercises.BEGIN.match(line):
            inside = []
        elif gen_exercises.END.match(line):
            regions.append("".join(inside))
            inside = None
        elif inside is not None:
            inside.append(line)
    return regions


def written(exercise, student):
    """The lines the student wrote: those of @p student that differ from @p exercise."""
    ours, theirs = exercise.splitlines(), student.splitlines()
    ops = difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_opcodes()
    return "\n".join(l for tag, _, _, j1, j2 in ops if tag != "equal" for l in theirs[j1:j2])


def solution_match(exercises, lesson):
    """Percent of the solution regions' tokens of @p lesson that the student's files (under
    @p exercises) repeat in order, names normalised; None when the lesson has no region."""
    matched = total = 0
    for sol in sorted(ROOT.glob(f"solutions/{lesson}_*/*")):
        text = sol.read_text(errors="replace")
        regions = solution_regions(text)
        if not regions:
            continue
        exercise = gen_exercises.strip(text, str(sol))
        known = set(C_TOKEN.findall(exercise))
        want = tokens("\n".join(regions), known)
        mine = exercises / sol.parent.name / sol.name
        got = tokens(written(exercise, mine.read_text(errors="replace")), known) if mine.is_file() else []
        blocks = difflib.SequenceMatcher(None, want, got, autojunk=False).get_matching_blocks()
        matched += sum(b.size for b in blocks)
        total += len(want)
    return 100.0 * matched / total if total else None


def match_text(percent):
    """A similarity for the table and grades.csv: '' (no region), 'NN%' or '100% (copy)'."""
    if percent is None:
        return ""
    return "100% (copy)" if percent == 100 else f"{percent:.0f}%"


def cmd_report(args):
    points = read_points(args.points)
    results = read_junit(args.junit) if pathlib.Path(args.junit).exists() else {}
    errors = build_errors(args.build_logs)
    tests = []
    for name, max_score in points.items():
        if args.lessons and lesson_of(name) not in args.lessons:
            continue
        status, output = results.get(name, ("missing", ""))
        score = max_score if status == "passed" else 0.0
        tests.append({"name": name, "score": score, "max_score": max_score,
                      "status": "passed" if status == "passed" else "failed",
                      "output": case_message(lesson_of(name), status, output, max_score, errors),
                      "extra_data": {"result": status}})
    total = sum(t["score"] for t in tests)
    possible = sum(t["max_score"] for t in tests)
    lessons = sorted({lesson_of(t["name"]) for t in tests})
    match = {l: solution_match(pathlib.Path(args.exercises), l) if args.exercises else None
             for l in lessons}
    # Tests worth points that could not run; timing cases (0 points, feedback) do not count.
    not_run = sum(t["extra_data"]["result"] == "notrun" and t["max_score"] > 0 for t in tests)
    summary = f"{total:g} of {possible:g} points"
    if not_run:
        summary += f"; {not_run} tests could not run on this machine (no GPU) and score 0"
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # Per lesson: how much of the code the student wrote is the solution's (no points).
    similarity = {l: {"percent": None if p is None else round(p, 1), "copy": p == 100}
                  for l, p in match.items()}
    (out / "results.json").write_text(json.dumps(
        {"score": total, "output": summary, "tests": tests,
         "extra_data": {"solution_match": similarity}}, indent=2) + "\n")
    with open(out / "grades.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "result", "score", "max_score", "solution_match"])
        for t in tests:
            w.writerow([t["name"], t["extra_data"]["result"], f"{t['score']:g}",
                        f"{t['max_score']:g}", match_text(match[lesson_of(t["name"])])])
        w.writerow(["TOTAL", "", f"{total:g}", f"{possible:g}", ""])
    width = max([len(t["name"]) for t in tests] + [4])
    print(f"{'test':<{width}}  {'result':<7}  {'points':<9}  same as solution")
    shown = set()
    for t in tests:
        lesson = lesson_of(t["name"])
        same = "" if lesson in shown else match_text(match[lesson])
        shown.add(lesson)
        points = f"{t['score']:g}/{t['max_score']:g}"
        print(f"{t['name']:<{width}}  {t['extra_data']['result']:<7}  {points:<9}  {same}".rstrip())
        if t["extra_data"]["result"] == "failed":
            print(f"    {t['output']}")
    print(f"{'TOTAL':<{width}}  {'':<7}  {total:g}/{possible:g}")
    for lesson in sorted({lesson_of(t["name"]) for t in tests}):
        reason = lesson_reason(lesson, tests, errors)
        if reason:
            print(f"lesson {lesson} {reason} (it scores 0)")
        for line in errors.get(lesson, []) if reason == "did not compile" else []:
            print(f"    {line}")
    print(summary)
    print(f"wrote {out / 'results.json'} and {out / 'grades.csv'}")
    return 0


def stage_of(name, stages):
    """The stage of case @p name (lesson.side.case): the first of @p stages its case name
    begins with, or None."""
    case = name.split(".", 2)[-1]
    return next((s for s in stages if case.startswith(s + "_")), None)


def cmd_verdict(args):
    results = read_junit(args.junit) if pathlib.Path(args.junit).exists() else {}
    points = read_points(args.points)
    lesson = next(iter(sorted(ROOT.glob(f"lessons/{args.lesson}_*"))), None)
    text = lesson.relative_to(ROOT) / "README.md" if lesson else "the lesson README"
    order = list(points)  # the suite's file order
    stages = args.stages.split() if args.stages else []
    rank = {s: i for i, s in enumerate(stages)}

    def key(name):
        stage = stage_of(name, stages)
        return (rank.get(stage, len(stages)), order.index(name) if name in order else len(order),
                name)

    counts = {"passed": 0, "failed": 0, "notrun": 0}
    groups = []  # [(stage, its tally)] in the order printed, when the lesson has stages
    for name in sorted(results, key=key):
        stage = stage_of(name, stages)
        if stages and (not groups or groups[-1][0] != stage):
            if groups:
                print(tally_line(*groups[-1]))
            groups.append((stage, dict.fromkeys(counts, 0)))
            print(f"stage {stage} (./course check {args.lesson} --stage {stage}):" if stage
                  else "the whole lesson:")
        status, output = results[name]
        counts[status] += 1
        if groups:
            groups[-1][1][status] += 1
        worth = f"{points[name]:g}" if name in points else "?"
        got = worth if status == "passed" else "0"
        word = {"passed": "PASS", "failed": "FAIL", "notrun": "SKIP"}[status]
        line = f"  {word}  {got:>2}/{worth:<2}  {name.split('.', 2)[-1]}"
        if status == "notrun":
            line += f": {why_not_run(output)}"
        print(line)
        if status == "failed":
            print(f"                {failure_line(output)}")
    if groups:
        print(tally_line(*groups[-1]))
    if not results:
        print(f"  no test ran: see {args.junit} and the ctest output beside it")
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['notrun']} skipped")
    if counts["failed"]:
        print(f"Stuck? Re-read {text} (the exercise section has hints).")
    return 1 if counts["failed"] or not results else 0


def tally_line(stage, tally):
    """One stage's (or the rest's) counts, under its lines."""
    return (f"  {stage or 'the whole lesson'}: {tally['passed']} passed, {tally['failed']} "
            f"failed, {tally['notrun']} skipped")


def cmd_errors(args):
    for line in first_errors(pathlib.Path(args.log).read_text(errors="replace")):
        print(f"  {line}")
    return 0


def official_files(exercises):
    """The relative paths of every file of the official exercises (NN_topic/name)."""
    return {p.relative_to(exercises).as_posix() for p in exercises.glob("[0-9][0-9]_*/*")
            if p.is_file() and not p.is_symlink()}


def shared(exercises, inside):
    """lessons/NN_topic/src/name when @p inside (NN_topic/name) is one of the lesson's shared
    files in the tree of @p exercises, else None."""
    lesson, _, name = inside.rpartition("/")
    rel = f"lessons/{lesson}/src/{name}"
    return rel if lesson and (exercises.parent / rel).is_file() else None


def renumbered(inside, official, sub_files):
    """@p inside (NN_topic/name) moved to its lesson's folder under the taught order's number,
    when it names a folder of the numbering before it and the submission does not also hold the
    new path; else @p inside unchanged."""
    lesson, _, name = inside.partition("/")
    new = RENUMBERED.get(lesson)
    if new is None or f"{new}/{name}" not in official or f"{new}/{name}" in sub_files:
        return inside
    print(f"exercises/{inside} is graded as exercises/{new}/{name}: lesson {lesson[:2]} is "
          f"lesson {new[:2]} now (the lessons are numbered in the order they are taught); "
          f"move your files to exercises/{new}/")
    return f"{new}/{name}"


def cmd_take(args):
    sub = pathlib.Path(args.submission)
    into = pathlib.Path(args.into)
    official = official_files(into)
    nested = (sub / "exercises").is_dir() and not (sub / "exercises").is_symlink()
    top = sub / "exercises" if nested else sub
    sub_files = {p.relative_to(top).as_posix() for p in top.glob("*/*")}
    taken = 0
    for root, dirs, files in os.walk(sub):  # links to folders are listed, never entered
        for entry in sorted(dirs + files):
            path = pathlib.Path(root) / entry
            rel = path.relative_to(sub).as_posix()
            inside = rel
            if nested:
                inside = rel[len("exercises/"):] if rel.startswith("exercises/") else None
            if path.is_symlink():
                print(f"ignoring {rel}: a symbolic link")
            elif path.is_dir():
                continue
            elif inside is None:
                print(f"ignoring {rel}: outside exercises/")
            elif (inside := renumbered(inside, official, sub_files)) in official and path.is_file():
                shutil.copyfile(path, into / inside)
                taken += 1
            elif own := shared(into, inside):
                print(f"ignoring {rel}: the lesson's own {own} is used, the same for everyone "
                      "(only your exercise files are graded)")
            else:
                print(f"ignoring {rel}: not a file of the exercises (only those are graded)")
    print(f"took {taken} exercise files from {sub}")
    return 0


def cmd_check_points(args):
    listing = subprocess.run(
        ["ctest", "--test-dir", args.build, "-N", "-L", "exercise", "--show-only=json-v1"],
        capture_output=True, text=True, check=True).stdout
    known = {t["name"] for t in json.loads(listing)["tests"]}
    listed = set(read_points(args.points))
    missing, stale = sorted(known - listed), sorted(listed - known)
    for name in missing:
        print(f"no points for exercise test {name} (add it to {args.points})")
    for name in stale:
        print(f"{args.points} names {name}, which is not an exercise test")
    if missing or stale:
        return 1
    print(f"points cover all {len(known)} exercise tests")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("--junit", required=True)
    rep.add_argument("--out", required=True)
    rep.add_argument("--points", default=str(POINTS))
    rep.add_argument("--lessons", nargs="*")
    rep.add_argument("--build-logs")
    rep.add_argument("--exercises")
    take = sub.add_parser("take")
    take.add_argument("--submission", required=True)
    take.add_argument("--into", required=True)
    ver = sub.add_parser("verdict")
    ver.add_argument("--junit", required=True)
    ver.add_argument("--lesson", required=True)
    ver.add_argument("--points", default=str(POINTS))
    ver.add_argument("--stages", help="the lesson's stages in order, space-separated")
    err = sub.add_parser("errors")
    err.add_argument("--log", required=True)
    chk = sub.add_parser("check-points")
    chk.add_argument("--build", required=True)
    chk.add_argument("--points", default=str(POINTS))
    args = parser.parse_args()
    return {"report": cmd_report, "verdict": cmd_verdict, "take": cmd_take,
            "errors": cmd_errors, "check-points": cmd_check_points}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
