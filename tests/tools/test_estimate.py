#!/usr/bin/env python3
"""tools/estimate.py's validation line, read from emulator/README.md's table: every set there
with its mean absolute error; a row changed in a copy of the table changes the line (one source,
no copy of the numbers); without the table, a pointer to emulator/MODEL.md. A demangled kernel's
name (a template's too) is its name alone."""
import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import estimate  # noqa: E402


def main():
    readme = (ROOT / "emulator" / "README.md").read_text()
    rows = [line for line in readme.splitlines()
            if re.match(r"\| [^|]+ \| [^|]+ \| [^|]+ \| [0-9.]+% \|", line)]
    line = estimate.validation()
    with tempfile.TemporaryDirectory() as d:
        changed = pathlib.Path(d) / "README.md"
        mae = rows[0].split("|")[4]
        changed.write_text(readme.replace(rows[0], rows[0].replace(mae, " 99.9% ", 1)))
        other = estimate.validation(changed)
        missing = estimate.validation(pathlib.Path(d) / "none.md")
    checks = [
        ("the table has the sets (at least six)", len(rows) >= 6),
        ("each set's error is on the line", all(r.split("|")[4].strip() in line for r in rows)
         and line.count("%") == len(rows)),
        ("a changed row changes the line", "99.9%" in other and other != line),
        ("no table: a pointer to MODEL.md", missing == "validation error: emulator/MODEL.md"),
        ("a template's name alone",
         estimate.kernel_name("void layernorm_kernel<256>(float*, int)") == "layernorm_kernel"
         and estimate.kernel_name("flash_attention_kernel(const __half*)") == "flash_attention_kernel"),
    ]
    for name, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    print(line)
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
