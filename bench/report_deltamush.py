#!/usr/bin/env python3
"""Prints the medians of bench_deltamush's JSON and the ratios the issue asks for.

Usage: python3 bench/report_deltamush.py build/bench-results/deltamush.json [blender_ms] [--cpu]
--cpu: CPU-time medians instead of wall time (on a loaded machine, where wall time includes waiting).
Targets: Delta Mush (10 iterations) on 100,000 vertices at most 4 ms per frame on one thread
(folded), at most 2.5 ms on arbitrary input (issue 21);
DDM at most 3x LBS. Delta Mush is reported twice: on arbitrary input (BM_DeltaMush10, iterating)
and folded into the skin, as `lbs,deltamush` runs it (BM_DeltaMush10Folded; the whole stack with
LBS: BM_LbsDeltaMush10FoldedStack, against iterating: BM_LbsDeltaMush10Stack). With blender_ms (bench/blender_corrective_smooth_timing.py's figure for the
Corrective Smooth modifier, 10 iterations, 100,000 vertices, one thread) the speed-up is printed.
"""
import json
import re
import sys


def medians(data, cpu=False):
    out = {}
    extras = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        m = re.match(r"(BM_[^/]+)/vertices:(\d+)/threads:(\d+)", b["run_name"] if "run_name" in b else b["name"])
        if not m:
            continue
        field = "cpu_time" if cpu else "real_time"
        ms = b[field] if b.get("time_unit") == "ms" else b[field] / 1e6
        key = (m.group(1), int(m.group(2)), int(m.group(3)))
        out[key] = ms
        extras[key] = {k: b[k] for k in ("bind_s", "pruning_error", "influences", "mean_influences", "fold_s",
                                         "fold_error", "bytes_per_vertex", "loads_per_vertex", "flops_per_vertex",
                                         "vertices", "neighbours", "entries") if k in b}
    return out, extras


def copy_rates(data, cpu=False):
    """MiB -> the median copy rate in bytes (read plus written) per wall (or CPU) second; and the
    core's clock in MHz: BM_CoreClock's where it ran, else the context's (nominal) figure."""
    rates = {}
    mhz = data["context"].get("mhz_per_cpu", 0)
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        m = re.match(r"BM_MemoryCopy/MiB:(\d+)", name)
        if m and b.get("aggregate_name", "median") == "median":
            rates[int(m.group(1))] = b["bytes_per_second"] * (b["real_time"] / b["cpu_time"] if cpu else 1.0)
        if name.startswith("BM_CoreClock") and b.get("aggregate_name", "median") == "median" and "ghz" in b:
            mhz = b["ghz"] * 1e3
    return rates, mhz


def by_argument(data, pattern, cpu=False):
    """The benchmark's last argument (an integer) -> its median in ms, for names matching pattern
    (a regular expression whose group 1 is that argument)."""
    out = {}
    for b in data["benchmarks"]:
        m = re.match(pattern, b.get("run_name", b["name"]))
        if m and b.get("aggregate_name", "median") == "median" and "error_occurred" not in b:
            out[int(m.group(1))] = b["cpu_time" if cpu else "real_time"]
    return out


def sweeps_alone(data, cpu=False):
    """planned (0 or 1) -> the median of BM_Sweeps in ms (the 10 sweeps on the plain layout or
    the one bind plans: pairs and twins)."""
    return by_argument(data, r"BM_Sweeps/vertices:\d+/planned:(\d)", cpu)


def sweep_floors(data, cpu=False):
    """l1 (0: rows as bound, 1: all in L1) -> the median of BM_SweepFloor in ms."""
    return by_argument(data, r"BM_SweepFloor/vertices:\d+/l1:(\d)", cpu)


def parts(m, extras, floors, vertices=100_000, threads=1):
    """The frame in parts from the three timings, against the floor of sweeps that read each
    neighbour's row once per vertex (BM_SweepFloor; twins read one row for two vertices and can
    go below it)."""
    whole, smooth, frames = (m.get((name, vertices, threads)) for name in
                             ("BM_DeltaMush10", "BM_DeltaMush10SmoothOnly", "BM_DeltaMush0"))
    if None in (whole, smooth, frames) or 0 not in floors:
        return
    restore = whole - smooth        # the corner frames
    rest = frames - restore         # gather, scatter, the input's copy
    sweeps = smooth - rest
    floor = floors[0]
    e = extras.get(("BM_DeltaMush10", vertices, threads), {})
    if "entries" in e:
        print(f"  sweep layout: {e['entries']:.2f} row loads per vertex for {e['neighbours']:.2f} neighbours "
              f"(pairs of rows side by side, and twins' shared rows, read as one)")
    print(f"  parts: sweeps {sweeps:.2f} ms ({sweeps / floor:.2f}x the floor of reading each neighbour row once, "
          f"{floor:.2f} ms; {floors.get(1, float('nan')):.2f} ms with every row in L1), corner frames {restore:.2f} ms, "
          f"gather, scatter and copy {rest:.2f} ms; with the sweeps at that floor the frame takes "
          f"{floor + restore + rest:.2f} ms")


