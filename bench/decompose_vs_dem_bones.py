#!/usr/bin/env python3
"""wobble decompose against Electronic Arts' Dem Bones on the same bakes (docs/benchmarks.md).

    bench/decompose_vs_dem_bones.py BUILD_DIR [--runs 3] [--threads 2] [--cases NAME,...] [--shared DIR]

Each case bakes a character's clip through a deformer stack to PC2 (wobble bake), then fits the
same number of bones and influences with both tools, each with its own defaults (Dem Bones: those
of its command-line tool, bench/dem_bones/dem_bones_driver.cpp), `--runs` times each,
alternating, on `--threads` threads (OMP_NUM_THREADS for Dem Bones). Times are each tool's own
clock around the fit (input reading and output writing excluded); RMSE is computed here from the
PC2 reconstructions both write, as sqrt(mean over frames and vertices of the squared distance),
and as a percentage of the rest pose's bounding-box diagonal. Prints a Markdown table with
medians and the time ratio; its last columns are wobble's time to Dem Bones' error (wobble run
again with `--target-error` set to Dem Bones' RMSE over the diagonal: the time-to-accuracy
comparison) and that ratio.

The issue's scale case (a 754-vertex animation of 400 frames) is vs_cow.glb decimated by Blender
to 754 vertices (bench/decimate_character.py; made once into BUILD_DIR/bench), its clip baked at
30 fps: 400 frames. DIR is the shared assets' parent (default: ../shared beside the checkout).
"""
import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (character, clip, stack, fps, bones, influences). CHARS: ../shared/assets/characters;
# DECIMATED: the 754-vertex cow.
CASES = {
    "clonk-walk-dynamic": ("CHARS/clonk.glb", "Walk", "lbs,dynamic", 60, 16, 4),
    "clonk-walk-dynamic-mush": ("CHARS/clonk.glb", "Walk", "lbs,dynamic,deltamush", 60, 16, 4),
    "wipf-hop-dynamic": ("CHARS/wipf.glb", "Hop", "lbs,dynamic", 60, 16, 4),
    "wipf-hop-dynamic-mush": ("CHARS/wipf.glb", "Hop", "lbs,dynamic,deltamush", 60, 16, 4),
    "cow-3225-400-frames": ("CHARS/velocity_skinning/vs_cow.glb", "0", "lbs,dynamic", 30, 20, 8),
    "cow-754-400-frames-5-bones": ("DECIMATED", "0", "lbs,dynamic", 30, 5, 8),
    "cow-754-400-frames": ("DECIMATED", "0", "lbs,dynamic", 30, 20, 8),
    "cow-754-400-frames-40-bones": ("DECIMATED", "0", "lbs,dynamic", 30, 40, 8),
}
DECIMATION_RATIO = "0.1937"   # 3,225 -> 754 vertices


def read_pc2(path):
    with open(path, "rb") as f:
        data = f.read()
    points, _, _, samples = struct.unpack_from("<iffi", data, 16)
    return np.frombuffer(data, dtype="<f4", count=3 * points * samples, offset=32).reshape(samples, points, 3).astype(np.float64)


def rmse(a, b):
    return float(np.sqrt(((a - b) ** 2).sum(axis=2).mean()))


def run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stdout}{result.stderr}")
    return result.stdout


def decimated_cow(build, characters):
    out = os.path.join(build, "bench", "vs_cow_754.glb")
    if not os.path.exists(out):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        run(["blender", "--background", "--python", os.path.join(HERE, "decimate_character.py"), "--",
             os.path.join(characters, "velocity_skinning", "vs_cow.glb"), out + ".part.glb", DECIMATION_RATIO])
        os.replace(out + ".part.glb", out)
    return out


def wobble_fit(build, rest, cache, bones, influences, threads, out, extra=()):
    text = run([os.path.join(build, "wobble"), "decompose", rest, "--cache", cache, "--bones", str(bones),
                "--influences", str(influences), "--threads", str(threads), "-o", out, *extra])
    match = re.search(r"bounding-box diagonal ([0-9.e+-]+)\).*?(\d+) iterations, ([0-9.]+) s on", text)
    return float(match.group(3)), int(match.group(2)), float(match.group(1))


