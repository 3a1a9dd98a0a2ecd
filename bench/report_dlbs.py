#!/usr/bin/env python3
"""Prints bench_dlbs's medians: delayed LBS per frame against LBS of the same character in the same
process (target: at most 2x LBS at 1,000,000 vertices).

Usage: python3 bench/report_dlbs.py build/bench-results/dlbs.json [--cpu]
"""
import sys

from report_common import medians, milliseconds


def main():
    cpu = "--cpu" in sys.argv
    m = medians([a for a in sys.argv[1:] if a != "--cpu"][0])
    for character in ("Clonk", "Million"):
        for threads in ("1", "0"):
            lbs = m.get(f"BM_Lbs{character}/threads:{threads}/real_time")
            dlbs = m.get(f"BM_DelayedLbs{character}/threads:{threads}/real_time")
            if not (lbs and dlbs):
                continue
            a, b = milliseconds(lbs, cpu), milliseconds(dlbs, cpu)
            line = (f"  {character:<8} {'1 thread' if threads == '1' else 'all threads':<11} LBS {a:8.3f} ms, delayed LBS {b:8.3f} ms:"
                    f" {b / a:5.2f}x LBS")
            if character == "Million" and threads == "1":
                line += f"  (target <= 2x: {'met' if b <= 2 * a else 'NOT met'})"
            print(line)


if __name__ == "__main__":
    main()
