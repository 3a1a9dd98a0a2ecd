#!/usr/bin/env python3
"""Medians of `wobble fields metrics --json` rows as markdown tables (docs/neural.md).

Usage: neural_table.py LABEL=METRICS.json[:METHOD] ... [--per-shape] [--fidelity]

Each argument names a row: the JSON file written by `wobble fields metrics --json` and the method
whose rows it takes (default "neural (feed-forward)"; e.g. "skinning eigenmodes", "quadratic
polynomials", "per-object MLP 2000 steps"). Medians are over the connected meshes (one piece),
and separately over the meshes in several pieces when there are any. With --fidelity, the physics
columns of `wobble fields metrics --fidelity` instead (errors against full-space FEM, time to a
first step), and per shape the sag and poke errors.
"""
import json
import math
import statistics
import sys

COLUMNS = [("omega_orth", "Omega_orth (lower better)", 4), ("kappa_log", "kappa_log (lower better)", 3),
           ("h_spec", "H_spec (higher better)", 4), ("dirichlet_trace", "volume Dirichlet trace", 1),
           ("quality_ratio", "quality ratio (1 optimal)", 3)]
FIDELITY_COLUMNS = [("sag_error", "sag error (a)", 3), ("poke_error", "poke error at 0.5 s (b)", 3),
                    ("first_frequency_error", "lowest frequency error (c)", 3),
                    ("largest_frequency_error", "largest error of 6 frequencies (c)", 3),
                    ("first_step_seconds", "s to first step", 2), ("quality_ratio", "quality ratio", 3)]


def value(row, key):
    if key == "first_frequency_error":
        return row["frequency_errors"][0]
    return row[key]


def rows_of(spec):
    label, _, rest = spec.partition("=")
    file, _, method = rest.partition(":")
    method = method or "neural (feed-forward)"
    with open(file) as f:
        rows = [r for r in json.load(f) if r["method"] == method]
    if not rows:
        sys.exit(f"neural_table: {file} has no rows for method '{method}'")
    return label, rows


def median(values):
    if values and all(v is None for v in values):
        return math.nan  # a column the variant does not have (JSON null in every row)
    values = [v if v is not None else math.inf for v in values]  # JSON null: an infinite ratio
    return statistics.median(values) if values else math.nan


def fmt(value, digits):
    if math.isnan(value):
        return "-"
    return "inf" if math.isinf(value) else f"{value:.{digits}f}"


def table(labelled, connected, columns):
    head = "| variant | shapes | " + " | ".join(c[1] for c in columns) + " |"
    out = [head, "|" + "---|" * (len(columns) + 2)]
    for label, rows in labelled:
        chosen = [r for r in rows if (r["components"] == 1) == connected]
        if not chosen:
            continue
        cells = [fmt(median([value(r, key) for r in chosen]), digits) for key, _, digits in columns]
        out.append(f"| {label} | {len(chosen)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def per_shape(labelled, key="quality_ratio"):
    shapes = sorted({r["shape"] for _, rows in labelled for r in rows})
    out = ["| shape | pieces | " + " | ".join(label for label, _ in labelled) + " |",
           "|" + "---|" * (len(labelled) + 2)]
    for s in shapes:
        pieces = next(r["components"] for _, rows in labelled for r in rows if r["shape"] == s)
        cells = []
        for _, rows in labelled:
            match = [r for r in rows if r["shape"] == s]
            cells.append(fmt(match[0][key] if match[0][key] is not None else math.inf, 3) if match else "-")
        out.append(f"| {s} | {pieces} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv):
    specs = [a for a in argv if not a.startswith("--")]
    if not specs:
        sys.exit(__doc__)
    labelled = [rows_of(s) for s in specs]
    fidelity = "--fidelity" in argv
    columns = FIDELITY_COLUMNS if fidelity else COLUMNS
    print("Medians over the connected meshes:\n")
    print(table(labelled, True, columns))
    if any(r["components"] != 1 for _, rows in labelled for r in rows):
        print("\nMedians over the meshes in several pieces (their ratio can fall below 1):\n")
        print(table(labelled, False, columns))
    if "--per-shape" in argv:
        for key, title in ([("sag_error", "Sag error"), ("poke_error", "Poke error")] if fidelity
                           else [("quality_ratio", "Quality ratio")]):
            print(f"\n{title} per shape:\n")
            print(per_shape(labelled, key))


if __name__ == "__main__":
    main(sys.argv[1:])
