#!/usr/bin/env python3
"""The numbers the tests grade by, in the texts and decks: taken from the tests, never by hand.

  tools/bars.py [--apply] [FILE.md ...]

The tests hold every bar and bound in one place each: the timing cases' bars, per GPU family
and each with its source, in tests/common/course_bars.c; the metric cases' bounds as named
constants of each lesson's judge (`static const double name = value;` at file scope in
tests/NN_topic/test_topic.c); the exercise's regions in solutions/NN_topic/. A text or deck
that states one of them marks it, with an HTML comment right after the number (invisible on
GitHub and in the PDF decks, which pandoc builds without it):

  4.8x<!--bar:coalesced_over_naive@86-->   the bar of that case on sm_86 (@0 or no @: the row
                                            for every family, else the key's only row)
  6.4x<!--lo:coalesced_over_naive@86-->    the low end of the band expected there (hi: the top)
  80%<!--bound:coalesced_min_efficiency-->  a constant of this lesson's judge (NN.name: another's)
  14<!--regions:13-->                       BEGIN SOLUTION regions of lesson 13 (13/file: one file)

A number is read with its unit (80% is 0.8, 4.8x is 4.8) and must equal the value. Each lesson
README also holds the table of its timing bars, with their sources, between `<!-- bars -->` and
`<!-- /bars -->`, generated from course_bars.c. And a number a text states by hand right after
a comparison (>=, <=, at least, at most, a bar of, a target of, no worse than) must carry a
mark: a bound or a bar, said once in the tests and copied by this tool.

Without --apply: print one line per problem (file:line, what) and exit 1 on any. With --apply:
rewrite every marked number and every bars table from the tests, then check what is left
(unmarked numbers need a hand). FILES default to README.md, GRADING.md, the lesson texts, their
answer keys and the decks.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BARS_C = ROOT / "tests" / "common" / "course_bars.c"
NUMBER = r"\d+(?:\.\d+)?(?:e-?\d+)?"
MARK = re.compile(rf"(?P<num>{NUMBER})(?P<unit>%|x)?<!--(?P<kind>bar|lo|hi|bound|regions)"
                  r":(?P<ref>[\w./@-]+)-->")
# A number a text must not state by hand: any number right after >= or <=, or after "bar of"
# or "target of"; a percentage or a speedup after "at least", "at most" or "no worse than".
COMPARED = re.compile(rf"(?:(?:>=|<=|\bbars? (?:is |of )?|\btargets? (?:is |of )?)\s*"
                      rf"{NUMBER}(?:%|x)?"
                      rf"|(?:\bat least|\bat most|\bno worse than)\s+(?:the\s+)?{NUMBER}(?:%|x))"
                      r"(?P<mark><!--)?")
CODE_SPAN = re.compile(r"`[^`]*`")
TABLE = re.compile(r"<!-- bars -->\n.*?<!-- /bars -->", re.S)
LESSON = re.compile(r"(?:lessons|slides|solutions|tests)/(\d\d)_")


def c_strings(expr, macros):
    """The C string expression @p expr (literals and macro names, concatenated) as text."""
    out = []
    for lit, name in re.findall(r'"((?:[^"\\]|\\.)*)"|(\w+)', expr):
        out.append(lit if not name else macros[name])
    return "".join(out)


def read_bars(path=BARS_C):
    """{(key, family): {"bar", "lo", "hi", "source"}} from course_bars.c's table."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    macros = {}
    for name, expr in re.findall(r"#define (\w+)\s+((?:[^\n]*\\\n)*[^\n]*)", text):
        if '"' in expr:
            macros[name] = c_strings(expr.replace("\\\n", " "), macros)
    table = text[text.index("bars[] = {"):]
    table = table[:table.index("\n};")]
    bars = {}
    for key, fam, bar, lo, hi, src in re.findall(
            r'\{\s*"(\w+)",\s*(\d+),\s*([\d.]+),\s*([\d.]+),\s*([\d.]+),\s*([^{}]*?)\s*\}', table):
        bars[(key, int(fam))] = {"bar": float(bar), "lo": float(lo), "hi": float(hi),
                                 "source": c_strings(src, macros)}
    if len(bars) != table.count('{"'):
        sys.exit(f"bars.py: {path} has a row this tool cannot read")
    return bars


def read_bounds():
    """{(lesson, name): value}: the file-scope `static const double name = value;` of every
    lesson's judge."""
    bounds = {}
    for test in sorted(ROOT.glob("tests/[0-9][0-9]_*/test_*.c")):
        for name, value in re.findall(r"^static const (?:double|int) (\w+) = ([\d.e+-]+);",
                                      test.read_text(), re.M):
            bounds[(test.parent.name[:2], name)] = float(value)
    return bounds


def regions(ref):
    """BEGIN SOLUTION regions of lesson NN (NN) or of one of its files (NN/file)."""
    lesson, _, name = ref.partition("/")
    folders = list(ROOT.glob(f"solutions/{lesson}_*"))
    files = [f for d in folders for f in sorted(d.iterdir()) if not name or f.name == name]
    return sum(f.read_text().count("// BEGIN SOLUTION") for f in files) if files else None


def lesson_keys(lesson, bars):
    """The bar keys lesson NN's judge names, in the order they appear there."""
    keys = []
    for test in ROOT.glob(f"tests/{lesson}_*/test_*.c"):
        for key in re.findall(r'"(\w+)"', test.read_text()):
            if any(k == key for k, _ in bars) and key not in keys:
                keys.append(key)
    return keys


