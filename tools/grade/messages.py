"""Why a test scored what it did, and why a lesson did not compile, in one clean line each."""
import pathlib
import re


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
