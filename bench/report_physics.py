#!/usr/bin/env python3
"""Prints the physics benchmark medians and the speed-up of the reduced step over full-space FEM."""
import json
import sys

with open(sys.argv[1]) as f:
    data = json.load(f)
medians = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name", "median") != "median" and b.get("run_type") == "aggregate":
        continue
    name = b.get("run_name", b["name"]).split("/min_time")[0].split("/repeats")[0]
    medians[name] = b
print("physics medians (ms of wall time per iteration; steps/s from CPU time):")
for name, b in medians.items():
    unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
    extra = ", ".join(f"{k}={v:.4g}" for k, v in b.items() if k in ("newton_per_step", "vertices_per_s", "nodes", "tets"))
    print(f"  {name:45s} {b['real_time'] * unit:9.3f} ms  (cpu {b['cpu_time'] * unit:8.3f} ms) {extra}")
fem = next((b for n, b in medians.items() if n.startswith("BM_FullSpaceFemStep")), None)
red = next((b for n, b in medians.items() if n.startswith("BM_ReducedStep/handles:16/points:1000")), None)
if fem and red:
    print(f"  speed-up of the reduced step (16 handles, 1000 points) over full-space FEM: {fem['cpu_time'] / red['cpu_time'] * (1 if fem.get('time_unit') == red.get('time_unit') else float('nan')):.1f}x")
