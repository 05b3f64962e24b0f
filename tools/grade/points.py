"""The points file (tests/points.tsv): one line per exercise-side test,

    NN.exercise.case<TAB>points[<TAB>options]

options, separated by spaces:
  after=case,case   the test scores only when these cases of the same lesson pass: a structure
                    case (what the PTX or ptxas shows) names the correctness cases of the
                    functions it looks at, so shape points follow behaviour
  visibility=V      Gradescope's: visible (the default), hidden, after_due_date, after_published
"""
import collections
import pathlib
import re

Entry = collections.namedtuple("Entry", "points after visibility")
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
# Cases that judge the code's shape (what the PTX or ptxas reports), which must name the
# correctness cases they follow.
STRUCTURE = re.compile(r"\.(ptx_\w+|\w+_in_registers)$")


def read(path):
    """Ordered {test name: Entry} from the points file; exits naming a malformed line."""
    entries = {}
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3) or not re.fullmatch(r"\d+(\.\d+)?", fields[1].strip()):
            raise SystemExit(f"{path}:{number}: expected 'test<TAB>points[<TAB>options]', "
                             f"got {line!r}")
        name = fields[0].strip()
        options = dict(o.split("=", 1) for o in (fields[2].split() if len(fields) == 3 else [])
                       if "=" in o)
        if len(fields) == 3 and len(options) != len(fields[2].split()):
            raise SystemExit(f"{path}:{number}: options are key=value, got {fields[2]!r}")
        prefix = name.rsplit(".", 1)[0] + "."
        after = tuple(prefix + c for c in options.pop("after", "").split(",") if c)
        visibility = options.pop("visibility", "visible")
        if visibility not in VISIBILITIES or options:
            raise SystemExit(f"{path}:{number}: unknown option in {fields[2]!r} (after=, "
                             f"visibility={'|'.join(VISIBILITIES)})")
        entries[name] = Entry(float(fields[1]), after, visibility)
    return entries


def problems(entries, known):
    """What is wrong with @p entries against the tests CTest @p known, one line each."""
    listed = set(entries)
    out = [f"no points for exercise test {n}" for n in sorted(known - listed)]
    out += [f"the points file names {n}, which is not an exercise test"
            for n in sorted(listed - known)]
    for name, e in entries.items():
        out += [f"{name} follows {a}, which is not a test" for a in e.after if a not in entries]
        if STRUCTURE.search(name) and not e.after:
            out.append(f"{name} judges the code's shape: name the correctness cases it follows "
                       "(after=case,...), so that it scores only when they pass")
    return out
