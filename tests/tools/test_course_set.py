#!/usr/bin/env python3
"""tools/course_set.py's pairing of a GPU's benchmark rows with the model's launches: a version
benchmarked twice takes its kernel's last two launches in order (the driver's earlier launches,
its checks, are not benchmark rows), another lesson's row of the same name is not taken, and a
kernel with fewer launches than rows stops the set with a line naming it; the emulator's rows
(one a kernel, no time) pair the version's kernel's row alone."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import course_set  # noqa: E402

BENCH = [{"lesson": "06_parallel_patterns", "version": "histogram_global", "ms": "17.3"},
         {"lesson": "06_parallel_patterns", "version": "histogram_shared", "ms": "0.11"},
         {"lesson": "06_parallel_patterns", "version": "histogram_global", "ms": "35.0"},
         {"lesson": "07_streams", "version": "histogram_global", "ms": "99"}]
LAUNCHES = [("histogram_global_kernel", 0.005, "atomic"),  # the driver's own check, small
            ("histogram_global_kernel", 0.136, "atomic"),
            ("histogram_shared_kernel", 0.081, "latency"),
            ("histogram_global_kernel", 17.0, "atomic")]


def main():
    two = course_set.paired("06", "histogram_global", LAUNCHES, BENCH)
    one = course_set.paired("06", "histogram_shared", LAUNCHES, BENCH)
    emulated = [{"lesson": "06_parallel_patterns", "version": "histogram_shared", "kernel": k}
                for k in ("zero_kernel", "histogram_shared_kernel")]
    untimed = course_set.paired("06", "histogram_shared", LAUNCHES, emulated)
    short = subprocess.run([sys.executable, "-c",
                            "import sys; sys.path.insert(0, sys.argv[1]); import course_set; "
                            "course_set.paired('06', 'histogram_global', "
                            "[('histogram_global_kernel', 1.0, 'atomic')], "
                            "[{'lesson': '06_x', 'version': 'histogram_global', 'ms': '1'}] * 2)",
                            str(ROOT / "tools")], capture_output=True, text=True)
    checks = [
        ("twice benchmarked: the last two launches, in order",
         two == [(0.136, "atomic", 17.3), (17.0, "atomic", 35.0)]),
        ("once: its one launch", one == [(0.081, "latency", 0.11)]),
        ("the emulator's rows: the version's kernel's, not a helper's, paired, GPU ms None",
         untimed == [(0.081, "latency", None)]),
        ("too few launches: exit 1, the version named",
         short.returncode == 1 and "histogram_global: 2 GPU rows, 1 launches" in short.stderr),
    ]
    for name, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
