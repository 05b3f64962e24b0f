#!/usr/bin/env python3
"""tools/layers.py can fail (CTest tools.layers_planted): on a copy of emulator/, each planted
back-edge (a call, a function named as a value, an #include, against emulator/layers.txt), a
cycle in the stated order, a source file at the top and a file in no layer must each fail it
with a line naming the pair; the untouched copy passes."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOOL = os.path.join(ROOT, "tools", "layers.py")


def run(tree):
    """(exit status, output) of the tool on @p tree."""
    p = subprocess.run([sys.executable, TOOL, tree], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def append(tree, path, text):
    with open(os.path.join(tree, path), "a", encoding="utf-8") as f:
        f.write(text)


# (what is planted, how, what the failure must say)
PLANTS = [
    ("the queue calls a launch (the knot)",
     lambda t: append(t, "runtime/rt_queue.c",
                      "\nvoid planted(void)\n{\n    cudaLaunchKernel(0, (dim3){0}, (dim3){0}, 0, 0, 0);\n}\n"),
     "runtime/rt_queue.c (runtime.queue) uses runtime/rt_launch.c (runtime.launch)"),
    ("common memory calls the VM",
     lambda t: append(t, "common/mem.c", "\nvoid planted(void)\n{\n    vm_launch(0, 0);\n}\n"),
     "common/mem.c (common) uses vm/launch.c (vm.launch)"),
    ("the dispatch loop's message helper is taken as a value below it",
     lambda t: append(t, "vm/diag.c",
                      "\nvoid *planted(void)\n{\n    return (void *)vm_exec_grid;\n}\n"),
     "vm/diag.c (vm.base) uses vm/exec.c (vm.exec)"),
    ("the runtime includes a VM header",
     lambda t: append(t, "runtime/rt_core.c", '\n#include "vm_impl.h"\n'),
     'runtime/rt_core.c (runtime.core) uses vm/vm_impl.h (vm.base), against the order: '
     '#include "vm_impl.h"'),
    ("the stated order has a cycle",
     lambda t: append(t, "layers.txt", "\nplanted  none/*  planted\n"),
     "the stated order has a cycle: planted -> planted"),
    ("a source file at the top",
     lambda t: open(os.path.join(t, "planted.c"), "w").write("int planted;\n"),
     "planted.c: a source file at the top of emulator/"),
    ("a file in no layer",
     lambda t: (os.makedirs(os.path.join(t, "nowhere")),
                open(os.path.join(t, "nowhere", "x.c"), "w").write("int planted;\n")),
     "nowhere/x.c: in 0 layers"),
]


def copy_tree(scratch):
    tree = os.path.join(scratch, "emulator")
    shutil.copytree(os.path.join(ROOT, "emulator"), tree,
                    ignore=shutil.ignore_patterns("*.md", "*.map", "CMakeLists.txt"))
    return tree


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        status, out = run(copy_tree(os.path.join(scratch, "clean")))
        if status != 0:
            print(f"FAIL the untouched emulator/ does not pass:\n{out}")
            failures += 1
        for i, (what, plant, want) in enumerate(PLANTS):
            tree = copy_tree(os.path.join(scratch, str(i)))
            plant(tree)
            status, out = run(tree)
            if status == 0 or want not in out:
                print(f"FAIL {what}: status {status}, and no line saying '{want}':\n{out}")
                failures += 1
            else:
                print(f"ok   {what}: {out.strip().splitlines()[0]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
