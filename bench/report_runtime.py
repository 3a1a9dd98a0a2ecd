#!/usr/bin/env python3
"""Prints the ratios of bench/bench_runtime.cpp from its Google Benchmark JSON file (medians when
the file has repetitions): the C API's overhead over the C++ API per frame of lbs,dynamic, each
kernel family's speed-up of its SIMD path over its scalar reference, and the heap kept per vertex.

Usage: python3 bench/report_runtime.py build/bench-results/runtime.json [--cpu]
--cpu: CPU-time medians (on a loaded machine), else wall time.
"""
import sys

from report_common import medians, milliseconds

SCENES = {"0": "clonk_walk", "1": "million"}


def main():
    runs = medians(sys.argv[1])
    cpu = "--cpu" in sys.argv
    us = lambda b: 1e3 * milliseconds(b, cpu)
    print(f"per frame of lbs,dynamic (one thread, {'CPU' if cpu else 'wall'} time):")
    for arg, scene in SCENES.items():
        cpp = runs.get(f"BM_FrameCpp/{arg}")
        for locals_given, what in (("0", "world matrices"), ("1", "world matrices + local transforms")):
            c = runs.get(f"BM_FrameC/{arg}/{locals_given}")
            if cpp and c:
                overhead = us(c) / us(cpp) - 1
                print(f"  {scene:<11} C++ {us(cpp):10.1f} us  C {us(c):10.1f} us  C API overhead {100 * overhead:+6.2f} % ({what})")
    print("SIMD path against the scalar reference (one thread):")
    for name, b in sorted(runs.items()):
        if not name.startswith("BM_Kernel") or name.startswith("BM_KernelLbsBefore") or not name.endswith("/0"):
            continue
        scalar = runs.get(name[:-2] + "/1")
        if scalar:
            kernel, scene = name.split("/")[0][len("BM_Kernel"):], SCENES[name.split("/")[1]]
            print(f"  {kernel:<22} {scene:<11} {b.get('label', ''):<16} {us(b):10.1f} us"
                  f"  scalar {us(scalar):10.1f} us  {us(scalar) / us(b):5.2f}x")
    print("LBS kernel against the kernel from before the SIMD layer (one thread, positions and normals):")
    for arg, scene in SCENES.items():
        now, before = runs.get(f"BM_KernelLbs/{arg}/0"), runs.get(f"BM_KernelLbsBefore/{arg}")
        if now and before:
            print(f"  {scene:<11} SIMD layer {us(now):10.1f} us  before {us(before):10.1f} us  {us(before) / us(now):5.2f}x")
    print("heap kept per vertex once bound (clonk):")
    for name, b in sorted(runs.items()):
        if name.startswith("BM_BindMemory"):
            print(f"  {b.get('label', name):<16} {b['bytes_per_vertex']:8.1f} bytes")


if __name__ == "__main__":
    main()
