#!/usr/bin/env python3
"""Build the lesson decks (slides/NN_topic.md) into PDF with pandoc and LaTeX beamer, and check them.

  tools/slides.py --figures DIR --out DIR DECK.md [DECK.md ...]

A deck is Markdown: `#` opens it, every slide is a `##` heading (pandoc --slide-level=2 makes
each a titled frame; the `#` title is shown once, on the first frame, with no section page),
`---` may separate slides, and figures are referenced as `../docs/figures/NAME.svg` (or .png:
the committed figures, as the lesson texts link them); --figures names a folder with the same
figures as NAME.pdf (tools/figures.py --pdf), which the build includes instead. pdflatex runs
twice, so that longtable settles its column widths, and the PDF is reproducible (no dates, no
trailer ID, no file paths). Checks, each printed as `deck: problem`, exit 1 on any:
  - every frame of the LaTeX has a title;
  - every figure the deck references exists in --figures and is included in the LaTeX;
  - every figure is shown at MIN_SCALE of its drawn size or more (its smallest text, 10.5 pt
    as drawn, stays above 6 pt on the frame);
  - no code line is longer than CODE_COLUMNS (checked in the Markdown, with its line number);
  - LaTeX reports no overfull box wider or taller than 1pt (text or code running off a frame),
    and after the last pass no "Rerun" warning (tables or labels not yet settled).
With --published DIR (docs/slides, the committed PDFs that the README links), each PDF built
must equal DIR's byte for byte, when DIR/VERSIONS (pandoc's, pdfTeX's and matplotlib's
versions and the hashes of the decks' figures, committed and built, written beside every build)
matches this build's; with other tools the bytes differ for no fault of the decks, and a note
says so; with the same tools and other committed figures (a figure redrawn, the decks not
rebuilt) DIR is stale, a problem.
Exit 77 (skipped) when pandoc, pdflatex or beamer is missing, saying which.
"""
import argparse
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

CODE_COLUMNS = 72  # what fits across a 16:9 frame in beamer's code font
MIN_SCALE = 0.58  # of a figure's drawn size: 10.5 pt text shown at 6.1 pt or more
FIGURE = re.compile(r"!\[[^\]]*\]\(\.\./docs/figures/([\w-]+)\.(?:svg|png)\)")
FRAME = re.compile(r"\\begin\{frame\}(\[[^\]]*\])?(\{.*)?$")
OVERFULL = re.compile(r"Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\)(.*)")
RERUN = re.compile(r"^(?:Package \w+ )?Warning: (.*(?:Rerun|Label\(s\) may have changed).*)$",
                   re.MULTILINE)
SHOWN = re.compile(r"^COURSE-FIGURE (\S+) ([\d.]+)pt$", re.MULTILINE)
MEDIABOX = re.compile(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]")
# Into every deck's preamble: PDFs without dates, trailer ID or file paths; and a line in the
# log per figure with the width it is shown at.
# Courier for code: Latin Modern's typewriter l and 1 look alike (the lane variable l reads as 1).
HEADER = r"""\renewcommand{\ttdefault}{txtt}
\pdfinfoomitdate=1
\pdftrailerid{}
\pdfsuppressptexinfo=-1
\let\courseincludegraphics\includegraphics
\renewcommand{\includegraphics}[2][]{\sbox0{\courseincludegraphics[#1]{#2}}%
  \typeout{COURSE-FIGURE #2 \the\wd0}\usebox0}
"""


def missing_tools():
    """The first missing tool as a one-line reason, or None."""
    for tool in ("pandoc", "pdflatex", "kpsewhich"):
        if not shutil.which(tool):
            return f"{tool} is not installed (./course docs installs pandoc and texlive)"
    for sty in ("beamer.cls", "pgf.sty", "lmodern.sty", "pcrr8t.tfm"):
        r = subprocess.run(["kpsewhich", sty], capture_output=True, text=True)
        if not r.stdout.strip():
            return (f"LaTeX has no {sty} (Debian: texlive-latex-recommended, texlive-pictures, "
                    "lmodern, texlive-fonts-recommended)")
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
        if not (figures / f"{name}.pdf").is_file():
            problems.append(f"{deck}: figure {name}.pdf is not in {figures} "
                            f"(tools/figures.py --pdf draws it)")
    return problems


def figure_scales(log):
    """[(figure, scale)]: each figure's shown width over its drawn width (the PDF's MediaBox)."""
    scales = []
    for path, shown in SHOWN.findall(log):
        m = MEDIABOX.search(pathlib.Path(path).read_bytes())
        drawn = float(m.group(1)) * 72.27 / 72  # big points to TeX points
        scales.append((pathlib.Path(path).stem, float(shown) / drawn))
    return scales


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
    for m in RERUN.finditer(log):
        problems.append(f"{deck}: after the last pdflatex pass: {m.group(1)}")
    for name, scale in figure_scales(log):
        if scale < MIN_SCALE:
            problems.append(f"{deck}: figure {name} shown at {scale:.0%} of its size (at least "
                            f"{MIN_SCALE:.0%}: give it a frame of its own, or a larger height)")
    return problems


