#!/usr/bin/env python3
"""Prints the time from reading a shape to its first step, stage by stage, for the neural fields
and for skinning eigenmodes (bench/bench_first_step.cpp), and the ratio of the two totals.

Usage: python3 bench/report_first_step.py build/bench-results/first_step.json [--cpu]
Target (issue 35): the neural path at least 5x faster than eigenmodes on a 10,000-vertex shape.
Then the field evaluator's SIMD kernels against Eigen's products and functions in the same process.
--cpu: the process's CPU-time medians (every thread) instead of wall time.
"""
import sys

from report_common import medians, milliseconds

# (stage, benchmark for eigenmodes, benchmark for the neural fields); None: not on that path.
STAGES = [
    ("read the file", "BM_Read", "BM_Read"),
    ("body samples (sample_mesh)", "BM_Sample", "BM_Sample"),
    ("encoder's sample (make_shape_sample)", None, "BM_EncoderSample"),
    ("  encode the surface cloud", None, "BM_Encode"),
    ("  candidates and gradients at the cubature points", None, "BM_Candidates/eigen_products:0"),
    ("subspace (fields_for / eigenmodes)", "BM_Eigenmodes", "BM_FieldsFor"),
    ("body (add_body)", "BM_Body/neural:0", "BM_Body/neural:1"),
    ("bind the vertices (basis_at)", "BM_Bind/neural:0", "BM_Bind/neural:1"),
    ("one implicit step", "BM_Step/neural:0", "BM_Step/neural:1"),
]
# Rows indented in STAGES are parts of the row below them, not added to the sum.
TOTAL = ("BM_Total/neural:0", "BM_Total/neural:1")


def main():
    cpu = "--cpu" in sys.argv
    found = {name.replace("/process_time", "").replace("/real_time", ""): b for name, b in medians([a for a in sys.argv[1:] if a != "--cpu"][0]).items()}

    def ms(name):
        return milliseconds(found[name], cpu) if name in found else float("nan")

    print(f"time to first step, mannequin-devil ({'CPU' if cpu else 'wall'} time medians, ms):")
    print(f"  {'stage':52s} {'eigenmodes':>11s} {'neural':>9s}")
    sums = [0.0, 0.0]
    for stage, eigen, neural in STAGES:
        cells = []
        for path, name in enumerate((eigen, neural)):
            if name is None:
                cells.append(f"{'-':>9s}")
                continue
            cells.append(f"{ms(name):9.1f}")
            if not stage.startswith("  "):
                sums[path] += ms(name)
        print(f"  {stage:52s} {cells[0]:>11s} {cells[1]:>9s}")
    print(f"  {'sum of the stages':52s} {sums[0]:11.1f} {sums[1]:9.1f}")
    totals = [ms(TOTAL[0]), ms(TOTAL[1])]
    print(f"  {'total (quick_scene + one step)':52s} {totals[0]:11.1f} {totals[1]:9.1f}")
    ratio = totals[0] / totals[1]
    verdict = "met" if ratio >= 5 else "NOT met"
    print(f"  target neural >= 5x faster than eigenmodes: {ratio:.2f}x ({verdict})")
    # The evaluator's SIMD kernels against Eigen's products and functions (what it used before them).
    for label, name in (("candidates at the cubature points", "BM_Candidates"), ("neural total", "BM_NeuralTotal")):
        kernels, eigen = ms(f"{name}/eigen_products:0"), ms(f"{name}/eigen_products:1")
        print(f"  {label}: SIMD kernels {kernels:.1f} ms, with Eigen's instead {eigen:.1f} ms ({eigen / kernels:.2f}x)")


if __name__ == "__main__":
    main()
