#!/usr/bin/env python3
"""The WebAssembly-versus-native table of scripts/bench-web.sh (docs/benchmarks.md), each of issue
32's goals marked met or not met.

    bench/report_web.py NATIVE.json WASM.json

NATIVE.json: wobble_bench_web_native's Google Benchmark output (medians of BM_WebNative/FILE/STACK,
one thread). WASM.json: bench/web_npm.mjs's (per character, medians in milliseconds: three.js's
own CPU frame without wobble, three.js's CPU vertex skinning alone, and fx.update on wobble's
60 Hz grid and half a frame off it). Both sides are CPU time (the native benchmark thread's, the
page's main thread's), so that waiting for a core on a shared machine counts on neither.
"""
import json
import os
import sys

from report_common import medians, milliseconds

# Issue 32's goals: fx.update at most this many times the native single-thread time, per stack;
# clonk's lbs,dynamic under this many microseconds a frame.
RATIO_GOALS = {"lbs,dynamic": 2.0, "lbs,dynamic,deltamush": 3.0}
CLONK_GOAL_US = 100.0


def native_microseconds(path):
    """(file name, stack) -> the median CPU time of one frame, microseconds."""
    out = {}
    for name, run in medians(path).items():
        _, file, stack = name.split("/", 2)
        out[(file, stack)] = 1e3 * milliseconds(run, cpu=True)
    return out


def met(ok):
    return "met" if ok else "**not met**"


def main():
    native = native_microseconds(sys.argv[1])
    with open(sys.argv[2]) as f:
        wasm = json.load(f)
    print(f"Chromium {wasm['browser']}; medians of CPU time, microseconds a frame")
    print()
    print("| character | vertices | stack | native, 1 thread (us) | WebAssembly fx.update (us) | ratio (goal) | "
          "off the 60 Hz grid (us) | three.js CPU frame (us) | three.js CPU skinning (us) |")
    print("|---|---|---|---|---|---|---|---|---|")
    goals = []
    for result in wasm["results"]:
        name = os.path.basename(result["url"])
        for stack, most in RATIO_GOALS.items():
            ours = native.get((name, stack))
            web = 1e3 * result[stack]["update_ms"]
            off = 1e3 * result[stack]["off_grid_update_ms"]
            if ours:
                ratio = web / ours
                goals.append((f"`{stack}` on {name}: WebAssembly at most {most:g}x native", ratio <= most, f"{ratio:.2f}x"))
                ratio_text = f"{ratio:.2f}x (at most {most:g}x: {met(ratio <= most)})"
            else:
                ratio_text = "- (no native run)"
            print(f"| {name} | {result['vertices']:,} | `{stack}` | {f'{ours:.1f}' if ours else '-'} | {web:.1f} | "
                  f"{ratio_text} | {off:.1f} | {1e3 * result['three_frame_ms']:.1f} | {1e3 * result['three_skinning_ms']:.1f} |")
        if name == "clonk.glb":
            web = 1e3 * result["lbs,dynamic"]["update_ms"]
            goals.append((f"`lbs,dynamic` on clonk under {CLONK_GOAL_US:g} us a frame", web < CLONK_GOAL_US, f"{web:.1f} us"))
    print()
    print("fx.update: on wobble's 60 Hz grid (60 fps) and half a frame off it (the sampler poses the mixer once "
          "more). three.js CPU frame: mixer, scene.updateMatrixWorld and skeleton.update, what three.js does on the "
          "CPU when the GPU skins; three.js CPU skinning: SkinnedMesh.applyBoneTransform over every vertex alone "
          "(positions only, what three.js would add to skin on the CPU); no rendering is timed.")
    print()
    for goal, ok, measured in goals:
        print(f"- {goal}: {measured}, {met(ok)}")


if __name__ == "__main__":
    main()
