#!/usr/bin/env python3
"""Prints the medians of bench_dynamic's JSON results: ms per frame and ns per (vertex, joint) pair,
one thread and all threads, with the ratio to the Velocity Skinning reference (about 50 ms per frame,
~880 ns per pair, on vs_marine run) and to the 5 ns per pair target.

Usage: python3 bench/report_dynamic.py build/bench-results/dynamic.json
"""
import json
import sys

REFERENCE_NS_PER_PAIR = 880.0
TARGET_NS_PER_PAIR = 5.0


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    print(f"{'benchmark':<46} {'threads':>7} {'pairs':>10} {'ms/frame':>9} {'ns/pair':>8} {'vs reference':>13} {'vs target':>10}")
    for b in rows:
        ns = b["ns_per_pair"]
        print(f"{b['run_name']:<46} {int(b['threads']):>7} {int(b['pairs']):>10} {b['ms_per_frame']:>9.3f} {ns:>8.2f} "
              f"{REFERENCE_NS_PER_PAIR / ns:>12.0f}x {ns / TARGET_NS_PER_PAIR:>9.2f}x")


if __name__ == "__main__":
    main()
