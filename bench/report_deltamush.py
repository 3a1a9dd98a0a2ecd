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


def medians(path, cpu=False):
    with open(path) as f:
        data = json.load(f)
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
                                         "fold_error") if k in b}
    return out, extras


def main():
    args = [a for a in sys.argv[1:] if a != "--cpu"]
    m, extras = medians(args[0], "--cpu" in sys.argv)
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


if __name__ == "__main__":
    main()
