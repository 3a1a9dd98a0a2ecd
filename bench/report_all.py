#!/usr/bin/env python3
"""Reprints every ratio of one `make bench` run (scripts/bench.sh): for each benchmark binary's JSON
in the results folder, the report of bench/report_<name>.py, with the machine's load average.

Usage: python3 bench/report_all.py build/bench-results [--cpu]
--cpu: CPU-time medians where a report offers them (on a loaded machine; not for thread speed-ups).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["lbs", "dlbs", "dynamic", "deltamush", "physics", "threads", "runtime", "neural", "first_step"]
TAKES_CPU = {"dlbs", "deltamush", "physics", "runtime", "first_step"}


def main():
    args = [a for a in sys.argv[1:] if a != "--cpu"]
    folder = args[0] if args else "build/bench-results"
    cpu = "--cpu" in sys.argv
    names = sorted((f[:-5] for f in os.listdir(folder) if f.endswith(".json")),
                   key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))
    for name in names:
        path = os.path.abspath(os.path.join(folder, name + ".json"))
        script = os.path.join(HERE, f"report_{name}.py")
        try:
            with open(path) as f:
                load = json.load(f)["context"].get("load_avg", [])
        except (OSError, ValueError, KeyError) as error:
            print(f"== {name}: {path} is not a finished benchmark run ({error})")
            continue
        print(f"== {name} (load average {', '.join(f'{x:.1f}' for x in load)})")
        if not os.path.exists(script):
            print("  (no report script)")
            continue
        command = [sys.executable, script, path] + (["--cpu"] if cpu and name in TAKES_CPU else [])
        subprocess.run(command, check=False, cwd=HERE)


if __name__ == "__main__":
    main()
