#!/usr/bin/env python3
"""Prints the medians of bench_lbs's JSON and the ratios the issues ask for.

Usage: python3 bench/report_lbs.py build/bench-results/lbs.json
Convention for the bandwidth bound (the same everywhere in docs/benchmarks.md): bytes read plus
bytes written. BM_MemoryCopy counts both (a copy of N bytes moves 2N), so its bytes_per_second is
the machine's read-plus-write rate; a kernel that reads and writes B bytes per vertex is bounded by
B / rate per vertex. LBS with normals moves 72 bytes per vertex (48 read, 24 written), positions
only 48; each benchmark reports its own bytes (the scalar loop moves the same 72 as the kernel).
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


def bytes_per_vertex(b):
    if "bytes_per_second" in b and "items_per_second" in b:
        return b["bytes_per_second"] / b["items_per_second"]
    return BYTES_PER_VERTEX


def copy_rate(m):
    """Read-plus-write bytes per second of the streaming copy."""
    return next(v for k, v in m.items() if k.startswith("BM_MemoryCopy"))["bytes_per_second"]


def main():
    m = medians(sys.argv[1])
    rate = copy_rate(m)
    print(f"memory copy: {rate / 1e9:.1f} GB/s read plus written -> LBS bound {BYTES_PER_VERTEX / rate * 1e9:.2f} ns/vertex"
          f" ({BYTES_PER_VERTEX} bytes read plus written)")
    scalar = next((v["ns_per_vertex"] for k, v in m.items() if k.startswith("BM_LbsScalarLoop")), None)
    for name, b in sorted(m.items()):
        if "ns_per_vertex" not in b:
            continue
        ns = b["ns_per_vertex"]
        bound = bytes_per_vertex(b) / rate * 1e9
        line = f"{name:<45} {ns:6.2f} ns/vertex  {ns / bound:5.2f}x its bound ({bytes_per_vertex(b):.0f} B: {bound:.2f} ns)"
        if scalar and not name.startswith("BM_LbsScalarLoop"):
            line += f"  {scalar / ns:5.2f}x faster than the scalar loop"
        print(line)


if __name__ == "__main__":
    main()
