#!/usr/bin/env python3
"""Build the lesson decks (slides/NN_topic.md) into PDF with pandoc and LaTeX beamer, and check them.

  tools/slides.py --figures DIR --out DIR DECK.md [DECK.md ...]

A deck is Markdown: `#` opens it, every slide is a `##` heading (pandoc --slide-level=2 makes
each a titled frame), `---` may separate slides, and figures are referenced as
`../docs/figures/NAME.png` (relative to slides/, where ./course docs draws them); --figures says
where they are for this build. Checks, each printed as `deck: problem`, exit 1 on any:
  - every frame of the LaTeX has a title;
  - every figure the deck references exists in --figures and is included in the LaTeX;
  - no code line is longer than CODE_COLUMNS (checked in the Markdown, with its line number);
  - LaTeX reports no overfull box wider or taller than 1pt (text or code running off a frame).
Exit 77 (skipped) when pandoc, pdflatex or beamer is missing, saying which.
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

CODE_COLUMNS = 72  # what fits across a 16:9 frame in beamer's code font
FIGURE = re.compile(r"!\[[^\]]*\]\(\.\./docs/figures/([^)\s]+)\)")
FRAME = re.compile(r"\\begin\{frame\}(\[[^\]]*\])?(\{.*)?$")
OVERFULL = re.compile(r"Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\)(.*)")


def missing_tools():
    """The first missing tool as a one-line reason, or None."""
    for tool in ("pandoc", "pdflatex", "kpsewhich"):
        if not shutil.which(tool):
            return f"{tool} is not installed (./course docs installs pandoc and texlive)"
    for sty in ("beamer.cls", "pgf.sty", "lmodern.sty"):
        r = subprocess.run(["kpsewhich", sty], capture_output=True, text=True)
        if not r.stdout.strip():
            return f"LaTeX has no {sty} (Debian: texlive-latex-recommended, texlive-pictures, lmodern)"
    return None


def check_markdown(deck, text, figures):
    """Problems found before pandoc runs: long code lines and missing figures."""
    problems, in_code = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        code = line if in_code else (line[4:] if line.startswith("    ") else None)
        if code is not None and len(code) > CODE_COLUMNS:
            problems.append(f"{deck}:{n}: code line of {len(code)} columns "
                            f"(at most {CODE_COLUMNS} fit on a frame)")
    for name in FIGURE.findall(text):
        if not (figures / name).is_file():
            problems.append(f"{deck}: figure {name} is not in {figures} (./course figures)")
    return problems


def check_latex(deck, tex, log, want_figures):
    """Problems in the generated LaTeX and its log: untitled frames, figures, overfull boxes."""
    problems = []
    for line in tex.splitlines():
        m = FRAME.match(line.strip())
        if m and not (m.group(2) or "").strip("{}"):
            problems.append(f"{deck}: a frame without a title")
    body = tex[tex.find("\\begin{document}"):]  # the preamble defines \includegraphics's size
    included = len(re.findall(r"\\includegraphics", body))
    if included != want_figures:
        problems.append(f"{deck}: {included} figures in the LaTeX, {want_figures} in the Markdown")
    for m in OVERFULL.finditer(log):
        if float(m.group(1)) > 1.0:
            problems.append(f"{deck}: overfull box, {m.group(1)}pt off the frame{m.group(2)}")
    return problems


def build(deck, out, figures, work):
    """Build one deck into out/NAME.pdf; return its problems."""
    text = deck.read_text()
    problems = check_markdown(deck.name, text, figures)
    if problems:
        return problems
    n_figures = len(FIGURE.findall(text))
    source = FIGURE.sub(lambda m: m.group(0).replace("../docs/figures/", f"{figures}/"), text)
    tex_path = work / f"{deck.stem}.tex"
    subprocess.run(["pandoc", "-f", "markdown", "-t", "beamer", "-s", "--slide-level=2",
                    "-V", "aspectratio=169", "-V", "theme=default", "-o", str(tex_path)],
                   input=source, text=True, check=True)
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                        tex_path.name], cwd=work, capture_output=True, text=True)
    log = (work / f"{deck.stem}.log").read_text(errors="replace")
    if r.returncode != 0:
        first = next((line for line in log.splitlines() if line.startswith("!")), "see the log")
        return [f"{deck.name}: pdflatex failed: {first}"]
    shutil.copy(work / f"{deck.stem}.pdf", out / f"{deck.stem}.pdf")
    return check_latex(deck.name, tex_path.read_text(), log, n_figures)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="+", type=pathlib.Path)
    parser.add_argument("--figures", required=True, type=pathlib.Path, help="the figures' folder")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="folder for the PDFs")
    args = parser.parse_args()
    why = missing_tools()
    if why:
        print(f"slides: skipped: {why}")
        return 77
    args.out.mkdir(parents=True, exist_ok=True)
    figures = args.figures.resolve()
    problems = []
    with tempfile.TemporaryDirectory() as work:
        for deck in args.decks:
            problems += build(deck, args.out, figures, pathlib.Path(work))
    for p in problems:
        print(p)
    print(f"slides: {len(args.decks)} decks into {args.out}, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
