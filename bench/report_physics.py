#!/usr/bin/env python3
"""Prints the physics benchmark medians, steps per second and the speed-up of the reduced step
over the full-space FEM step of the same shape measured in the same run.

Usage: python3 bench/report_physics.py build/bench-results/physics.json [--cpu]
Targets (one core, Neo-Hookean, 1,000 points): 32 handles >= 60 steps/s, 64 handles >= 20 steps/s,
the reduced step at 32 handles >= 10x faster than the full-space FEM step.
--cpu: CPU-time medians (on a loaded machine, where wall time includes waiting for a core).
"""
import sys

from report_common import medians as all_medians, milliseconds


def medians(path):
    """As report_common.medians, with the /min_time and /repeats suffixes dropped from the names."""
    return {name.split("/min_time")[0].split("/repeats")[0]: b for name, b in all_medians(path).items()}


def ms(b, cpu):
    return milliseconds(b, cpu)


def main():
    cpu = "--cpu" in sys.argv
    m = medians([a for a in sys.argv[1:] if a != "--cpu"][0])
    clock = "CPU" if cpu else "wall"
    fem = next((b for n, b in m.items() if n.startswith("BM_FullSpaceFemStep")), None)
    print(f"physics medians ({clock} time):")
    for name, b in m.items():
        extra = ", ".join(f"{k}={b[k]:.3g}" for k in ("newton_per_step", "hessians_per_step", "cg_per_step", "vertices_per_s", "nodes", "tets") if k in b)
        line = f"  {name:45s} {ms(b, cpu):9.3f} ms"
        if name.startswith("BM_ReducedStep"):
            line += f"  {1000 / ms(b, cpu):6.1f} steps/s"
            if fem:
                line += f"  {ms(fem, cpu) / ms(b, cpu):5.1f}x faster than full-space FEM"
        print(f"{line}  ({extra})")
    targets = {32: 60, 64: 20}
    for handles, steps in targets.items():
        b = m.get(f"BM_ReducedStep/handles:{handles}/points:1000")
        if b:
            rate = 1000 / ms(b, cpu)
            print(f"  target {handles} handles, 1000 points >= {steps} steps/s: {rate:.1f} ({'met' if rate >= steps else 'NOT met'})")
    b = m.get("BM_ReducedStep/handles:32/points:1000")
    if b and fem:
        ratio = ms(fem, cpu) / ms(b, cpu)
        print(f"  target reduced (32 handles) >= 10x faster than full-space FEM: {ratio:.1f}x ({'met' if ratio >= 10 else 'NOT met'})")


if __name__ == "__main__":
    main()
