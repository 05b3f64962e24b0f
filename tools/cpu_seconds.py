#!/usr/bin/env python3
"""The CPU seconds a command takes, with every process it starts: cpu_seconds.py OUT CMD ARGS...

Runs CMD (its output goes where this script's goes) and writes to the file OUT the user and
system seconds of CMD and of everything it started, the emulator's device server among them.
The server outlives the program by a moment and is nobody's waited-for child, so a shell's
`time` misses it; this script makes itself the subreaper of CMD's processes (Linux
prctl(PR_SET_CHILD_SUBREAPER)), so that orphans come back to it, waits for all of them, and
reads their times from getrusage(RUSAGE_CHILDREN). Exits with CMD's status.
"""
import ctypes
import os
import resource
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: cpu_seconds.py OUT CMD [ARGS...]")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("cpu_seconds.py: prctl(PR_SET_CHILD_SUBREAPER) failed: not Linux?")
    status = subprocess.call(sys.argv[2:])
    while True:  # the orphans (the device server) come back to this process
        try:
            os.wait()
        except ChildProcessError:
            break
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(sys.argv[1], "w") as out:
        out.write(f"{used.ru_utime + used.ru_stime:.1f}\n")
    sys.exit(status)


if __name__ == "__main__":
    main()
