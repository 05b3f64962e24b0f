#!/usr/bin/env python3
"""The time model's timeline: a program's copies and kernels laid out in time on a named GPU's
copy engines and SMs, from the emulator's stream record (a model, never a measurement).

  tools/timeline.py FILE [--gpu GPU] [--markdown]

FILE is what a program run with COURSE_EMU_MODEL=GPU COURSE_EMU_MODEL_OUT=FILE left there
(./course estimate writes it): the stream record's "op" lines, each queued operation with the
operations it depends on (emulator/rt_record.c, format in emulator/server.c), and each kernel's
"model" line after the "ran" line naming its operation. The model places every operation, in the
order the host issued it, at the earliest time its dependencies and its engine allow:

  - engines: one copy engine per direction (host to device, device to host) and the SMs, each
    running its operations one at a time in the order they were issued (kernels of different
    streams do not share the SMs here: a kernel of a wave or more fills them anyway);
  - a kernel takes the time model's estimate for its launch (emulator/vm/model.c, whose 3 us of
    launch overhead it includes); a copy takes COPY_OVERHEAD_US plus its bytes over the GPU's
    host link at LINK_EFFICIENCY of the rate its datasheet gives per direction (LINKS); a node
    of a graph's launch costs GRAPH_NODE_US instead of the 3 us (kernels: 2 us less);
  - the host runs ahead of the device, but work it queues after a wait (a synchronising call)
    starts no earlier than the wait ended; the record holds such a wait after every copy to or
    from pageable memory, which the runtime stages through a pinned buffer of its own before the
    call returns (its bandwidth is not modelled lower);
  - events, event waits and empty nodes take no time.

The program's marks (course_emu_mark, emulator/emu.h; lesson 07's driver names each version so)
cut the record into phases, one row each: the busy time of each engine, the total from the
phase's first operation to its last, and the total over the first phase's (the serial one).
"""
import argparse
import pathlib
import sys

# Each GPU's link to the host, GB/s per direction: the PCIe generation and width its datasheet
# gives (T4: Gen3 x16; RTX A6000, GeForce RTX 3090, A100 SXM, L4: Gen4 x16; H100 SXM5: Gen5
# x16), at 8, 16 and 32 GT/s per lane with 128b/130b encoding.
LINKS = {"t4": 15.75, "a6000": 31.5, "rtx3090": 31.5, "a100": 31.5, "a100-40gb": 31.5, "l4": 31.5,
         "h100": 63.0}
# The fraction of the link's rate a pinned copy reaches: an assumption (packet headers and flow
# control take the rest), not measured here.
LINK_EFFICIENCY = 0.8
# What one queued copy costs beyond its bytes, and one node of a graph's launch: assumptions. The
# 3 us are the kernel model's launch overhead (emulator/vm/gpus.c); 1 us a graph node, from
# CUDA.jl's documentation of graphs (80 short kernels: 260 us launched one by one, 70 us as a
# graph, under 1 us each); neither measured here.
COPY_OVERHEAD_US = 3.0
GRAPH_NODE_US = 1.0
LAUNCH_OVERHEAD_US = 3.0
ENGINES = ("H2D", "SMs", "D2H")


