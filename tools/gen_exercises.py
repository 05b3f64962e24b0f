#!/usr/bin/env python3
"""Generate exercises/ from solutions/ (the solution is the single source).

Every region between a line `// BEGIN SOLUTION` and a line `// END SOLUTION`
becomes one `// TODO` line at the marker's indentation; the hint comment above
the marker stays in both versions. solutions/NN_topic/ holds only files with a
region (the work); what both sides share (driver, headers, data loading) lives
once in lessons/NN_topic/src/ and holds none. A file on the wrong side of that
rule is an error, naming where it belongs.

  tools/gen_exercises.py           rewrite exercises/
  tools/gen_exercises.py --check   exit 1 (naming the files) if exercises/ is stale
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = re.compile(r"^(\s*)// BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*// END SOLUTION\s*$")
SOURCES = {".c", ".h", ".cu", ".cuh"}


def strip(text, where):
    """Return @p text with every solution region replaced by a TODO line."""
    out, inside = [], False
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        begin = BEGIN.match(line)
        if begin:
            if inside:
                raise SystemExit(f"{where}:{number}: BEGIN SOLUTION inside a region")
            inside = True
            out.append(f"{begin.group(1)}// TODO\n")
        elif END.match(line):
            if not inside:
                raise SystemExit(f"{where}:{number}: END SOLUTION without BEGIN")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise SystemExit(f"{where}: BEGIN SOLUTION is never closed")
    return "".join(out)


def sources(folder):
    """The C, CUDA and header files of lesson folders @p folder (a glob from ROOT)."""
    return [p for p in sorted(ROOT.glob(folder)) if p.suffix in SOURCES and p.is_file()]


def has_region(path):
    return any(BEGIN.match(line) for line in path.read_text().splitlines())


def misplaced():
    """One line per file on the wrong side: a solution file without a region (no work: it
    belongs in the lesson's src/), a shared file with one (work: it belongs in solutions/), or
    a name on both sides."""
    shared = sources("lessons/[0-9][0-9]_*/src/*")
    lines = [f"{p.relative_to(ROOT)}: no SOLUTION region, so no work in it: "
             f"move it to lessons/{p.parent.name}/src/ (git mv)"
             for p in sources("solutions/[0-9][0-9]_*/*") if not has_region(p)]
    lines += [f"{p.relative_to(ROOT)}: a SOLUTION region in shared code: "
              f"move it to solutions/{p.parent.parent.name}/ (git mv)"
              for p in shared if has_region(p)]
    lines += [f"{p.relative_to(ROOT)}: solutions/{p.parent.parent.name}/{p.name} has the same "
              "name: keep one of the two" for p in shared
              if (ROOT / "solutions" / p.parent.parent.name / p.name).exists()]
    return lines


def expected():
    """Map each exercises/ path to the text it should hold."""
    files = {}
    for src in sources("solutions/[0-9][0-9]_*/*"):
        rel = src.relative_to(ROOT / "solutions")
        files[ROOT / "exercises" / rel] = strip(src.read_text(), f"solutions/{rel}")
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    wrong = misplaced()
    for line in wrong:
        print(line)
    if wrong:
        return 1
    want = expected()
    have = {p for p in (ROOT / "exercises").glob("*/*") if p.is_file()}
    if args.check:
        stale = sorted(str(p.relative_to(ROOT)) for p in want
                       if not p.exists() or p.read_text() != want[p])
        extra = sorted(str(p.relative_to(ROOT)) for p in have - set(want))
        for p in stale:
            print(f"stale: {p}")
        for p in extra:
            print(f"not generated from solutions/: {p}")
        if stale or extra:
            print("exercises/ is out of date: run ./course exercises")
            return 1
        print(f"exercises/ matches solutions/ ({len(want)} files)")
        return 0
    for path in have - set(want):
        path.unlink()
    for path, text in want.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    print(f"wrote exercises/ from solutions/ ({len(want)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
