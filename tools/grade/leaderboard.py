"""Gradescope's leaderboard: each of the student's kernels by its modelled time on an H100.

A model, never a measurement (emulator/README.md, "Time model"), and worth no points. Each graded
lesson's exercise driver (its benchmark table, as ./course run shows it on the emulator) runs as
the student's code does, contained; its kernels run on a device server the grader starts
itself, as root, with the time model on, so the numbers come from the grader's process, not the
student's. A kernel's entry is its first launch's modelled milliseconds.
"""
import os
import pathlib
import re
import socket
import subprocess

GPU = "h100"
MODEL_LINE = re.compile(r"^model gpu=\S+ kernel=(?P<kernel>\S+) .*? ms=(?P<ms>[0-9.eE+-]+) ")
SECONDS = 300  # a driver's limit


def kernel_name(mangled):
    """A short readable name for a mangled kernel name (its identifier)."""
    m = re.match(r"_Z(?:L|N\d+\w+?)?(\d+)", mangled)
    if m and mangled.startswith("_Z"):
        at = m.end()
        return mangled[at:at + int(m.group(1))]
    return mangled


def first_times(model_file):
    """{kernel: ms} of each kernel's first modelled launch, in launch order."""
    times = {}
    if not model_file.exists():
        return times
    for line in model_file.read_text().splitlines():
        m = MODEL_LINE.match(line)
        if m and m["kernel"] not in times:
            times[m["kernel"]] = float(m["ms"])
    return times


def run_driver(sandbox, tree_root, build, name, model_file):
    """Lesson @p name's exercise driver, its kernels modelled on a server the grader runs."""
    driver = build / "bin" / f"{name}_exercise"
    server = build / "emulator" / "course-emu-device"
    if not driver.exists() or not server.exists():
        return
    ours, theirs = socket.socketpair()
    env = dict(os.environ, COURSE_EMU_MODEL=GPU, COURSE_EMU_MODEL_OUT=str(model_file),
               COURSE_EMU_MODEL_SAMPLE="0")  # every block: the driver's own checks still hold
    dev = subprocess.Popen([str(server), "--fd", str(ours.fileno())], pass_fds=[ours.fileno()],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ours.close()
    who = ["runuser", "-u", sandbox.user(), "--"] if sandbox.way != "none" else []
    flags = ["--counters"] if name.startswith("13_") else []
    try:
        sandbox.run(who + ["env", f"COURSE_EMU_FD={theirs.fileno()}", "timeout", str(SECONDS),
                           str(driver), *flags], readable=[tree_root], cwd="/tmp",
                    pass_fds=[theirs.fileno()], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL)
    finally:
        theirs.close()
        dev.kill()
        dev.wait()


def collect(sandbox, tree_root, build, built, logs):
    """The leaderboard entries of the lessons that built (those with kernels)."""
    board = []
    for num in built:
        lesson = next(pathlib.Path(tree_root).glob(f"lessons/{num}_*"), None)
        if not lesson or not (build / "reports" / f"{num}_exercise.ptx").exists():
            continue
        model_file = pathlib.Path(logs) / f"model-{num}.txt"
        run_driver(sandbox, tree_root, build, lesson.name, model_file)
        for kernel, ms in first_times(model_file).items():
            board.append({"name": f"{num} {kernel_name(kernel)} (model, {GPU.upper()} ms)",
                          "value": round(ms, 6), "order": "asc"})
    return board
