#!/usr/bin/env python3
"""Prints the medians of a Google Benchmark JSON file and the ratios the issues ask for.

Usage: python3 bench/report_lbs.py build/bench-results/lbs.json
Convention for the bandwidth bound: a streaming copy of N bytes takes N / copy_rate seconds;
LBS must read and write `bytes_per_vertex` bytes per vertex, so its bound is
bytes_per_vertex / copy_rate per vertex (the convention of the reference figures: 29 GB/s -> 2.3 ns).
"""
import json
import sys

BYTES_PER_VERTEX = 12 + 12 + 4 * (2 + 4) + 12 + 12  # pos, normal, 4 x (joint u16, weight f32), out pos, out normal


def medians(path):
    with open(path) as f:
        data = json.load(f)
    result = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            result[b["run_name"]] = b
    return result


def main():
    m = medians(sys.argv[1])
    copy = next(v for k, v in m.items() if k.startswith("BM_MemoryCopy"))
    rate = copy["bytes_per_second"]
    bound = BYTES_PER_VERTEX / rate * 1e9
    print(f"memory copy: {rate / 1e9:.1f} GB/s -> LBS bandwidth bound {bound:.2f} ns/vertex ({BYTES_PER_VERTEX} bytes)")
    scalar = next((v["ns_per_vertex"] for k, v in m.items() if k.startswith("BM_LbsScalarLoop")), None)
    for name, b in sorted(m.items()):
        if "ns_per_vertex" not in b:
            continue
        ns = b["ns_per_vertex"]
        line = f"{name:<45} {ns:6.2f} ns/vertex  {ns / bound:5.2f}x bound"
        if scalar and not name.startswith("BM_LbsScalarLoop"):
            line += f"  {scalar / ns:5.2f}x faster than the scalar loop"
        print(line)


if __name__ == "__main__":
    main()