def build(deck, out, figures, work):
    """Build one deck into out/NAME.pdf; return its problems."""
    text = deck.read_text()
    problems = check_markdown(deck.name, text, figures)
    if problems:
        return problems
    n_figures = len(FIGURE.findall(text))
    source = FIGURE.sub(lambda m: m.group(0)[:m.group(0).index("(../docs/")] +  # ![...]
                        f"({figures}/{m.group(1)}.pdf)", text)
    tex_path = work / f"{deck.stem}.tex"
    (work / "header.tex").write_text(HEADER)
    subprocess.run(["pandoc", "-f", "markdown", "-t", "beamer", "-s", "--slide-level=2",
                    "-V", "aspectratio=169", "-V", "theme=default", "-V", "section-titles=false",
                    "-H", str(work / "header.tex"), "-o", str(tex_path)],
                   input=source, text=True, check=True)
    for _ in range(2):  # longtable's column widths settle on the second pass
        r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                            tex_path.name], cwd=work, capture_output=True, text=True,
                           env={**os.environ, "max_print_line": "10000"})  # unwrapped log
        log = (work / f"{deck.stem}.log").read_text(errors="replace")
        if r.returncode != 0:
            first = next((ln for ln in log.splitlines() if ln.startswith("!")), "see the log")
            return [f"{deck.name}: pdflatex failed: {first}"]
    shutil.copy(work / f"{deck.stem}.pdf", out / f"{deck.stem}.pdf")
    return check_latex(deck.name, tex_path.read_text(), log, n_figures)


def stamp(figures, decks):
    """What the decks' PDF bytes depend on besides their text: pandoc's, pdfTeX's and matplotlib's
    versions (the tools), the committed figures the decks show, and those figures as built."""
    names = sorted({m.group(0).split("(../docs/figures/")[1].rstrip(")")
                    for d in decks for m in FIGURE.finditer(d.read_text())})
    lines = []
    for tool in ("pandoc", "pdflatex"):
        out = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
        lines.append(out.splitlines()[0] if out else f"{tool}: unknown")
    try:
        import matplotlib
        lines.append(f"matplotlib {matplotlib.__version__}")
    except ImportError:
        lines.append("matplotlib: unknown")
    committed, built = hashlib.sha256(), hashlib.sha256()
    for name in names:
        committed.update(name.encode() + (decks[0].parent / "../docs/figures" / name).read_bytes())
        pdf = figures / (name.rsplit(".", 1)[0] + ".pdf")
        built.update(pdf.name.encode() + pdf.read_bytes())
    return "\n".join(lines + [f"committed figures sha256 {committed.hexdigest()}",
                              f"built figures sha256 {built.hexdigest()}"]) + "\n"


def compare_published(out, published, decks, built_with):
    """Problems where a committed PDF in @p published differs from the one just built. Built with
    other tools, or with the same figures drawn otherwise, the bytes differ for no fault of the
    decks: a note only. Built from other committed figures, the published decks are stale."""
    versions = published / "VERSIONS"
    theirs = versions.read_text().splitlines() if versions.exists() else []
    ours = built_with.splitlines()
    if theirs[:3] != ours[:3]:
        print(f"slides: {published} was built with other tools: not compared")
        return []
    if theirs[3:4] != ours[3:4]:
        return [f"{published} was built from other figures than docs/figures holds: run "
                "./course docs and commit docs/slides"]
    if theirs != ours:
        print(f"slides: {published} was built with its figures drawn otherwise: not compared")
        return []
    stale = [d.stem for d in decks if not (published / f"{d.stem}.pdf").exists() or
             (published / f"{d.stem}.pdf").read_bytes() != (out / f"{d.stem}.pdf").read_bytes()]
    return [f"{published}/{name}.pdf differs from slides/{name}.md: run ./course docs and commit "
            "docs/slides" for name in stale]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="+", type=pathlib.Path)
    parser.add_argument("--figures", required=True, type=pathlib.Path, help="the figures' folder")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="folder for the PDFs")
    parser.add_argument("--published", type=pathlib.Path,
                        help="the committed PDFs (docs/slides) to compare the built ones with")
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
    built_with = stamp(figures, args.decks)
    (args.out / "VERSIONS").write_text(built_with)
    if args.published and not problems:
        problems += compare_published(args.out, args.published, args.decks, built_with)
    for p in problems:
        print(p)
    print(f"slides: {len(args.decks)} decks into {args.out}, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
