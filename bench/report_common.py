"""Shared by the bench/report_*.py scripts: medians from a Google Benchmark JSON file."""
import json

UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def medians(path):
    """run name -> the median aggregate (or the single run where there are no repetitions)."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate" or name not in out:
            out[name] = b
    return out


def milliseconds(b, cpu=False):
    """Wall (or with cpu, CPU) milliseconds per iteration."""
    return b["cpu_time" if cpu else "real_time"] * UNIT_MS[b.get("time_unit", "ns")]


def table_head(*columns):
    """Prints a Markdown table's header row and the separator under it."""
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
