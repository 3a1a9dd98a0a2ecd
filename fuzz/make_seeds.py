#!/usr/bin/python3
"""Seed corpora for the fuzz targets, made at build time (nothing large is committed).

    make_seeds.py OUT_FOLDER SHARED_ASSETS ASSIMP_SEEDS_TOOL

OUT_FOLDER/TARGET/ gets: small glTF/GLB files (Debian's assimp-testmodels and the shared
characters; external buffers embedded as data URIs, and GLB twins of the .gltf files), OFF and OBJ
files, assimp test models as assimp_scene byte strings (through ASSIMP_SEEDS_TOOL), small PC2 and
3DGS PLY files, mesh animations (a PC2 or OBJ frames), settings and scene JSON, and flag values.
"""
import base64
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

MODELS = Path("/usr/share/assimp/models")
MAX_SEED_BYTES = 96 * 1024


def put(folder, name, data):
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    if len(data) <= MAX_SEED_BYTES:
        (folder / name).write_bytes(data)


def small_files(root, suffixes, limit=40):
    if not root.exists():
        return []
    found = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)
    return [p for p in found if p.stat().st_size <= MAX_SEED_BYTES][:limit]


def embedded_gltf(path):
    """The .gltf with every external buffer as a data URI; None if a buffer is missing."""
    try:
        document = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None, b""
    binary = b""
    for buffer in document.get("buffers", []):
        uri = buffer.get("uri", "")
        if uri and not uri.startswith("data:"):
            file = path.parent / uri
            if not file.is_file():
                return None, b""
            data = file.read_bytes()
            if not binary:
                binary = data
            buffer["uri"] = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    return document, binary


