#!/usr/bin/env python3
"""Prints the ratios of bench/bench_runtime.cpp from its Google Benchmark JSON file (medians when
the file has repetitions): the C API's overhead over the C++ API per frame of lbs,dynamic, each
kernel family's speed-up of its SIMD path over its scalar reference, and the heap kept per vertex.

Usage: python3 bench/report_runtime.py build/bench-results/runtime.json
"""
import json
import sys

SCENES = {"0": "clonk_walk", "1": "million"}


def results(path):
    with open(path) as f:
        data = json.load(f)
    runs = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        runs[b["run_name"]] = b
    return runs


def main():
    runs = results(sys.argv[1])
    print("per frame of lbs,dynamic (one thread):")
    for arg, scene in SCENES.items():
        cpp = runs.get(f"BM_FrameCpp/{arg}")
        for locals_given, what in (("0", "world matrices"), ("1", "world matrices + local transforms")):
            c = runs.get(f"BM_FrameC/{arg}/{locals_given}")
            if cpp and c:
                overhead = c["real_time"] / cpp["real_time"] - 1
                print(f"  {scene:<11} C++ {cpp['real_time']:10.1f} {cpp['time_unit']}  C {c['real_time']:10.1f}"
                      f" {c['time_unit']}  C API overhead {100 * overhead:+6.2f} % ({what})")
    print("SIMD path against the scalar reference (one thread):")
    for name, b in sorted(runs.items()):
        if not name.startswith("BM_Kernel") or not name.endswith("/0"):
            continue
        scalar = runs.get(name[:-2] + "/1")
        if scalar:
            kernel, scene = name.split("/")[0][len("BM_Kernel"):], SCENES[name.split("/")[1]]
            print(f"  {kernel:<22} {scene:<11} {b.get('label', ''):<16} {b['real_time']:10.1f} {b['time_unit']}"
                  f"  scalar {scalar['real_time']:10.1f}  {scalar['real_time'] / b['real_time']:5.2f}x")
    print("heap kept per vertex once bound (clonk):")
    for name, b in sorted(runs.items()):
        if name.startswith("BM_BindMemory"):
            print(f"  {b.get('label', name):<16} {b['bytes_per_vertex']:8.1f} bytes")


if __name__ == "__main__":
    main()