def roofline(m, extras, rates, mhz, vertices=100_000, threads=1):
    """Delta Mush on arbitrary input against what bounds it: bytes over the copy rate, load
    instructions over two loads per cycle, operations over 8-lane FMAs at two per cycle (cycles of
    the measured core clock)."""
    print(f"== roofline of Delta Mush on arbitrary input ({vertices:,} vertices, one thread)")
    for mib, rate in sorted(rates.items()):
        print(f"  copy of {mib} MiB: {rate / 1e9:.2f} GB/s read plus written")
    print(f"  core clock {mhz / 1e3:.2f} GHz")
    rate = rates.get(min(rates, key=lambda k: abs(2 * k * 2**20 - 30e6))) if rates else None
    hz = mhz * 1e6
    for name, what in (("BM_DeltaMush10", "whole (10 sweeps)"), ("BM_DeltaMush10SmoothOnly", "gather, sweeps, scatter"),
                       ("BM_DeltaMush0", "gather, corner frames, scatter")):
        ms, e = m.get((name, vertices, threads)), extras.get((name, vertices, threads), {})
        if ms is None or "bytes_per_vertex" not in e:
            continue
        n = e.get("vertices", vertices)
        memory = e["bytes_per_vertex"] * n / rate * 1e3 if rate else float("nan")
        loads = e["loads_per_vertex"] * n / (2 * hz) * 1e3 if hz else float("nan")
        flops = e["flops_per_vertex"] * n / (32 * hz) * 1e3 if hz else float("nan")
        bound = max(memory, loads, flops)
        print(f"  {what:<32} {ms:6.2f} ms: {e['bytes_per_vertex']:.0f} B, {e['loads_per_vertex']:.0f} loads, "
              f"{e['flops_per_vertex']:.0f} flops per vertex -> memory {memory:.2f} ms, load ports {loads:.2f} ms, "
              f"arithmetic {flops:.2f} ms; {ms / bound:.2f}x the largest")


def main():
    args = [a for a in sys.argv[1:] if a != "--cpu"]
    cpu = "--cpu" in sys.argv
    with open(args[0]) as f:
        data = json.load(f)
    m, extras = medians(data, cpu)
    blender_ms = float(args[1]) if len(args) > 1 else None
    names = sorted({k[0] for k in m})
    for vertices in sorted({k[1] for k in m}):
        for threads in sorted({k[2] for k in m}, reverse=True):
            label = "1 thread" if threads == 1 else "all threads"
            lbs = m.get(("BM_Lbs", vertices, threads))
            print(f"== {vertices:,} vertices, {label}")
            for name in names:
                ms = m.get((name, vertices, threads))
                if ms is None:
                    continue
                line = f"  {name:<28} {ms:9.3f} ms/frame"
                if lbs and name != "BM_Lbs":
                    line += f"  {ms / lbs:6.2f}x LBS"
                if name in ("BM_DeltaMush10", "BM_DeltaMush10Folded") and vertices == 100_000 and threads == 1:
                    target = 2.5 if name == "BM_DeltaMush10" else 4.0  # issue 21 (arbitrary input), issue 8 (folded)
                    line += f"  (target <= {target} ms: " + ("met" if ms <= target else "NOT met") + ")"
                    if blender_ms:
                        line += f"; Blender's Corrective Smooth {blender_ms:.1f} ms: {blender_ms / ms:.1f}x faster"
                if name.startswith("BM_Ddm") and lbs:
                    line += "  (target <= 3x LBS: " + ("met" if ms <= 3 * lbs else "NOT met") + ")"
                extra = extras.get((name, vertices, threads), {})
                if "bind_s" in extra:
                    line += f"; bind {extra['bind_s']:.1f} s"
                if "fold_s" in extra:
                    line += (f"; fold {extra['fold_s']:.2f} s, {extra['mean_influences']:.2f} influences on average"
                             f", {extra['fold_error']:.1e} of the size from iterating")
                if "pruning_error" in extra:
                    line += f"; pruning error {extra['pruning_error']:.1e} of the size"
                print(line)
    rates, mhz = copy_rates(data, cpu)
    if ("BM_DeltaMush10", 100_000, 1) in m:
        roofline(m, extras, rates, mhz)
        floors = sweep_floors(data, cpu)
        parts(m, extras, floors)
        alone = sweeps_alone(data, cpu)
        if alone:
            line = "  the 10 sweeps alone (BM_Sweeps): " + ", ".join(
                f"{'planned (pairs, twins)' if k else 'plain groups'} {v:.2f} ms" for k, v in sorted(alone.items()))
            if 0 in floors:
                line += f"; floor {floors[0]:.2f} ms"
            print(line)


if __name__ == "__main__":
    main()
