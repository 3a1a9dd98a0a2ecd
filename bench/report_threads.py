#!/usr/bin/env python3
"""Prints bench_threads's medians: each stack's frame time on one thread and on all threads, and the
speed-up (wall time, and the calling thread's CPU time), on clonk and on 55 copies of it (99,770
vertices); then Dynamic Skinning's per-frame sampling cost against what splitting work of that size
over two threads gains.
Threads only pay off in wall time, so measure on a quiet machine (the load average is printed).

Usage: python3 bench/report_threads.py build/bench-results/threads.json
"""
import json
import sys

from report_common import medians, milliseconds, table_head

CHARACTERS = (("BM_StackClonk", "clonk"), ("BM_StackClonk55", "55 clonks"))


def stack_rows(m):
    """(stack, {character: (one, two)}) in stack order."""
    rows = {}
    for character, _ in CHARACTERS:
        for s in range(32):
            one = m.get(f"{character}/stack:{s}/all_threads:0/real_time")
            two = m.get(f"{character}/stack:{s}/all_threads:1/real_time")
            if one and two:
                rows.setdefault(s, {"label": one.get("label", str(s))})[character] = (one, two)
    return [rows[s] for s in sorted(rows)]


def cell(pair, unit, cpu=False):
    one, two = pair
    scale = 1000.0 if unit == "us" else 1.0
    a, b = scale * milliseconds(one, cpu), scale * milliseconds(two, cpu)
    return f"{a:.3g} {unit} | {b:.3g} {unit} | **{a / b:.2f}x**"


def main():
    path = sys.argv[1]
    m = medians(path)
    with open(path) as f:
        load = json.load(f)["context"].get("load_avg", [])
    print(f"  (load average when measured: {', '.join(f'{x:.1f}' for x in load)})")
    rows = stack_rows(m)
    if rows:
        first = next(row[c] for row in rows for c, _ in CHARACTERS if c in row)
        two_threads = int(first[1]["threads"])
        for cpu in (False, True):
            what = "calling thread's CPU time" if cpu else "wall time"
            print(f"\n  {what}, medians: 1 thread | {two_threads} threads | speed-up")
            table_head("stack", "clonk, 1 thread", "2 threads", "speed-up", "99,770 vertices, 1 thread", "2 threads", "speed-up")
            for row in rows:
                cells = [cell(row[c], "us" if c == "BM_StackClonk" else "ms", cpu) if c in row else "- | - | -"
                         for c, _ in CHARACTERS]
                print(f"| {row['label']} | {' | '.join(cells)} |")
    sampling_report(m)


def sampling_report(m):
    """Dynamic Skinning's sampling per frame and its pose evaluations against the cost of a split."""
    us = lambda b: 1000 * milliseconds(b)
    for arg, name in ((0, "clonk"), (1, "synthetic")):
        sample = m.get(f"BM_DynamicSampling/synthetic64:{arg}/real_time")
        pose = m.get(f"BM_PoseEvaluation/synthetic64:{arg}/real_time")
        if sample and pose:
            print(f"\n  Dynamic Skinning sampling per 30 fps frame, {name} ({int(sample['joints'])} joints): "
                  f"{us(sample):.2f} us, of which one pose evaluation {us(pose):.2f} us")
    for steps in (500, 2000, 8000):
        parallel = m.get(f"BM_ParallelChunks/steps:{steps}/real_time")
        serial = m.get(f"BM_SerialChunks/steps:{steps}/real_time")
        if parallel and serial:
            print(f"  two chunks of {us(serial) / 2:.2f} us each: serial {us(serial):.2f} us, over "
                  f"{int(parallel['threads'])} threads {us(parallel):.2f} us ({us(serial) / us(parallel):.2f}x)")

if __name__ == "__main__":
    main()