def dem_bones_fit(build, rest, cache, bones, influences, threads, out):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    line = run([os.path.join(build, "bench", "wobble_dem_bones"), rest, cache, str(bones), str(influences), out], env).strip().splitlines()[-1]
    report = json.loads(line)
    return report["seconds"], report["iterations"], report["bones"]


def measure(args, name, scratch):
    character, clip, stack, fps, bones, influences = CASES[name]
    characters = os.path.join(args.shared, "assets", "characters")
    character = decimated_cow(args.build, characters) if character == "DECIMATED" else character.replace("CHARS", characters)
    cache = os.path.join(scratch, name + ".pc2")
    run([os.path.join(args.build, "wobble"), "bake", character, "--clip", clip, "--deformer", stack, "--fps", str(fps),
         "-q", "-o", cache])
    target = read_pc2(cache)
    ours, theirs, matched = [], [], []
    for r in range(args.runs):
        print(f"{name}: run {r + 1}/{args.runs}", file=sys.stderr)
        ours.append(wobble_fit(args.build, character, cache, bones, influences, args.threads, os.path.join(scratch, "ours.pc2")))
        theirs.append(dem_bones_fit(args.build, character, cache, bones, influences, args.threads, os.path.join(scratch, "theirs.pc2")))
        their_fraction = rmse(read_pc2(os.path.join(scratch, "theirs.pc2")), target) / ours[-1][2]
        matched.append(wobble_fit(args.build, character, cache, bones, influences, args.threads,
                                  os.path.join(scratch, "matched.pc2"), ("--target-error", f"{their_fraction:.6g}")))
    diagonal = ours[-1][2]
    return {
        "name": name, "stack": stack, "frames": target.shape[0], "vertices": target.shape[1], "bones": bones,
        "their_bones": theirs[-1][2], "influences": influences, "diagonal": diagonal,
        "ours_e": rmse(read_pc2(os.path.join(scratch, "ours.pc2")), target),
        "theirs_e": rmse(read_pc2(os.path.join(scratch, "theirs.pc2")), target),
        "ours_i": ours[-1][1], "theirs_i": theirs[-1][1],
        "ours_t": statistics.median(t for t, _, _ in ours), "theirs_t": statistics.median(t for t, _, _ in theirs),
        "matched_e": rmse(read_pc2(os.path.join(scratch, "matched.pc2")), target), "matched_i": matched[-1][1],
        "matched_t": statistics.median(t for t, _, _ in matched),
    }


def print_table(rows):
    print("| case | stack | frames x vertices | bones | influences | RMSE wobble / Dem Bones | % of diagonal wobble / Dem Bones | "
          "iterations wobble / Dem Bones | s wobble | s Dem Bones | speed-up | "
          "to Dem Bones' error: % of diagonal, iterations, s wobble | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        bones = r["bones"] if r["bones"] == r["their_bones"] else f"{r['bones']} / {r['their_bones']}"
        print(f"| {r['name']} | {r['stack']} | {r['frames']} x {r['vertices']} | {bones} | {r['influences']} | "
              f"{r['ours_e']:.4g} / {r['theirs_e']:.4g} | {100 * r['ours_e'] / r['diagonal']:.3f} / "
              f"{100 * r['theirs_e'] / r['diagonal']:.3f} | {r['ours_i']} / {r['theirs_i']} | {r['ours_t']:.3f} | "
              f"{r['theirs_t']:.3f} | {r['theirs_t'] / r['ours_t']:.1f}x | {100 * r['matched_e'] / r['diagonal']:.3f}, "
              f"{r['matched_i']}, {r['matched_t']:.3f} | {r['theirs_t'] / r['matched_t']:.1f}x |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    args = parser.parse_args()
    unknown = [name for name in args.cases.split(",") if name not in CASES]
    if unknown:
        sys.exit(f"--cases: unknown {', '.join(unknown)} (known: {', '.join(CASES)})")
    with tempfile.TemporaryDirectory() as scratch:
        rows = [measure(args, name, scratch) for name in args.cases.split(",")]
    print_table(rows)


if __name__ == "__main__":
    main()
