#!/usr/bin/env python3
"""Generate exercises/ from solutions/ (the solution is the single source).

Every region between a line `// BEGIN SOLUTION` and a line `// END SOLUTION`
becomes one `// TODO` line at the marker's indentation; the hint comment above
the marker stays in both versions. Files without markers are copied as they are.

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


def expected():
    """Map each exercises/ path to the text it should hold."""
    files = {}
    for src in sorted((ROOT / "solutions").glob("[0-9][0-9]_*/*")):
        if src.suffix not in SOURCES or not src.is_file():
            continue
        rel = src.relative_to(ROOT / "solutions")
        files[ROOT / "exercises" / rel] = strip(src.read_text(), f"solutions/{rel}")
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
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