def bar_row(key, family, bars):
    """The row of @p key for @p family (None: the every-family row, else the only one)."""
    if family is not None:
        return bars.get((key, family))
    rows = [v for (k, f), v in bars.items() if k == key]
    return bars.get((key, 0)) or (rows[0] if len(rows) == 1 else None)


def value(kind, ref, lesson, bars, bounds):
    """The value a mark names, or a string saying why there is none."""
    if kind == "regions":
        n = regions(ref)
        return n if n is not None else f"no solutions/{ref}"
    if kind == "bound":
        nn, _, name = ref.rpartition(".")
        got = bounds.get((nn or lesson, name))
        return got if got is not None else f"no constant {name} in tests/{nn or lesson}_*/"
    key, _, fam = ref.partition("@")
    row = bar_row(key, int(fam) if fam else None, bars)
    if row is None:
        return f"no row {ref} in tests/common/course_bars.c"
    return row[{"bar": "bar", "lo": "lo", "hi": "hi"}[kind]]


def as_number(num, unit):
    return float(num) / 100 if unit == "%" else float(num)


def written(v, unit):
    """@p v as a text writes it with @p unit."""
    if unit == "%":
        return f"{round(v * 100, 6):g}%"
    return f"{v:g}{unit or ''}"


def shown(v, bar):
    """@p v, a bar or a band's end, as the table shows it: in % when the bar is a fraction
    (of cuBLAS's speed, of a copy's bandwidth), else as a speedup in x."""
    return written(v, "%" if bar < 1 else "x")


def bars_table(lesson, bars):
    """The Markdown table of lesson NN's timing bars, with their sources."""
    rows = ["<!-- bars -->", "", "| timing case | GPU | bar | band expected | source |",
            "| --- | --- | ---: | --- | --- |"]
    for key in lesson_keys(lesson, bars):
        fams = sorted(f for k, f in bars if k == key)
        for fam in [f for f in fams if f] + [0]:
            row = bars.get((key, fam))
            if row is None:  # no every-family row: the loosest bar applies elsewhere
                row = min((bars[(key, f)] for f in fams), key=lambda r: r["bar"])
                source = "placeholder: no bar for this family, the loosest the course has"
            else:
                source = row["source"]
            gpu = f"sm_{fam}" if fam else ("every other" if len(fams) > (0 in fams) else "every")
            lo, hi, bar = (shown(row[k], row["bar"]) for k in ("lo", "hi", "bar"))
            band = lo if hi == lo else f"{lo} to {hi}"
            rows.append(f"| `{key}` | {gpu} | {bar} | {band} | {source} |")
    rows += ["", "<!-- /bars -->"]
    return "\n".join(rows)


def lesson_of(path):
    """The lesson NN a file belongs to (lessons/NN_topic/..., slides/NN_topic.md), or None."""
    m = LESSON.search(str(path.resolve()))
    return m.group(1) if m else None


def shown_path(path):
    """@p path relative to the course when it is inside it."""
    path = path.resolve()
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def check_file(path, bars, bounds, apply):
    """Problems in @p path, one line each; with @p apply, the file rewritten first."""
    text, lesson = path.read_text(), lesson_of(path)
    rel = shown_path(path)
    problems = []

    def fix(m):
        v = value(m["kind"], m["ref"], lesson, bars, bounds)
        if isinstance(v, str) or not apply:
            return m.group(0)
        comment = m.group(0)[m.group(0).index("<!--"):]
        return written(v, m["unit"]) + comment

    new = MARK.sub(fix, text)
    if path.name == "README.md" and lesson and "<!-- bars -->" in new:
        new = TABLE.sub(lambda m: bars_table(lesson, bars), new)
    if apply and new != text:
        path.write_text(new)
        text = new
    if path.name == "README.md" and lesson and lesson_keys(lesson, bars) and TABLE.search(text):
        if TABLE.search(text).group(0) != bars_table(lesson, bars):
            problems.append(f"{rel}: its bars table differs from tests/common/course_bars.c")
    elif path.name == "README.md" and lesson and lesson_keys(lesson, bars):
        problems.append(f"{rel}: no bars table (<!-- bars --> <!-- /bars --> in \"Measured\")")
    in_code = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith("    ") or line.startswith("<!-- bars") or line.startswith(
                "| `"):
            continue
        for m in MARK.finditer(line):
            v = value(m["kind"], m["ref"], lesson, bars, bounds)
            if isinstance(v, str):
                problems.append(f"{rel}:{n}: {m.group(0)}: {v}")
            elif abs(as_number(m["num"], m["unit"]) - v) > 1e-9 * max(1.0, abs(v)):
                problems.append(f"{rel}:{n}: {m['num']}{m['unit'] or ''} where the tests say "
                                f"{written(v, m['unit'])} ({m['kind']}:{m['ref']})")
        for m in COMPARED.finditer(CODE_SPAN.sub("", line)):
            if not m["mark"]:
                problems.append(f"{rel}:{n}: '{m.group(0).strip()}' states a number by hand: "
                                "mark it from the tests (tools/bars.py says how)")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--apply", action="store_true",
                        help="rewrite the marked numbers and the bars tables from the tests")
    args = parser.parse_args()
    files = args.files or [ROOT / "README.md", ROOT / "GRADING.md", *sorted(
        [*ROOT.glob("lessons/*/README.md"), *ROOT.glob("lessons/*/ANSWERS.md"),
         *ROOT.glob("slides/*.md")])]
    bars, bounds = read_bars(), read_bounds()
    problems = [p for f in files for p in check_file(f, bars, bounds, args.apply)]
    for p in problems:
        print(p)
    print(f"bars: {len(files)} texts, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
