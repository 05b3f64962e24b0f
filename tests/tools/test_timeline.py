#!/usr/bin/env python3
"""tools/timeline.py on stream records written here: the serial pipeline takes the sum of its
stages; 8 chunks on 3 streams take the slowest stage plus fill and drain; on 2 streams, longer;
with pageable buffers (a wait of the host after every copy), no shorter than serial; as a
graph's nodes, less per operation; and the phases are cut at the marks."""
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
import timeline  # noqa: E402

WORDS = 1 << 22
KERNEL_MS = 0.3


def record(base, chunks, streams, pinned=True, graph=False):
    """The op lines of one pipeline: chunk c's copy in, kernel and copy out on stream base + c %
    streams (a wait of the host after each pageable copy), and "model" lines for the kernels."""
    lines, seq, host = [], {}, base
    for c in range(chunks):
        s = f"{base + c % streams:x}"
        words = WORDS * (c + 1) // chunks - WORDS * c // chunks
        for kind, sides in (("copy", 1), ("kernel", 0), ("copy", 2)):
            sides |= (8 if sides == 1 else 4) if pinned and sides else 0
            n = seq[s] = seq.get(s, 0) + 1
            lines.append(f"op stream={s} seq={n} kind={kind} sides={sides} dst=0 "
                         f"dst_bytes={4 * words} src=0 src_bytes={4 * words} graph={int(graph)} "
                         f"deps={f'{s}:{n - 1}' if n > 1 else '-'} name={kind} site=")
            if kind == "kernel":
                lines += [f"ran stream={s} seq={n}",
                          f"model kernel=mix ms={KERNEL_MS / chunks + 0.003} grid=1 block=1"]
            if kind == "copy" and not pinned:
                lines.append(wait(host := host + 1, f"{s}:{n}"))
    return lines + [wait(host + 1, ",".join(f"{s}:{n}" for s, n in seq.items()))]


def wait(seq, deps):
    """A wait of the host for @p deps: a pageable copy's, or the pipeline's last."""
    return (f"op stream=host seq={seq} kind=sync sides=0 dst=0 dst_bytes=0 src=0 src_bytes=0 "
            f"graph=0 deps={deps} name=cudaStreamSynchronize site=")


def totals(phases):
    """{label: total ms} of a record made of @p phases [(label, lines)], marks between them."""
    lines = []
    for label, body in phases:
        lines.append(f"op stream=host seq=0 kind=mark sides=0 dst=0 dst_bytes=0 src=0 "
                     f"src_bytes=0 graph=0 deps=- name={label} site=")
        lines += body
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    ops, by_name = timeline.parse(f.name)
    pathlib.Path(f.name).unlink()
    timeline.schedule(ops, by_name, "h100")
    return {label: timeline.summary(members)["total"] for label, members in timeline.phases(ops)}


def main():
    copy = 3e-3 + 4 * WORDS / (timeline.LINKS["h100"] * timeline.LINK_EFFICIENCY * 1e9) * 1e3
    t = totals([("serial", record(0x10, 1, 1)), ("three streams", record(0x20, 8, 3)),
                ("two streams", record(0x30, 8, 2)), ("pageable", record(0x40, 8, 3, False)),
                ("graph", record(0x50, 8, 3, graph=True))])
    stage = max(copy, KERNEL_MS + 3e-3)
    checks = [
        ("serial is the sum of its stages", abs(t["serial"] - (2 * copy + KERNEL_MS + 3e-3)) < 1e-6),
        ("three streams: the slowest stage plus fill and drain",
         stage < t["three streams"] < stage + 2 * stage / 8 + 8 * 3 * 3e-3),
        ("two streams take longer than three", t["two streams"] > t["three streams"] * 1.1),
        ("pageable copies overlap nothing", t["pageable"] >= t["serial"]),
        ("graph nodes cost less than queued operations", t["graph"] < t["three streams"]),
    ]
    bad = [name for name, ok in checks if not ok]
    for name, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    print(f"totals (ms): {', '.join(f'{k} {v:.3f}' for k, v in t.items())}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
