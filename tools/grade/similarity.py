"""How much of the code a student had to write repeats the solution, token for token
(information for the instructor, worth no points)."""
import difflib
import re

import gen_exercises  # tools/ is on the path (__main__.py)

from .paths import ROOT


C_TOKEN = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|[A-Za-z_]\w*"
                     r"|\d[\w.]*|<<<|>>>|->|\+\+|--|&&|\|\||<<=?|>>=?|[<>=!+\-*/%&|^]=|\S", re.S)


def tokens(text, known):
    """The C tokens of @p text without comments; a name not in @p known (the exercise's own: its
    API, parameters, types) becomes its order of first appearance, so renaming changes nothing."""
    out, names = [], {}
    for t in C_TOKEN.findall(text):
        if t.startswith(("//", "/*")):
            continue
        if (t[0].isalpha() or t[0] == "_") and t not in known:
            t = names.setdefault(t, f"name{len(names)}")
        out.append(t)
    return out


def solution_regions(text):
    """The text of each BEGIN/END SOLUTION region of @p text, in order."""
    regions, inside = [], None
    for line in text.splitlines(keepends=True):
        if gen_exercises.BEGIN.match(line):
            inside = []
        elif gen_exercises.END.match(line):
            regions.append("".join(inside))
            inside = None
        elif inside is not None:
            inside.append(line)
    return regions


def written(exercise, student):
    """The lines the student wrote: those of @p student that differ from @p exercise."""
    ours, theirs = exercise.splitlines(), student.splitlines()
    ops = difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_opcodes()
    return "\n".join(l for tag, _, _, j1, j2 in ops if tag != "equal" for l in theirs[j1:j2])


def solution_match(exercises, lesson):
    """Percent of the solution regions' tokens of @p lesson that the student's files (under
    @p exercises) repeat in order, names normalised; None when the lesson has no region."""
    matched = total = 0
    for sol in sorted(ROOT.glob(f"solutions/{lesson}_*/*")):
        text = sol.read_text(errors="replace")
        regions = solution_regions(text)
        if not regions:
            continue
        exercise = gen_exercises.strip(text, str(sol))
        known = set(C_TOKEN.findall(exercise))
        want = tokens("\n".join(regions), known)
        mine = exercises / sol.parent.name / sol.name
        got = tokens(written(exercise, mine.read_text(errors="replace")), known) if mine.is_file() else []
        blocks = difflib.SequenceMatcher(None, want, got, autojunk=False).get_matching_blocks()
        matched += sum(b.size for b in blocks)
        total += len(want)
    return 100.0 * matched / total if total else None


def match_text(percent):
    """A similarity for the table and grades.csv: '' (no region), 'NN%' or '100% (copy)'."""
    if percent is None:
        return ""
    return "100% (copy)" if percent == 100 else f"{percent:.0f}%"
