#!/usr/bin/env python3
"""Every generated exercise builds, and its tests fail quickly instead of passing or hanging.

For each lesson's exercise test binary in BIN_DIR, every case that can run here (GPU cases
skip without a device) must finish within its own timeout, and at least one must fail: an
unfinished exercise that passes its tests would grade nothing. Where cases skipped (no GPU and
no emulator in the environment), the ones that ran may all pass.
"""
import pathlib
import subprocess
import sys
import time


def main():
    bin_dir = pathlib.Path(sys.argv[1])
    binaries = sorted(bin_dir.glob("test_[0-9][0-9]_exercise"))
    if not binaries:
        print(f"no exercise test binaries in {bin_dir}")
        return 1
    bad = 0
    for exe in binaries:
        cases = [line.split("\t") for line in subprocess.run(
            [exe, "--list"], capture_output=True, text=True, check=True).stdout.splitlines()]
        failed = ran = skipped = 0
        for name, _labels, timeout in cases:
            start = time.monotonic()
            try:
                rc = subprocess.run([exe, "--case", name], capture_output=True,
                                    timeout=int(timeout) + 15).returncode
            except subprocess.TimeoutExpired:
                print(f"{exe.name} {name}: still running after {timeout}s (hangs)")
                bad += 1
                continue
            took = time.monotonic() - start
            if rc == 77:
                skipped += 1
                continue
            ran += 1
            failed += rc != 0
            print(f"{exe.name} {name}: {'fails' if rc else 'passes'} in {took:.1f}s")
        if ran and not failed and skipped:
            print(f"{exe.name}: what runs here passes; the {skipped} cases that would fail "
                  "need a GPU or the emulator (run under ./course test)")
        elif ran and not failed:
            print(f"{exe.name}: every test passes on the unfinished exercise")
            bad += 1
        if not ran:
            print(f"{exe.name}: nothing runs without a GPU (all cases skipped)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