def parse(path):
    """The ops of @p path, in issue order (dicts), with each kernel's model ms; marks as ops of
    kind "mark"."""
    ops, by_name, ran = [], {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("op "):
            head, _, site = line.partition(" site=")
            head, _, name = head.partition(" name=")  # a mark's label may hold spaces
            op = dict(kv.split("=", 1) for kv in head.split()[1:])
            op["name"], op["site"] = name, site
            op["ms"] = 0.0
            ops.append(op)
            if op["kind"] != "mark":
                by_name[(op["stream"], op["seq"])] = op
        elif line.startswith("ran "):
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            ran = by_name.get((f["stream"], f["seq"]))
        elif line.startswith("model ") and ran is not None:
            f = dict(kv.split("=", 1) for kv in line.split()[1:])
            ran["ms"] = float(f["ms"])
            ran = None
    return ops, by_name


def engine(op):
    """The engine @p op runs on, or None (no time)."""
    sides = int(op["sides"])
    if op["kind"] == "kernel" or op["kind"] == "fill":
        return "SMs"
    if op["kind"] == "copy":
        return "D2H" if sides & 3 == 2 else "H2D"
    return None


def duration(op, gpu):
    """Milliseconds @p op keeps its engine busy."""
    graph = op["graph"] == "1"
    if op["kind"] == "kernel":
        return op["ms"] - (LAUNCH_OVERHEAD_US - GRAPH_NODE_US) * 1e-3 * graph
    if op["kind"] == "copy":
        rate = LINKS.get(gpu, LINKS["h100"]) * LINK_EFFICIENCY * 1e9
        over = GRAPH_NODE_US if graph else COPY_OVERHEAD_US
        return over * 1e-3 + int(op["dst_bytes"]) / rate * 1e3
    if op["kind"] == "fill":
        return (GRAPH_NODE_US if graph else COPY_OVERHEAD_US) * 1e-3
    return 0.0


def schedule(ops, by_name, gpu):
    """Place every op (its "start" and "end", ms): after its dependencies, its engine's previous
    op and the host's last wait."""
    free = dict.fromkeys(ENGINES, 0.0)
    host = 0.0
    for op in ops:
        if op["kind"] == "mark":
            op["start"] = op["end"] = host
            continue
        deps = [by_name[tuple(d.rsplit(":", 1))] for d in op["deps"].split(",") if d != "-"
                and tuple(d.rsplit(":", 1)) in by_name]
        ready = max([host] + [d["end"] for d in deps])
        where = engine(op)
        op["engine"] = where
        op["start"] = max(ready, free[where]) if where else ready
        op["end"] = op["start"] + (duration(op, gpu) if where else 0.0)
        if where:
            free[where] = op["end"]
        if op["kind"] == "sync":
            host = op["end"]


def phases(ops):
    """[(label, [ops])], cut at the marks (ops before the first mark: "program")."""
    out = [["program", []]]
    for op in ops:
        if op["kind"] == "mark":
            out.append([op["name"], []])
        elif op["kind"] != "sync" or out[-1][1]:
            out[-1][1].append(op)
    return [(label, members) for label, members in out if any(engine(o) for o in members)]


def summary(members):
    """One phase's numbers: streams, copies in, kernels, copies out, busy ms per engine, total
    ms, graph launches."""
    work = [o for o in members if engine(o)]
    busy = {e: sum(o["end"] - o["start"] for o in work if o["engine"] == e) for e in ENGINES}
    start = min(o["start"] for o in work)
    end = max(o["end"] for o in members)
    launches = sum(1 for o in members if o["kind"] == "nop" and o["name"] == "cudaGraphLaunch")
    return {"streams": len({o["stream"] for o in work}),
            "in": sum(1 for o in work if o["engine"] == "H2D"),
            "kernels": sum(1 for o in work if o["kind"] == "kernel"),
            "out": sum(1 for o in work if o["engine"] == "D2H"),
            "busy": busy, "total": end - start, "launches": max(launches, 1), "start": start}


def markdown(rows, gpu):
    """The table of a README's "Estimated (model)" section."""
    print(f"| version | streams | copies in | kernels | copies out | H2D engine ms | SMs ms "
          f"| D2H engine ms | total ms | serial / total (model, {gpu}) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    base = rows[0][1]["total"] / rows[0][1]["launches"] if rows else 1.0
    for label, s in rows:
        per = s["launches"]
        name = label + (f" (per launch, {per} launches)" if per > 1 else "")
        b = s["busy"]
        total = s["total"] / per
        print(f"| {name} | {s['streams']} | {s['in'] // per} | {s['kernels'] // per} | "
              f"{s['out'] // per} | {b['H2D'] / per:.3f} | {b['SMs'] / per:.3f} | "
              f"{b['D2H'] / per:.3f} | {total:.3f} | {base / total:.2f}x |")


def lanes(label, s, members, width=60):
    """A phase as text: one lane per engine, '#' where it is busy."""
    print(f"{label}: {s['total']:.3f} ms (model)")
    scale = width / s["total"] if s["total"] > 0 else 0.0
    for e in ENGINES:
        cells = [" "] * width
        for o in members:
            if o.get("engine") == e:
                a = int((o["start"] - s["start"]) * scale)
                z = max(a + 1, int((o["end"] - s["start"]) * scale))
                for i in range(a, min(z, width)):
                    cells[i] = "#"
        print(f"  {e:<4}|{''.join(cells)}|")


def report(path, gpu, as_markdown):
    """Print the timeline of model file @p path on @p gpu; False when it holds no stream record."""
    ops, by_name = parse(path)
    schedule(ops, by_name, gpu)
    rows = [(label, summary(m), m) for label, m in phases(ops)]
    if not rows:
        return False
    if as_markdown:
        markdown([(label, s) for label, s, _ in rows], gpu)
        return True
    print(f"model: the timeline on {gpu}'s copy engines and SMs (tools/timeline.py: a "
          f"{LINKS.get(gpu, LINKS['h100'])} GB/s link per direction at {LINK_EFFICIENCY:.0%}, "
          f"{COPY_OVERHEAD_US:g} us per copy, {GRAPH_NODE_US:g} us per graph node; not measured)")
    for label, s, members in rows:
        lanes(label, s, members)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file", help="a model file (COURSE_EMU_MODEL_OUT)")
    p.add_argument("--gpu", default="h100", help="t4, a6000, rtx3090, a100, a100-40gb, l4 or h100")
    p.add_argument("--markdown", action="store_true", help="a README's Markdown table")
    args = p.parse_args()
    if not report(args.file, args.gpu, args.markdown):
        sys.exit(f"timeline.py: {args.file} holds no stream record (no copies or kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