def glb(document, binary):
    """A GLB of the document with its first buffer as the BIN chunk."""
    document = json.loads(json.dumps(document))
    if binary and document.get("buffers"):
        del document["buffers"][0]["uri"]
    text = json.dumps(document, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary:
        chunks += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def gltf_seeds(out, shared):
    folder = out / "gltf"
    for path in small_files(MODELS / "glTF2", {".glb"}):
        put(folder, path.parent.name + "_" + path.name, path.read_bytes())
    sources = small_files(MODELS / "glTF2", {".gltf"}, limit=60)
    sources += sorted((shared / "characters").rglob("*.gltf"))
    for path in sources:
        document, binary = embedded_gltf(path)
        if document is None:
            continue
        put(folder, path.parent.name + "_" + path.stem + ".gltf", json.dumps(document))
        if binary:
            put(folder, path.parent.name + "_" + path.stem + ".glb", glb(document, binary))


def text_seeds(out, shared):
    for path in small_files(MODELS / "OFF", {".off"}) + small_files(shared / "shapes", {".off"}, limit=6):
        put(out / "off", path.name, path.read_bytes())
    put(out / "off", "tiny.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n4 0 1 2 3\n")
    put(out / "off", "colored.off", "COFF\n3 1 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n0 1 0 0 0 255 255\n3 0 1 2\n")
    for path in small_files(MODELS / "OBJ", {".obj"}):
        put(out / "obj", path.name, path.read_bytes())


def binary_seeds(out):
    def pc2(points, samples):
        header = b"POINTCACHE2\0" + struct.pack("<iiffi", 1, points, 0.0, 1.0, samples)
        return header + b"".join(struct.pack("<fff", p * 0.1, s * 0.2, -p) for s in range(samples) for p in range(points))
    put(out / "pc2", "three_frames.pc2", pc2(4, 3))
    put(out / "pc2", "empty.pc2", pc2(0, 0))
    properties = ["x", "y", "z", "f_dc_0", "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    for count in (1, 5):
        header = "ply\nformat binary_little_endian 1.0\nelement vertex %d\n" % count
        header += "".join("property float %s\n" % name for name in properties) + "end_header\n"
        rows = b"".join(struct.pack("<12f", g, -g, 0.5 * g, 0.2, 0.9, -2, -2.5, -3, 1, 0, 0, 0) for g in range(count))
        put(out / "gaussian_ply", "splats_%d.ply" % count, header.encode() + rows)


def mesh_animation_seeds(out):
    """For mesh_animation: a first byte (bit 0: 0 a PC2, 1 OBJ frames; bits 1-2: the frame rate),
    then a PC2 with its header's timing, or OBJ frames separated by "#frame\n"."""
    def pc2(points, samples, start, step):
        header = b"POINTCACHE2\0" + struct.pack("<iiffi", 1, points, start, step, samples)
        return header + b"".join(struct.pack("<fff", p + s, s * 0.5, -p) for s in range(samples) for p in range(points))
    folder = out / "mesh_animation"
    put(folder, "pc2_24fps", b"\x00" + pc2(3, 4, 0.0, 1.0))
    put(folder, "pc2_offset_30fps", b"\x02" + pc2(5, 6, 10.0, 0.5))
    frames = ["v 0 0 %d\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n" % k for k in range(3)]
    put(folder, "obj_frames_24fps", b"\x01" + "#frame\n".join(frames).encode())
    quads = ["o frame\nv 0 0 0\nv 1 %d 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\n" % k for k in range(2)]
    put(folder, "obj_quads_60fps", b"\x05" + "#frame\n".join(quads).encode())


def json_seeds(out):
    settings = {
        "dynamic.json": ("lbs,dynamic", {"dynamic": {"frequency": 2.5, "damping": 0.3, "amplitude": 0.25, "drag": 0.08,
                                                     "joints": {"tip": {"frequency_scale": 1.5, "origin": [0, 0.1, 0],
                                                                        "radius": 0.5}, "root": {"enabled": False}}}}),
        "mush.json": ("lbs,deltamush", {"deltamush": {"iterations": 5, "step": 0.5, "smoothing": "length",
                                                      "pin_boundary": True, "mask": [1, 0.5, 0, 1, 1, 1, 0.2, 1]}}),
        "blender.json": ("lbs,deltamush", {"deltamush": {"mode": "blender", "iterations": 10, "scale": 1.5}}),
        "ddm.json": ("lbs,ddm", {"ddm": {"variant": "v1", "iterations": 3, "step": 1}}),
        "dlbs.json": ("dlbs,dynamic", {"dlbs": {"wave_speed": 2.0}, "dynamic": {"bend_weights": [1, 1, 0, 0, 1, 1, -1, 2]}}),
        "dqs.json": ("dqs", {}),
    }
    for name, (stack, document) in settings.items():
        put(out / "settings_json", name, stack + "\n" + json.dumps(document))
    scenes = {
        "quick.json": {"fps": 30, "frames": 4, "objects": [{"file": "bar.off", "pin": "y>0.8", "handles": 4}]},
        "full.json": {
            "fps": 24, "frames": 10, "substeps": 3, "gravity": [0, -9.81, 0],
            "solver": {"max_iterations": 10, "tolerance": 1e-6},
            "contact": {"enabled": True, "radius": 0.1, "min_gap": 0.25, "stiffness": 1e4},
            "objects": [{"file": "a.off", "handles": 8, "points": 200, "sample_grid": 12, "field_grid": 10,
                         "material": {"youngs_modulus": 1e5, "poisson_ratio": 0.45, "density": 1000, "model": "linear"},
                         "pin": "y>0.5 && x<0", "pin_blend": 0.1, "scale": 1, "position": [0, 1, 0],
                         "velocity": [0, 0, 0], "angular_velocity": [0, 1, 0], "acceleration": [0, 0, 1]},
                        {"file": "b.ply", "kinematic": True, "velocity": [1, 0, 0]}],
            "planes": [{"origin": [0, -1, 0], "normal": [0, 1, 0], "axis": [1, 0, 0], "half_size": [2, 2],
                        "stiffness": 1e5, "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0]}],
            "drags": [{"object": 0, "point": [0, 1, 0], "target": [0.5, 1.5, 0], "stiffness": 50, "radius": 0.2}],
        },
    }
    for name, document in scenes.items():
        put(out / "scene_json", name, json.dumps(document))
    values = ["0.25", "-3", "1e-4", "1/240", "+2", "1e300", "nan", "0x10", "2abc", "", "1.5", "-0", "9223372036854775807"]
    for i, text in enumerate(values):
        for kind in range(4):
            put(out / "values", "v%02d_%d" % (i, kind), bytes([kind]) + text.encode())
    put(out / "values", "true", b"\x02true")
    put(out / "values", "no", b"\x02No")


def wfield_seeds(out, models):
    """The shipped rig model (.wfield, 220 KB: above MAX_SEED_BYTES, but it is the format's one
    real example) and a container without tensors."""
    rig = models / "physskin_clonk_rig.wfield"
    folder = out / "wfield"
    folder.mkdir(parents=True, exist_ok=True)
    if rig.exists():
        (folder / rig.name).write_bytes(rig.read_bytes())
    description = json.dumps({"format": "wobble-field", "version": 1, "handles": 1})
    header = json.dumps({"__metadata__": {"wobble": description}}).encode()
    put(folder, "empty.wfield", struct.pack("<Q", len(header)) + header)


def assimp_seeds(out, tool):
    models = []
    for folder, suffixes in (("X", {".x"}), ("MD5", {".md5mesh"}), ("BVH", {".bvh"}), ("Collada", {".dae"}),
                             ("FBX", {".fbx"}), ("B3D", {".b3d"}), ("SMD", {".smd"}), ("MS3D", {".ms3d"}),
                             ("Ogre", {".xml"})):
        models += [str(p) for p in small_files(MODELS / folder, suffixes, limit=12)]
    for model in models:  # one process each: a model this assimp cannot read is no seed
        subprocess.run([tool, str(out / "assimp_scene"), model], check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def main():
    out, shared, tool = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    gltf_seeds(out, shared)
    text_seeds(out, shared)
    binary_seeds(out)
    mesh_animation_seeds(out)
    json_seeds(out)
    wfield_seeds(out, Path(__file__).resolve().parent.parent / "models")
    assimp_seeds(out, tool)
    for target in sorted(p for p in out.iterdir() if p.is_dir()):
        print("make_seeds.py: %s: %d seeds" % (target.name, len(os.listdir(target))))


if __name__ == "__main__":
    main()
