#!/usr/bin/env python3
"""Prints bench_threads's medians: each stack's frame time on one thread and on all threads, and the
speed-up, on clonk and on 55 copies of it (99,770 vertices). Wall time: threads only pay off in
wall time, so measure on a quiet machine (the load average is in the JSON's context).

Usage: python3 bench/report_threads.py build/bench-results/threads.json
"""
import json
import sys

from report_common import medians, milliseconds


def main():
    path = sys.argv[1]
    m = medians(path)
    with open(path) as f:
        load = json.load(f)["context"].get("load_avg", [])
    print(f"  (load average when measured: {', '.join(f'{x:.1f}' for x in load)})")
    for character in ("BM_StackClonk", "BM_StackClonk55"):
        for s in range(32):
            one = m.get(f"{character}/stack:{s}/all_threads:0/real_time")
            two = m.get(f"{character}/stack:{s}/all_threads:1/real_time")
            if not (one and two):
                continue
            a, b = milliseconds(one), milliseconds(two)
            print(f"  {character[8:]:<8} {one.get('label', s):<16} {int(one['vertices']):>7} vertices: 1 thread {a:8.3f} ms,"
                  f" {int(two['threads'])} threads {b:8.3f} ms: {a / b:4.2f}x")


if __name__ == "__main__":
    main()
