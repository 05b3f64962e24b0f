#!/usr/bin/env python3
"""Run the shell session a README shows and check that it prints what the README says.

usage: readme_session.py README --build DIR --nvcc PATH

A session is an indented block (4 spaces) whose first line starts with "$ ". Each "$ " line is
a command, run with sh from a scratch folder that looks like the course's root (reference/ and
lessons/ from the source tree, build/emulator from DIR, so `build/...` paths and
`$PWD/build/emulator/lib` work as the text says); the lines after it, up to the next command,
are its expected output, stdout and stderr together, compared line by line. The nvcc that
CMake found goes first on PATH. Exit 0 when every command prints what the README shows, 1 with
one line per difference.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def sessions(text):
    """[(line number, command, [expected lines])] of every session block in @p text."""
    found, block = [], None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("    "):
            block = None  # a block ends at the first line that is not indented
        elif block is None:
            block = line.startswith("    $ ")  # a block is a session when it starts with "$ "
        if block and line.startswith("    $ "):
            found.append((number, line[6:], []))
        elif block:
            found[-1][2].append(line[4:])
    return found


def scratch_root(folder, build):
    """Make @p folder look like the course's root, with @p build's emulator under build/."""
    for name in ("reference", "lessons"):
        (folder / name).symlink_to(ROOT / name)
    (folder / "build").mkdir()
    (folder / "build" / "emulator").symlink_to(pathlib.Path(build).resolve() / "emulator")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readme")
    parser.add_argument("--build", required=True)
    parser.add_argument("--nvcc", required=True)
    args = parser.parse_args()
    readme = pathlib.Path(args.readme)
    steps = sessions(readme.read_text())
    if not steps:
        print(f"{readme}: no session (an indented block starting with '$ ')")
        return 1
    if not (pathlib.Path(args.build) / "emulator" / "lib").is_dir():
        print(f"{args.build}/emulator/lib is missing: build the target course_emulator")
        return 1
    env = dict(os.environ, PATH=f"{pathlib.Path(args.nvcc).parent}:{os.environ['PATH']}")
    env.pop("LD_LIBRARY_PATH", None)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        scratch_root(folder, args.build)
        env["PWD"] = str(folder)
        for number, command, want in steps:
            run = subprocess.run(["sh", "-c", command], cwd=folder, env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
            got = run.stdout.splitlines()
            if got != want:
                failed += 1
                print(f"{readme}:{number}: `{command}` printed {got!r}, the text shows {want!r}")
    print(f"{len(steps) - failed} of {len(steps)} commands of {readme.name} print what it shows")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
