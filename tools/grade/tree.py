"""The grade tree: a copy of the course without its answers, holding the submission's files.

No solutions/ (the lessons' own code, headers and drivers, is in lessons/NN_topic/src), no
tests/tools/ (its attacks and variants are solutions too). A kept tree (--work) is reused: what
an earlier copy left goes first, and a build of the solutions leaves nothing behind in it.
"""
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

from .take import take

STATE = ".grade.json"  # the grade's settings, in the tree, from prepare to run


def course_files(course):
    """The course's files, relative, without the answers: git's list where there is one."""
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"],
                                cwd=course, capture_output=True)
    except FileNotFoundError:  # no git on this machine (Gradescope's image has none)
        listed = None
    if listed and listed.returncode == 0:
        files = [f for f in listed.stdout.decode().split("\0") if f]
    else:
        files = [str(p.relative_to(course)) for p in pathlib.Path(course).rglob("*")
                 if p.is_file() and not p.relative_to(course).parts[0].startswith((".git", "build"))]
    return [f for f in files if not f.startswith(("solutions/", "tests/tools/"))]


def copy_course(course, tree):
    """Copy the course into @p tree (times kept, so a kept build rebuilds only what changed)."""
    for top in ("solutions", "lessons", "tests/tools", "exercises"):
        shutil.rmtree(tree / top, ignore_errors=True)
    for rel in course_files(course):
        src = pathlib.Path(course) / rel
        if src.is_file() and not src.is_symlink():
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, tree / rel)


def drop_solution_outputs(build):
    """Remove from a kept build what a build of the solutions left there (libraries, runners,
    drivers, suites, PTX): a runner built from the solutions must not stand in for one."""
    for p in list(pathlib.Path(build).rglob("*")):
        name = p.name
        if "_solution" in name or (p.parent.name == "bin" and name[:2].isdigit() and
                                   name[2:3] == "_" and "_exercise" not in name):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            elif p.exists() or p.is_symlink():
                p.unlink(missing_ok=True)


def prepare(course, build, submission, out, lessons, work, say):
    """The tree to grade in (printed by the prepare verb): the course itself (not root, no
    submission), or a copy holding the submission; its settings saved for run."""
    course = pathlib.Path(course).resolve()
    if not submission and os.geteuid() == 0:
        submission = course / "exercises"  # as root, this tree's own exercises, like any other
    if not submission:
        tree, temporary, build = course, False, pathlib.Path(build)
        build.mkdir(parents=True, exist_ok=True)
    else:
        submission = pathlib.Path(submission)
        if not submission.is_dir():
            raise SystemExit(f"course: no folder '{submission}'")
        submission = submission.resolve()
        if work:
            tree = pathlib.Path(work).resolve()
            if os.geteuid() == 0 and (tree == course or course in tree.parents):
                raise SystemExit(f"course: --work {work} is inside the course, which grading "
                                 f"hides: choose a folder outside {course}")
            tree.mkdir(parents=True, exist_ok=True)
            temporary = False
        else:
            tree = pathlib.Path(tempfile.mkdtemp(prefix="course-grade."))
            temporary = True
        copy_course(course, tree)
        take(submission, tree / "exercises", say)
        for f in (tree / "exercises").rglob("*"):  # newer than any build output
            if f.is_file():
                os.utime(f)
        build = tree / "build"
        build.mkdir(exist_ok=True)
        drop_solution_outputs(build)
        say(f"grading {submission} in a copy of the course without its solutions")
    out = pathlib.Path(out or "grade-out").resolve()
    state = {"course": str(course), "tree": str(tree), "build": str(build), "out": str(out),
             "lessons": lessons, "temporary": temporary}
    (pathlib.Path(build) / STATE).write_text(json.dumps(state) + "\n")
    return tree, build


def state_of(build):
    return json.loads((pathlib.Path(build) / STATE).read_text())


def set_state(build, **changes):
    """Change settings of the grade prepared in @p build."""
    state = dict(state_of(build), **changes)
    (pathlib.Path(build) / STATE).write_text(json.dumps(state) + "\n")
