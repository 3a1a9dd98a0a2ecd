#!/usr/bin/env python3
"""The WebAssembly-versus-native table of scripts/bench-web.sh (docs/benchmarks.md).

    bench/report_web.py NATIVE.json WASM.json

NATIVE.json: wobble_bench_web_native's Google Benchmark output (medians of BM_WebNative/FILE/STACK,
one thread). WASM.json: bench/web_npm.mjs's (per character: three.js's own frame without wobble,
and fx.update on wobble's 60 Hz grid and half a frame off it, medians in milliseconds).
"""
import json
import os
import sys


def native_medians(path):
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    medians = {}
    for run in runs:
        if run.get("aggregate_name") == "median":
            _, name, stack = run["run_name"].split("/", 2)
            scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[run["time_unit"]]
            medians[(name, stack)] = run["real_time"] * scale
    return medians


def main():
    native = native_medians(sys.argv[1])
    with open(sys.argv[2]) as f:
        wasm = json.load(f)
    print(f"Chromium {wasm['browser']}")
    print("| character | vertices | stack | native, 1 thread (us) | WebAssembly fx.update (us) | ratio | "
          "off the 60 Hz grid (us) | three.js frame without wobble (us) |")
    print("|---|---|---|---|---|---|---|---|")
    for result in wasm["results"]:
        name = os.path.basename(result["url"])
        for stack in ("lbs,dynamic", "lbs,dynamic,deltamush"):
            ours = native.get((name, stack))
            web = 1e3 * result[stack]["update_ms"]
            off = 1e3 * result[stack]["off_grid_update_ms"]
            ratio = f"{web / ours:.2f}x" if ours else "-"
            ours_text = f"{ours:.1f}" if ours else "-"
            print(f"| {name} | {result['vertices']:,} | `{stack}` | {ours_text} | {web:.1f} | {ratio} | {off:.1f} | "
                  f"{1e3 * result['three_frame_ms']:.1f} |")


if __name__ == "__main__":
    main()
