# Runs Blender's Corrective Smooth on a mesh given as raw arrays, driven by a PC2 point cache
# through the Mesh Cache modifier, and writes the evaluated positions for wobble's parity test.
#
#   blender -b -noaudio --factory-startup --python corrective_smooth.py -- JOB.json OUT.bin
#
# JOB.json: {"positions": [x, y, z, ...], "triangles": [a, b, c, ...], "mask": [w, ...],
#            "pc2": "frames.pc2", "frames": F,
#            "cases": [{"smooth_type": "SIMPLE" | "LENGTH_WEIGHTED", "iterations": int,
#                       "factor": float, "scale": float, "pin_boundary": bool,
#                       "use_mask": bool, "invert_mask": bool, "only_smooth": bool}, ...]}
# OUT.bin: float32, little-endian: first the Mesh Cache output alone ([F][V][3], a check that
# the cache is read as written), then each case's [F][V][3].
# The mesh is built with from_pydata (no import step that could weld, split or reorder vertices);
# the script fails loudly if Blender changed the vertex or face count.
import json
import sys

import bpy
import numpy as np

argv = sys.argv[sys.argv.index("--") + 1:]
job_path, out_path = argv[0], argv[1]
with open(job_path) as f:
    job = json.load(f)

positions = np.asarray(job["positions"], dtype=np.float32).reshape(-1, 3)
triangles = np.asarray(job["triangles"], dtype=np.int64).reshape(-1, 3)
vertex_count = len(positions)

mesh = bpy.data.meshes.new("rest")
mesh.from_pydata(positions.tolist(), [], triangles.tolist())
mesh.update()
if len(mesh.vertices) != vertex_count or len(mesh.polygons) != len(triangles):
    raise SystemExit(f"Blender changed the mesh: {len(mesh.vertices)} vertices, {len(mesh.polygons)} faces")
obj = bpy.data.objects.new("character", mesh)
bpy.context.scene.collection.objects.link(obj)

mask = job.get("mask")
if mask:
    group = obj.vertex_groups.new(name="mush")
    for v, w in enumerate(mask):
        group.add([v], float(w), "REPLACE")

cache = obj.modifiers.new("cache", "MESH_CACHE")
cache.cache_format = "PC2"
cache.filepath = job["pc2"]
cache.time_mode = "FRAME"
cache.play_mode = "SCENE"
cache.frame_start = 0.0
cache.frame_scale = 1.0
cache.interpolation = "NONE"
cache.deform_mode = "OVERWRITE"
cache.forward_axis = "POS_Y"
cache.up_axis = "POS_Z"


def evaluated_positions():
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    m = evaluated.to_mesh()
    co = np.empty(len(m.vertices) * 3, dtype=np.float32)
    m.vertices.foreach_get("co", co)
    evaluated.to_mesh_clear()
    if len(co) != vertex_count * 3:
        raise SystemExit("evaluated mesh has a different vertex count")
    return co


frames = int(job["frames"])
results = []
for f in range(frames):
    bpy.context.scene.frame_set(f)
    results.append(evaluated_positions())

smooth = obj.modifiers.new("smooth", "CORRECTIVE_SMOOTH")
smooth.rest_source = "ORCO"
for case in job["cases"]:
    smooth.smooth_type = case["smooth_type"]
    smooth.iterations = int(case["iterations"])
    smooth.factor = float(case["factor"])
    smooth.scale = float(case["scale"])
    smooth.use_pin_boundary = bool(case["pin_boundary"])
    smooth.vertex_group = "mush" if case.get("use_mask") else ""
    smooth.invert_vertex_group = bool(case.get("invert_mask", False))
    smooth.use_only_smooth = bool(case.get("only_smooth", False))
    for f in range(frames):
        bpy.context.scene.frame_set(f)
        results.append(evaluated_positions())

np.concatenate(results).astype("<f4").tofile(out_path)
print(f"corrective_smooth.py: wrote {len(results)} evaluations of {vertex_count} vertices")
