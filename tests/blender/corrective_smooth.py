# Runs Blender's Corrective Smooth on meshes given as raw arrays, driven by PC2 point caches
# through the Mesh Cache modifier, and streams the evaluated positions to wobble's parity test.
# One Blender process does every character and every case.
#
#   blender -t 1 -b -noaudio --factory-startup --python corrective_smooth.py -- JOB.json
#
# JOB.json: {"characters": [{"name": str, "positions": [x, y, z, ...], "triangles": [a, b, c, ...],
#                            "mask": [w, ...], "pc2": "frames.pc2", "frames": F}, ...],
#            "cases": [{"smooth_type": "SIMPLE" | "LENGTH_WEIGHTED", "iterations": int,
#                       "factor": float, "scale": float, "pin_boundary": bool,
#                       "use_mask": bool, "invert_mask": bool, "only_smooth": bool}, ...],
#            "edges": "EDGES.bin", "out": "OUT (a FIFO or a file)"}
# EDGES.bin: each character's edge list as Blender made it (uint32 pairs, [E][2], little-endian),
# one character after the other. OUT: float32, little-endian, frame by frame: for each frame f,
# for each character with more than f frames, the Mesh Cache output alone ([V][3], a check that
# the cache is read as written) and then each case's [V][3].
# Meshes are built with from_pydata (no import step that could weld, split or reorder vertices);
# the script fails loudly if Blender changed a vertex or face count. One object (and mesh) per
# character and case, so that one frame change evaluates them all.
import json
import sys

import bpy
import numpy as np

argv = sys.argv[sys.argv.index("--") + 1:]
with open(argv[0]) as f:
    job = json.load(f)


def make_mesh(character):
    positions = np.asarray(character["positions"], dtype=np.float32).reshape(-1, 3)
    triangles = np.asarray(character["triangles"], dtype=np.int64).reshape(-1, 3)
    mesh = bpy.data.meshes.new(character["name"])
    mesh.from_pydata(positions.tolist(), [], triangles.tolist())
    mesh.update()
    if len(mesh.vertices) != len(positions) or len(mesh.polygons) != len(triangles):
        raise SystemExit(f"Blender changed {character['name']}: {len(mesh.vertices)} vertices, {len(mesh.polygons)} faces")
    return mesh


def make_object(character, case):
    # A mesh of its own: the vertex group's weights live in the mesh.
    obj = bpy.data.objects.new(character["name"], make_mesh(character))
    bpy.context.scene.collection.objects.link(obj)
    group = obj.vertex_groups.new(name="mush")
    for v, w in enumerate(character["mask"]):
        group.add([v], float(w), "REPLACE")
    cache = obj.modifiers.new("cache", "MESH_CACHE")
    cache.cache_format = "PC2"
    cache.filepath = character["pc2"]
    cache.time_mode = "FRAME"
    cache.play_mode = "SCENE"
    cache.frame_start = 0.0
    cache.frame_scale = 1.0
    cache.interpolation = "NONE"
    cache.deform_mode = "OVERWRITE"
    cache.forward_axis = "POS_Y"
    cache.up_axis = "POS_Z"
    if case is not None:
        smooth = obj.modifiers.new("smooth", "CORRECTIVE_SMOOTH")
        smooth.rest_source = "ORCO"
        smooth.smooth_type = case["smooth_type"]
        smooth.iterations = int(case["iterations"])
        smooth.factor = float(case["factor"])
        smooth.scale = float(case["scale"])
        smooth.use_pin_boundary = bool(case["pin_boundary"])
        smooth.vertex_group = "mush" if case.get("use_mask") else ""
        smooth.invert_vertex_group = bool(case.get("invert_mask", False))
        smooth.use_only_smooth = bool(case.get("only_smooth", False))
    return obj


def evaluated_positions(obj, depsgraph):
    m = obj.evaluated_get(depsgraph).data  # the evaluated mesh itself, no copy
    co = np.empty(len(m.vertices) * 3, dtype=np.float32)
    m.vertices.foreach_get("co", co)
    return co


subjects = []
with open(job["edges"], "wb") as edges_out:
    for character in job["characters"]:
        mesh = make_mesh(character)
        edges = np.empty(len(mesh.edges) * 2, dtype=np.uint32)
        mesh.edges.foreach_get("vertices", edges)
        edges_out.write(edges.astype("<u4").tobytes())
        objects = [make_object(character, None)] + [make_object(character, c) for c in job["cases"]]
        subjects.append((character, objects))

with open(job["out"], "wb") as out:
    frames = max(int(c["frames"]) for c, _ in subjects)
    for f in range(frames):
        for character, objects in subjects:
            if f == int(character["frames"]):  # done: out of the scene, no more evaluations
                for obj in objects:
                    bpy.context.scene.collection.objects.unlink(obj)
        bpy.context.scene.frame_set(f)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        for character, objects in subjects:
            if f >= int(character["frames"]):
                continue
            for obj in objects:
                co = evaluated_positions(obj, depsgraph)
                if len(co) != len(character["positions"]):
                    raise SystemExit("evaluated mesh has a different vertex count")
                out.write(co.astype("<f4").tobytes())
print(f"corrective_smooth.py: streamed {len(subjects)} characters x {len(job['cases'])} cases")
