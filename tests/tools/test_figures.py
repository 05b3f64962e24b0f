#!/usr/bin/env python3
"""tools/figures.py draws every figure the lessons and slides use, and each one is a real picture.

  test_figures.py OUT

Draws the figures as PDF into OUT (the slides test then builds the decks from there), and
checks: at least 12 figures; every `docs/figures/NAME` that a lesson text or a deck references
is committed in docs/figures and drawn; every figure drawn is used by a lesson text and by a
deck; and each committed figure is a real picture: a PNG at least 800 pixels wide with ink on
it (not blank, not one colour), or an SVG at least 5 inches wide with at least 20 shapes.
(tools.figures_up_to_date checks that the committed bytes are what figures.py draws.) Exit 0
when all hold, 1 on a failure, 77 (skipped) when matplotlib is missing.
"""
import importlib.util
import pathlib
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
REF = re.compile(r"docs/figures/([\w.-]+\.(?:png|svg))")
COMMITTED = ROOT / "docs" / "figures"


def references(paths):
    """{figure name: [files that reference it]}."""
    refs = {}
    for path in paths:
        for name in REF.findall(path.read_text()):
            refs.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return refs


def svg_problem(path):
    """Why the SVG @p path is not a real picture, or None."""
    root = xml.etree.ElementTree.parse(path).getroot()
    width = float(re.match(r"[\d.]+", root.get("width", "0")).group(0))  # points
    shapes = sum(1 for e in root.iter() if e.tag.rsplit("}", 1)[-1] in ("path", "use"))
    if width < 5 * 72:
        return f"only {width:.0f} points wide"
    if shapes < 20:
        return f"only {shapes} shapes"
    return None


def picture_problem(path):
    """Why @p path is not a real picture, or None."""
    if path.suffix == ".svg":
        return svg_problem(path)
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    if width < 800 or height < 200:
        return f"only {width} x {height} pixels"
    import matplotlib.image
    pixels = matplotlib.image.imread(str(path))[..., :3]
    inked = (pixels.min(axis=2) < 0.8).mean()  # share of pixels that are not near white
    if inked < 0.01:
        return f"blank ({inked:.1%} of it inked)"
    return None


def main():
    if len(sys.argv) != 2:
        print("usage: test_figures.py OUT")
        return 1
    if importlib.util.find_spec("matplotlib") is None:
        print("SKIPPED: matplotlib is not installed (./course test installs it)")
        return 77
    out = pathlib.Path(sys.argv[1])
    for old in out.glob("*.pdf"):  # a figure renamed or dropped must not linger
        old.unlink()
    subprocess.run([sys.executable, str(ROOT / "tools" / "figures.py"), str(out), "--pdf"],
                   check=True, stdout=subprocess.DEVNULL)
    pdfs = {p.stem for p in out.glob("*.pdf")}
    drawn = sorted(p.name for p in COMMITTED.iterdir() if p.stem in pdfs)
    texts = references(sorted(ROOT.glob("lessons/*/README.md")))
    decks = references(sorted(ROOT.glob("slides/*.md")))
    problems = [] if len(drawn) >= 12 else [f"only {len(drawn)} figures (the course wants 12+)"]
    problems += [f"docs/figures has no {stem} (./course figures draws it)"
                 for stem in sorted(pdfs - {p.stem for p in COMMITTED.iterdir()})]
    for name, files in sorted({**texts, **decks}.items()):
        if name not in drawn:
            problems.append(f"{', '.join(files)}: references {name}, which figures.py does not "
                            f"draw or docs/figures lacks")
    for name in drawn:
        if name not in texts:
            problems.append(f"{name} is used by no lesson text")
        if name not in decks:
            problems.append(f"{name} is used by no deck")
        why = picture_problem(COMMITTED / name)
        if why:
            problems.append(f"{name}: {why}")
    for p in problems:
        print(f"FAIL {p}")
    print(f"figures: {len(drawn)} drawn, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
