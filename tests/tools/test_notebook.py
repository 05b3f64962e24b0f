#!/usr/bin/env python3
"""tools/course.ipynb runs top to bottom on data CI makes itself, and is committed clean.

  test_notebook.py BIN_DIR

Runs lesson 01's CPU benchmark (BIN_DIR/01_cpu_reference) at two small sizes into a CSV, and
lesson 03's driver on the CPU emulator into a profile CSV (the emulator's counters), executes
the notebook with nbclient on both, and checks that it drew the ladder and the roofline and set
matmul_tiled's counted intensity beside the lesson's. Also checks that the committed notebook
holds no outputs. Exit 0 on success, 1 on a failure, 77 (skipped) when nbclient, ipykernel
or matplotlib is missing.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
NOTEBOOK = ROOT / "tools" / "course.ipynb"


def committed_clean():
    """True when no code cell of the committed notebook carries outputs or a count."""
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    dirty = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and
             (c.get("outputs") or c.get("execution_count") is not None)]
    if dirty:
        print(f"FAIL tools/course.ipynb is committed with outputs in cells {dirty}")
    return not dirty


def profile_03(bin_dir, csv):
    """Lesson 03's kernels counted on the CPU emulator (its libraries first, GPU or not)."""
    lib = bin_dir.parent / "emulator" / "lib"
    env = dict(os.environ, LD_LIBRARY_PATH=f"{lib}:{os.environ.get('LD_LIBRARY_PATH', '')}")
    subprocess.run([str(bin_dir / "03_shared_memory_tiling"), "--size=64", f"--csv={csv}"],
                   check=True, stdout=subprocess.DEVNULL, env=env)


def run_notebook(bin_dir, tmp):
    """Execute the notebook on fresh lesson 01 and lesson 03 CSVs; return the text it printed."""
    import nbclient
    import nbformat
    csv, profile = tmp / "bench01.csv", tmp / "profile03.csv"
    for size in ("64", "96"):
        subprocess.run([str(bin_dir / "01_cpu_reference"), f"--size={size}", "--reps=1",
                        f"--csv={csv}"], check=True, stdout=subprocess.DEVNULL)
    profile_03(bin_dir, profile)
    os.environ.update(COURSE_BENCH_CSV=str(csv), COURSE_PROFILE_CSV=str(profile),
                      COURSE_NOTEBOOK_OUT=str(tmp / "plots"), COURSE_ROOT=str(ROOT))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp)}}).execute()
    return "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


def main():
    if len(sys.argv) != 2:
        print("usage: test_notebook.py BIN_DIR")
        return 1
    ok = committed_clean()
    missing = [m for m in ("nbclient", "nbformat", "ipykernel", "matplotlib")
               if importlib.util.find_spec(m) is None]
    if missing:
        print(f"SKIPPED: {', '.join(missing)} not installed (./course test installs them)")
        return 77 if ok else 1
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        text = run_notebook(pathlib.Path(sys.argv[1]), tmp)
        for name in ("ladder.png", "roofline.svg"):
            path = tmp / "plots" / name
            if not path.exists() or path.stat().st_size < 10000:
                print(f"FAIL the notebook did not draw {name}")
                ok = False
        for want in ("matmul_blocked", "lesson text: 8"):
            if want not in text:
                print(f"FAIL the notebook's output lacks '{want}'")
                ok = False
    print("course.ipynb: ok" if ok else "course.ipynb: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
