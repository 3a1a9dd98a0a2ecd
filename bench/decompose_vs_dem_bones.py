#!/usr/bin/env python3
"""wobble decompose against Electronic Arts' Dem Bones on the same bakes (docs/benchmarks.md).

    bench/decompose_vs_dem_bones.py BUILD_DIR [--runs 3] [--threads 2] [--cases NAME,...]

Each case bakes a character's clip through a deformer stack to PC2 (wobble bake), then fits the
same number of bones and influences (4, or the case's) with both tools (same tolerance 1e-3 and patience
3, at most 100 iterations, smoothness 1e-4), `--runs` times each, alternating, on `--threads`
threads (OMP_NUM_THREADS for Dem Bones). Times are each tool's own clock around the fit (input
reading and output writing excluded); RMSE is computed here from the PC2 reconstructions both
write, as sqrt(mean over frames and vertices of the squared distance). Prints a Markdown table
with medians and the time ratio.
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

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "assets", "characters")

# name: (character, clip, stack, fps, bones, influences); the cow is the case (20 bones, 8 influences)
CASES = {
    "clonk-walk-dynamic": ("BUILD/assets/clonk.glb", "Walk", "lbs,dynamic", 60, 16, 4),
    "clonk-walk-dynamic-mush": ("BUILD/assets/clonk.glb", "Walk", "lbs,dynamic,deltamush", 60, 16, 4),
    "wipf-walk-dynamic": (os.path.join(SHARED, "wipf.glb"), "Walk", "lbs,dynamic", 60, 16, 4),
    "cow-400-frames": (os.path.join(SHARED, "velocity_skinning", "vs_cow.glb"), "0", "lbs,dynamic", 30, 20, 8),
}


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


def wobble_fit(build, rest, cache, bones, influences, threads, out):
    text = run([os.path.join(build, "wobble"), "decompose", rest, "--cache", cache, "--bones", str(bones),
                "--influences", str(influences), "--threads", str(threads), "-o", out])
    match = re.search(r"(\d+) iterations, ([0-9.]+) s on", text)
    return float(match.group(2)), int(match.group(1))


def dem_bones_fit(build, rest, cache, bones, influences, threads, out):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    line = run([os.path.join(build, "bench", "wobble_dem_bones"), rest, cache, str(bones), str(influences), out], env).strip().splitlines()[-1]
    report = json.loads(line)
    return report["seconds"], report["iterations"], report["bones"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.cases.split(","):
            character, clip, stack, fps, bones, influences = CASES[name]
            character = character.replace("BUILD", args.build)
            cache = os.path.join(scratch, name + ".pc2")
            run([os.path.join(args.build, "wobble"), "bake", character, "--clip", clip, "--deformer", stack, "--fps",
                 str(fps), "-q", "-o", cache])
            target = read_pc2(cache)
            ours, theirs = [], []
            for r in range(args.runs):
                print(f"{name}: run {r + 1}/{args.runs}", file=sys.stderr)
                ours.append(wobble_fit(args.build, character, cache, bones, influences, args.threads, os.path.join(scratch, "ours.pc2")))
                theirs.append(dem_bones_fit(args.build, character, cache, bones, influences, args.threads, os.path.join(scratch, "theirs.pc2")))
            ours_t = statistics.median(t for t, _ in ours)
            theirs_t = statistics.median(t for t, _, _ in theirs)
            ours_e = rmse(read_pc2(os.path.join(scratch, "ours.pc2")), target)
            theirs_e = rmse(read_pc2(os.path.join(scratch, "theirs.pc2")), target)
            rows.append((name, stack, target.shape[0], target.shape[1], bones, influences, theirs[-1][2], ours_e, theirs_e,
                         ours[-1][1], theirs[-1][1], ours_t, theirs_t))
    print("| case | stack | frames | vertices | bones (wobble / Dem Bones) | influences | RMSE wobble | RMSE Dem Bones | "
          "iterations (wobble / Dem Bones) | s wobble | s Dem Bones | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, stack, frames, vertices, bones, influences, their_bones, oe, te, oi, ti, ot, tt) in rows:
        print(f"| {name} | {stack} | {frames} | {vertices} | {bones} / {their_bones} | {influences} | {oe:.5g} | {te:.5g} | {oi} / {ti} | "
              f"{ot:.3f} | {tt:.3f} | {tt / ot:.1f}x |")


if __name__ == "__main__":
    main()
