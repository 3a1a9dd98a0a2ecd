#!/usr/bin/env python3
"""Prints the neural fields benchmark (bench/bench_neural.cpp) as tables of medians:
inference per point, per new shape, parameters, training step time, and the shipped model's time
per validation mesh against the issue's 1 s target, and the torch-free evaluator against LibTorch.

Usage: wobble_bench_neural --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
           --benchmark_out=neural.json --benchmark_out_format=json
       python3 bench/report_neural.py neural.json
"""
import sys

from report_common import medians, table_head

UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def load(path):
    """Medians (report_common.medians) by name without Google Benchmark's suffixes."""
    runs = {}
    for name, b in medians(path).items():
        name = name.split("/min_time")[0].split("/iterations")[0]
        name = name.split("/repeats")[0].split("/manual_time")[0]
        if b.get("run_type") == "aggregate" or name not in runs:
            runs[name] = b
    return runs


def args(name):
    """BM_X/width:64/handles:8 -> ('BM_X', {'width': 64, 'handles': 8})."""
    parts = name.split("/")
    values = {}
    for p in parts[1:]:
        if ":" in p:
            k, v = p.split(":")
            values[k] = int(v)
    return parts[0], values


def sizes(a):
    """Sort order of the tables: width, handles, points (or batch), data."""
    return (a.get("width", 0), a.get("handles", 0), a.get("points", a.get("batch", 0)), a.get("procedural", 0))


def cpu(b):
    """CPU seconds per iteration (one thread): the cost on one core, whatever the machine's load."""
    return b["cpu_time"] * UNIT_S[b.get("time_unit", "ns")]


def wall(b):
    """Wall seconds per iteration (for training: the manual time, CPU seconds per step)."""
    return b["real_time"] * UNIT_S[b.get("time_unit", "ns")]


def main():
    runs = load(sys.argv[1])
    rows = [(args(n), b) for n, b in runs.items()]

    print("Inference per point (CPU time, one thread; medians):")
    table_head("width", "handles", "points", "parameters", "W: us/point", "W + grad W: us/point", "ratio")
    inference = {}
    for (kind, a), b in rows:
        if kind == "BM_InferencePerPoint":
            inference.setdefault((a["width"], a["handles"], a["points"]), {})[a["gradient"]] = b
    for key in sorted(inference):
        pair = inference[key]
        if 0 in pair and 1 in pair:
            w = cpu(pair[0]) / key[2] * 1e6
            g = cpu(pair[1]) / key[2] * 1e6
            print(f"| {key[0]} | {key[1]} | {key[2]} | {int(pair[0]['parameters']):,} | {w:.2f} | {g:.2f} | {g / w:.1f}x |")

    print("\nPer new shape: encode + column calibration + W and grad W at the points (medians):")
    table_head("width", "handles", "points", "parameters", "CPU ms", "wall ms")
    for (kind, a), b in sorted(((x, y) for x, y in rows if x[0] == "BM_NewShape"), key=lambda r: sizes(r[0][1])):
        print(f"| {a['width']} | {a['handles']} | {a['points']} | {int(b['parameters']):,} | {cpu(b) * 1e3:.1f} | {wall(b) * 1e3:.1f} |")

    print("\nTraining step (train_fields: losses, ConFIG, Adam; one thread; CPU s/step from a 6-step run minus a 1-step run,")
    print("wall: the median step of the 6-step run):")
    table_head("width", "handles", "batch points", "data", "parameters", "CPU s/step", "wall s/step")
    for (kind, a), b in sorted(((x, y) for x, y in rows if x[0] == "BM_TrainingStep"), key=lambda r: sizes(r[0][1])):
        data = "procedural, generated each step" if a["procedural"] else "one mesh (cow)"
        print(f"| {a['width']} | {a['handles']} | {a['batch']} | {data} | {int(b['parameters']):,} | {wall(b):.3f} | {b['wall_s']:.3f} |")

    print("\nShipped model, feed-forward per validation mesh (CPU s, one thread; wall s in brackets; target <= 1 s on one core):")
    table_head("mesh", "vertices", "encode + evaluate", "with the runtime's sampler", "<= 1 s")
    shipped = {}
    for (kind, a), b in rows:
        if kind == "BM_ShippedModelPerShape":
            shipped.setdefault(a["mesh"], {})[a["sampling"]] = b
    for mesh in sorted(shipped):
        pair = shipped[mesh]
        any_run = next(iter(pair.values()))
        label = any_run.get("label", str(mesh))
        without = f"{cpu(pair[0]):.3f} ({wall(pair[0]):.3f})" if 0 in pair else "-"
        with_sampling = cpu(pair[1]) if 1 in pair else float("nan")
        verdict = "yes" if with_sampling <= 1.0 else "no"
        sampled = f"{with_sampling:.3f} ({wall(pair[1]):.3f})" if 1 in pair else "-"
        print(f"| {label} | {int(any_run['vertices']):,} | {without} | {sampled} | {verdict} |")

    print("\nTorch-free evaluator (.wfield) against LibTorch, shipped models, 4,096 points (CPU us/point, one thread):")
    table_head("model", "W: LibTorch", "W: torch-free", "W + grad W: LibTorch", "W + grad W: torch-free")
    evaluators = {}
    for (kind, a), b in rows:
        if kind == "BM_EvaluatorPerPoint":
            evaluators.setdefault(a["model"], {})[(a["torch_free"], a["gradient"])] = cpu(b) / 4096 * 1e6
    for model in sorted(evaluators):
        t = evaluators[model]
        cells = [f"{t[k]:.2f}" if k in t else "-" for k in ((0, 0), (1, 0), (0, 1), (1, 1))]
        print(f"| {('physskin_small', 'physskin_clonk_rig')[model]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
