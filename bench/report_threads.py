#!/usr/bin/env python3
"""Prints bench_threads's medians: each stack's frame time on one thread and on all threads, and the
speed-up (wall time, and the calling thread's CPU time), on clonk and on 55 copies of it (99,770
vertices); then Dynamic Skinning's per-frame sampling cost against one parallel_for dispatch.
Threads only pay off in wall time, so measure on a quiet machine (the load average is printed).

Usage: python3 bench/report_threads.py build/bench-results/threads.json
"""
import json
import sys

from report_common import medians, milliseconds

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
            print("| stack | clonk, 1 thread | 2 threads | speed-up | 99,770 vertices, 1 thread | 2 threads | speed-up |")
            print("|---|---|---|---|---|---|---|")
            for row in rows:
                cells = [cell(row[c], "us" if c == "BM_StackClonk" else "ms", cpu) if c in row else "- | - | -"
                         for c, _ in CHARACTERS]
                print(f"| {row['label']} | {' | '.join(cells)} |")
    dispatch = m.get("BM_PoolDispatch/real_time")
    for arg, name in ((0, "clonk"), (1, "synthetic, 64 joints")):
        sample = m.get(f"BM_DynamicSampling/synthetic64:{arg}/real_time")
        if sample and dispatch:
            s, d = 1000 * milliseconds(sample), 1000 * milliseconds(dispatch)
            print(f"\n  Dynamic Skinning sampling per 30 fps frame, {name} ({int(sample['joints'])} joints): {s:.2f} us;"
                  f" one parallel_for dispatch on {int(dispatch['threads'])} threads: {d:.2f} us; ratio {s / d:.2f}")


if __name__ == "__main__":
    main()
