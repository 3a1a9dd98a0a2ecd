#!/usr/bin/env python3
"""Writes a copy of a Rayleigh-Ritz .wfield model that keeps K of its candidate fields instead of
the number it was trained to keep (docs/neural.md, "Physics fidelity": the subspace-size study).

Usage: python3 scripts/wfield_keep.py MODEL.wfield K OUT.wfield

Only the description changes (its "handles" and output_normalization's "keep"); the tensors are
copied byte for byte, so the network and its candidates are the same and only the per-shape
selection keeps more (or fewer) of their smoothest combinations. The file format is in
docs/neural.md ("Torch-free inference"): a safetensors file whose __metadata__.wobble is the
description's JSON text.
"""
import json
import os
import struct
import sys


def fail(message):
    sys.exit(f"wfield_keep.py: {message}")


def main():
    if len(sys.argv) != 4:
        fail("usage: wfield_keep.py MODEL.wfield K OUT.wfield")
    source, keep_text, output = sys.argv[1:]
    try:
        keep = int(keep_text, 10)
    except ValueError:
        fail(f"K: '{keep_text}' is not a whole number")
    with open(source, "rb") as f:
        data = f.read()
    if len(data) < 8:
        fail(f"{source}: too short for a .wfield file")
    length = struct.unpack("<Q", data[:8])[0]
    if length > len(data) - 8:
        fail(f"{source}: its header runs past the end of the file")
    header = json.loads(data[8:8 + length])
    description = json.loads(header["__metadata__"]["wobble"])
    output_normalization = description.get("output_normalization", {})
    if output_normalization.get("kind") != "rayleigh_ritz":
        fail(f"{source}: not a Rayleigh-Ritz model (output {output_normalization.get('kind')}): nothing to keep")
    candidates = description["network"]["candidate_fields"]
    if not 1 <= keep <= candidates:
        fail(f"K: {keep} is outside [1, {candidates}] (the model has {candidates} candidate fields)")
    description["handles"] = keep
    output_normalization["keep"] = keep
    header["__metadata__"]["wobble"] = json.dumps(description, sort_keys=True)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    temporary = output + ".tmp"
    with open(temporary, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data[8 + length:])
    os.replace(temporary, output)


if __name__ == "__main__":
    main()
