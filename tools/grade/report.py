"""The grade: results.json in Gradescope's autograder format, grades.csv and a table, from CTest's
JUnit file and the points file; and a student's verdict per test (./course check)."""
import csv
import json
import pathlib

from . import junit, messages, points, similarity
from .messages import lesson_of
from .paths import ROOT


def held_by(entry, results):
    """The cases @p entry follows (after=) that did not pass, or []."""
    return [a for a in entry.after if results.get(a) is None or results[a].status != "passed"]


def test_row(name, entry, number, results, errors):
    """One test of results.json, with the result the grade used in extra_data."""
    case = results.get(name)
    status = case.status if case else "missing"
    held = held_by(entry, results) if status == "passed" else []
    passed = status == "passed" and not held
    if held:
        text = ("passed, but scores only when " + ", ".join(h.split(".", 2)[2] for h in held) +
                " pass: points for the code's shape follow what the code does")
    else:
        text = messages.case_message(lesson_of(name), status, case.output if case else "",
                                     entry.points, errors)
    return {"name": name, "number": number, "score": entry.points if passed else 0.0,
            "max_score": entry.points, "status": "passed" if passed else "failed",
            "output": text, "output_format": "md", "visibility": entry.visibility,
            "execution_time": round(case.seconds, 2) if case else 0.0,
            "extra_data": {"result": "held" if held else status}}


def rows(entries, results, lessons, errors):
    """results.json's tests, numbered lesson.case in the points file's order."""
    tests, count = [], {}
    for name, entry in entries.items():
        lesson = lesson_of(name)
        if lessons and lesson not in lessons:
            continue
        count[lesson] = count.get(lesson, 0) + 1
        tests.append(test_row(name, entry, f"{int(lesson)}.{count[lesson]}", results, errors))
    return tests


def print_table(tests, match, total, possible, errors, summary):
    width = max([len(t["name"]) for t in tests] + [4])
    print(f"{'test':<{width}}  {'result':<7}  {'points':<9}  same as solution")
    shown = set()
    for t in tests:
        lesson = lesson_of(t["name"])
        same = "" if lesson in shown else similarity.match_text(match[lesson])
        shown.add(lesson)
        got = f"{t['score']:g}/{t['max_score']:g}"
        print(f"{t['name']:<{width}}  {t['extra_data']['result']:<7}  {got:<9}  {same}".rstrip())
        if t["extra_data"]["result"] in ("failed", "held"):
            print(f"    {t['output']}")
    print(f"{'TOTAL':<{width}}  {'':<7}  {total:g}/{possible:g}")
    for lesson in sorted({lesson_of(t["name"]) for t in tests}):
        reason = messages.lesson_reason(lesson, tests, errors)
        if reason:
            print(f"lesson {lesson} {reason} (it scores 0)")
        for line in errors.get(lesson, []) if reason == "did not compile" else []:
            print(f"    {line}")
    print(summary)


def write_csv(path, tests, match, total, possible):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "result", "score", "max_score", "solution_match"])
        for t in tests:
            w.writerow([t["name"], t["extra_data"]["result"], f"{t['score']:g}",
                        f"{t['max_score']:g}", similarity.match_text(match[lesson_of(t["name"])])])
        w.writerow(["TOTAL", "", f"{total:g}", f"{possible:g}", ""])


def report(args):
    """The report verb (cli.py): results.json, grades.csv and the table in args.out."""
    entries = points.read(args.points)
    results = junit.by_name(args.junit) if pathlib.Path(args.junit).exists() else {}
    errors = messages.build_errors(args.build_logs)
    tests = rows(entries, results, args.lessons, errors)
    total = sum(t["score"] for t in tests)
    possible = sum(t["max_score"] for t in tests)
    lessons = sorted({lesson_of(t["name"]) for t in tests})
    match = {l: similarity.solution_match(pathlib.Path(args.exercises), l) if args.exercises
             else None for l in lessons}
    # Tests worth points that could not run; timing cases (0 points, feedback) do not count.
    not_run = sum(t["extra_data"]["result"] == "notrun" and t["max_score"] > 0 for t in tests)
    summary = f"{total:g} of {possible:g} points"
    if not_run:
        summary += f"; {not_run} tests could not run on this machine (no GPU) and score 0"
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    board = json.loads(pathlib.Path(args.leaderboard).read_text()) if args.leaderboard else []
    results_json = {
        "score": total, "execution_time": round(sum(t["execution_time"] for t in tests), 2),
        "output": summary, "output_format": "md", "test_output_format": "md",
        "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
        "leaderboard": board,
        "extra_data": {"solution_match": {l: {"percent": None if p is None else round(p, 1),
                                              "copy": p == 100} for l, p in match.items()}}}
    (out / "results.json").write_text(json.dumps(results_json, indent=2) + "\n")
    write_csv(out / "grades.csv", tests, match, total, possible)
    print_table(tests, match, total, possible, errors, summary)
    print(f"wrote {out / 'results.json'} and {out / 'grades.csv'}")
    return 0


def stage_of(name, stages):
    """The stage of case @p name (lesson.side.case): the first of @p stages its case name
    begins with, or None."""
    case = name.split(".", 2)[-1]
    return next((s for s in stages if case.startswith(s + "_")), None)


def tally_line(stage, tally):
    """One stage's (or the rest's) counts, under its lines."""
    return (f"  {stage or 'the whole lesson'}: {tally['passed']} passed, {tally['failed']} "
            f"failed, {tally['notrun']} skipped")


def verdict_line(name, case, entry, results):
    """The line of case @p name for ./course check: its verdict, its points and why."""
    worth = f"{entry.points:g}" if entry else "?"
    held = held_by(entry, results) if entry and case.status == "passed" else []
    got = worth if case.status == "passed" and not held else "0"
    word = {"passed": "PASS", "failed": "FAIL", "notrun": "SKIP"}[case.status]
    line = f"  {word}  {got:>2}/{worth:<2}  {name.split('.', 2)[-1]}"
    if case.status == "notrun":
        line += f": {messages.why_not_run(case.output)}"
    if held:
        line += " (scores once " + ", ".join(h.split(".", 2)[2] for h in held) + " pass)"
    if case.status == "failed":
        line += f"\n                {messages.failure_line(case.output)}"
    return line


def verdict(args):
    """The verdict verb: one line per test for a student (./course check NN), stage by stage
    with a tally each for a staged exercise (--stages: a case belongs to the stage its name
    begins with)."""
    results = junit.by_name(args.junit) if pathlib.Path(args.junit).exists() else {}
    entries = points.read(args.points)
    lesson = next(iter(sorted(ROOT.glob(f"lessons/{args.lesson}_*"))), None)
    text = lesson.relative_to(ROOT) / "README.md" if lesson else "the lesson README"
    order = list(entries)  # the suite's file order
    stages = args.stages.split() if args.stages else []
    rank = {s: i for i, s in enumerate(stages)}

    def key(name):
        return (rank.get(stage_of(name, stages), len(stages)),
                order.index(name) if name in order else len(order), name)

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
        case = results[name]
        counts[case.status] += 1
        if groups:
            groups[-1][1][case.status] += 1
        print(verdict_line(name, case, entries.get(name), results))
    if groups:
        print(tally_line(*groups[-1]))
    if not results:
        print(f"  no test ran: see {args.junit} and the ctest output beside it")
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['notrun']} skipped")
    if counts["failed"]:
        print(f"Stuck? Re-read {text} (the exercise section has hints).")
    return 1 if counts["failed"] or not results else 0
