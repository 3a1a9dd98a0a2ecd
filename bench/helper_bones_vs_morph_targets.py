#!/usr/bin/env python3
"""Helper bones against the morph-target bake of the same frames (docs/benchmarks.md, issue 31).

    bench/helper_bones_vs_morph_targets.py BUILD_DIR [--runs 3] [--threads 2] [--shared DIR]
                                           [--character clonk.glb] [--clip Walk] [--deformer lbs,dynamic]
                                           [--variants 16x4,8x4,24x4,16x8]

Bakes the clip through the stack twice with wobble bake: once as a morph-target glTF (one target
a frame), once per variant HELPERSxINFLUENCES with --helper-bones/--helper-influences. For each
helper-bone file: the error wobble bake prints (plain LBS of the extended skeleton as written,
read back, against the stack's own frames: RMS over frames and vertices) as a share of the
secondary motion (RMS of the stack's frames minus the character's own LBS), the iterations, the
median wall time of the whole bake over `--runs`, and the bytes of the GLB's binary buffer without
images (geometry, skin and motion) against the morph-target file's. With the Khronos validator
installed (scripts/install-deps.sh test: tools/gltf-validator), its error count for each file.
DIR is the shared assets' parent (default: ../shared beside the checkout).
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATOR = os.path.join(HERE, "..", "tools", "gltf-validator")
HELPER_LINE = re.compile(r"(\d+) helpers, at most (\d+) influences, (\d+) iterations; .*? RMSE ([0-9.e+-]+) .*?"
                         r"([0-9.]+) % of the secondary motion \(RMS ([0-9.e+-]+)\)")


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stdout}{result.stderr}")
    return result.stdout


def glb_sizes(path):
    """(bytes of the binary chunk less the buffer views images use, bytes of the file)."""
    with open(path, "rb") as f:
        data = f.read()
    json_length = struct.unpack_from("<I", data, 12)[0]
    document = json.loads(data[20:20 + json_length])
    binary_length = struct.unpack_from("<I", data, 20 + json_length)[0] if len(data) > 20 + json_length else 0
    image_views = {image["bufferView"] for image in document.get("images", []) if "bufferView" in image}
    image_bytes = sum(document["bufferViews"][v]["byteLength"] for v in image_views)
    return binary_length - image_bytes, len(data)


def validator_errors(path):
    if not os.path.isdir(os.path.join(VALIDATOR, "node_modules", "gltf-validator")):
        return "-"
    result = subprocess.run(["node", os.path.join(VALIDATOR, "validate.mjs"), path], capture_output=True, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])["errors"]


def bake(args, out, extra):
    start = time.perf_counter()
    text = run([os.path.join(args.build, "wobble"), "bake", args.character, "--clip", args.clip, "--deformer",
                args.deformer, "--threads", str(args.threads), "-o", out] + extra)
    return text, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    parser.add_argument("--character", default="clonk.glb", help="a file of DIR/assets/characters")
    parser.add_argument("--clip", default="Walk")
    parser.add_argument("--deformer", default="lbs,dynamic")
    parser.add_argument("--variants", default="16x4,8x4,24x4,16x8")
    args = parser.parse_args()
    args.character = os.path.join(args.shared, "assets", "characters", args.character)
    with tempfile.TemporaryDirectory() as scratch:
        morph = os.path.join(scratch, "morph.glb")
        bake(args, morph, [])
        morph_bytes, morph_file = glb_sizes(morph)
        print(f"{os.path.basename(args.character)} {args.clip} `{args.deformer}`; the morph-target bake: {morph_bytes:,} bytes "
              f"of geometry and motion ({morph_file:,} bytes of file), validator errors {validator_errors(morph)}\n")
        print("| helpers | influences | iterations | RMSE | % of the secondary motion | s (whole bake) | "
              "bytes of geometry and motion | of the morph-target bake's | file bytes | validator errors |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for variant in args.variants.split(","):
            helpers, influences = variant.split("x")
            out = os.path.join(scratch, f"helpers_{variant}.glb")
            times = []
            for _ in range(args.runs):
                text, seconds = bake(args, out, ["--helper-bones", helpers, "--helper-influences", influences])
                times.append(seconds)
            match = HELPER_LINE.search(text)
            if not match:
                sys.exit(f"no helper-bone summary in wobble bake's output:\n{text}")
            ours, ours_file = glb_sizes(out)
            print(f"| {match.group(1)} | {match.group(2)} | {match.group(3)} | {float(match.group(4)):.4g} | {match.group(5)} | "
                  f"{statistics.median(times):.2f} | {ours:,} | {100 * ours / morph_bytes:.1f} % | {ours_file:,} | "
                  f"{validator_errors(out)} |")
        print(f"\nsecondary motion (RMS of the stack's frames minus the character's own LBS): {float(match.group(6)):.4g}")


if __name__ == "__main__":
    main()
