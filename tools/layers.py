#!/usr/bin/env python3
"""The emulator's modules against their stated order (CTest tools.layers).

    tools/layers.py [EMULATOR_DIR]      (default: emulator/ beside this folder)

EMULATOR_DIR/layers.txt lists the layers bottom up: a name, the files it holds (globs under
EMULATOR_DIR, comma-separated) and the layers it may use (comma-separated, or '-'), which
may use what they list in turn. This script reads every C source and header there and finds
two kinds of edge between files: an #include "x.h", and a use in a .c file of a name another
file defines with external linkage (a call, or a function named as a value). It exits 1, with one line
per edge, when an edge goes from a layer to one it may not use; when a file is in no layer or
in two; when the stated uses form a cycle; or when a source file sits at EMULATOR_DIR's top.

It reads text, not objects: comments and strings are dropped, and a name counts where it is
a whole word that is not a member (after . or ->), a tag (after struct, enum, union) or the
file's own static. That is enough for this code base's style (clang-formatted, a function's
brace on a line of its own), which the script assumes.
"""
import fnmatch
import os
import re
import sys

SOURCE = (".c", ".h")


def strip(text):
    """@p text without comments, string and character literals (line breaks kept)."""
    out, i, n = [], 0, len(text)
    pattern = re.compile(r'/\*|//|"|\'')
    while i < n:
        m = pattern.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        tok = m.group()
        if tok == "/*":
            end = text.find("*/", m.end())
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", m.start(), end))
        elif tok == "//":
            end = text.find("\n", m.end())
            end = n if end < 0 else end
        else:
            end = m.end()
            while end < n and text[end] != tok:
                end += 2 if text[end] == "\\" else 1
            end += 1
            out.append(tok + tok)
        i = end
    return "".join(out)


def read_layers(root):
    """[(name, [globs], [uses])] from root/layers.txt, in order."""
    layers = []
    with open(os.path.join(root, "layers.txt"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 3:
                sys.exit(f"layers.txt:{number}: want NAME FILES USES, got {line!r}")
            uses = [] if parts[2] == "-" else parts[2].split(",")
            layers.append((parts[0], parts[1].split(","), uses))
    return layers


def allowed(layers):
    """{name: every layer it may use, transitively}; exits on an unknown name or a cycle."""
    direct = {name: uses for name, _, uses in layers}
    closure = {}

    def visit(name, path):
        if name in path:
            sys.exit("tools.layers: the stated order has a cycle: " + " -> ".join(path + [name]))
        if name not in closure:
            if name not in direct:
                sys.exit(f"tools.layers: layers.txt names an unknown layer {name!r}")
            reach = set()
            for use in direct[name]:
                reach |= {use} | visit(use, path + [name])
            closure[name] = reach
        return closure[name]

    for name in direct:
        visit(name, [])
    return closure


def sources(root):
    """Every .c and .h under root, as paths relative to it."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(SOURCE):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


DEFINITION = re.compile(r"^([A-Za-z_][^;{}()=]*?)\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{", re.M)
VARIABLE = re.compile(r"^([A-Za-z_][\w \*]*?)\b([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*(=[^;]*)?;", re.M)
WORD = re.compile(r"(struct\s+|enum\s+|union\s+|\.\s*|->\s*)?\b([A-Za-z_]\w*)\b")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def definitions(text):
    """(external names, static names) a .c file defines at file scope."""
    external, static = set(), set()
    for m in DEFINITION.finditer(text):
        (static if "static" in m.group(1).split() else external).add(m.group(2))
    for m in VARIABLE.finditer(text):
        words = m.group(1).split()
        if "extern" in words or "typedef" in words or not words or words[0] in ("return", "goto"):
            continue
        (static if "static" in words else external).add(m.group(2))
    return external, static


def edges(root, files, raw):
    """[(from, to, what)]: the includes and the uses of other files' external names."""
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    text = {f: strip(raw[f]) for f in files}
    owner, statics, twice = {}, {}, set()
    for f in files:
        if f.endswith(".c"):
            external, statics[f] = definitions(text[f])
            for name in external:
                if owner.setdefault(name, f) != f:
                    twice.add(name)  # one per program (main): no edge
    for name in twice:
        del owner[name]
    found = []
    for f in files:
        for m in INCLUDE.finditer(raw[f]):
            target = by_name.get(os.path.basename(m.group(1)), [])
            if len(target) == 1 and target[0] != f:
                found.append((f, target[0], f'#include "{m.group(1)}"'))
        if f.endswith(".h"):
            continue  # a header declares its module's names: only its includes are edges
        seen = set()
        for m in WORD.finditer(text[f]):
            name = m.group(2)
            if m.group(1) or name in seen or name in statics.get(f, ()):
                continue
            seen.add(name)
            target = owner.get(name)
            if target and target != f:
                found.append((f, target, name))
    return found


def layer_of(layers, files):
    """{file: layer name}, and the problems (a file in none, or in two)."""
    where, problems = {}, []
    for f in files:
        names = [name for name, globs, _ in layers if any(fnmatch.fnmatch(f, g) for g in globs)]
        if len(names) != 1:
            problems.append(f"{f}: in {len(names)} layers of layers.txt ({', '.join(names)}), "
                            "not exactly one")
        else:
            where[f] = names[0]
    return where, problems


def check(root):
    """The lines that say what is wrong with @p root, or none."""
    layers = read_layers(root)
    may = allowed(layers)
    files = sources(root)
    problems = [f"{f}: a source file at the top of emulator/ (it belongs in a module's folder)"
                for f in files if os.sep not in f]
    where, unplaced = layer_of(layers, files)
    problems += unplaced
    raw = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as h:
            raw[f] = h.read()
    pairs = {}
    for a, b, what in edges(root, files, raw):
        la, lb = where.get(a), where.get(b)
        if la and lb and la != lb and lb not in may[la]:
            pairs.setdefault((a, la, b, lb), []).append(what)
    for (a, la, b, lb), whats in sorted(pairs.items()):
        problems.append(f"{a} ({la}) uses {b} ({lb}), against the order: {', '.join(whats[:4])}")
    return problems, len(files), len(layers)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "emulator")
    problems, nfiles, nlayers = check(root)
    for line in problems:
        print("tools.layers: " + line)
    if problems:
        return 1
    print(f"tools.layers: {nfiles} files in {nlayers} layers, every edge with the order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
