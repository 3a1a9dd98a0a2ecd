# A helper-bone bake (`wobble bake --helper-bones`) played by Blender alone: its glTF importer and
# the Armature modifier, no wobble add-on. Every frame of Blender's evaluated mesh must equal
# wobble's own LBS of the same file (its reader and linear blend skinning) within 1e-4 of the
# character's size.
#
#   blender -b -noaudio --factory-startup --python helper_bones_playback.py -- HELPERS.glb REFERENCE.pc2 SIZE
#
# helper_bones_playback.sh makes HELPERS.glb (clonk's Walk, lbs,dynamic, 8 helper bones, 20 fps),
# REFERENCE.pc2 (wobble bake of it with lbs alone) and SIZE (its rest bounding-box diagonal)
# outside Blender, whose Python may run in another system's tree (scripts/blender4.sh).
#
# The bake is at 20 fps, the rate of clonk's own keys, and Blender's scene too, so that the
# importer puts the key at time k / 20 on frame k and every frame Blender shows is a key of every
# channel: between keys Blender interpolates a rotation's four components linearly where glTF
# (wobble, three.js) slerps, which at 60 fps puts clonk's plain Walk, helpers or not, up to 6e-4
# of its size away from wobble's. Positions come back from Blender's Z-up to glTF's Y-up
# ((x, y, z) -> (x, z, -y)).
import struct
import sys

import bpy
import numpy as np

FPS = 20  # clonk's keys, as helper_bones_playback.sh bakes
HELPERS = 8
TOLERANCE = 1e-4

glb, reference_pc2, size = sys.argv[sys.argv.index("--") + 1:][:3]
size = float(size)


def fail(message):
    print(f"helper_bones_playback.py: FAIL {message}", flush=True)
    sys.exit(1)


def read_pc2(path):
    with open(path, "rb") as f:
        data = f.read()
    points, _, _, samples = struct.unpack_from("<iffi", data, 16)
    return np.frombuffer(data, dtype="<f4", count=3 * points * samples, offset=32).reshape(samples, points, 3)


reference = read_pc2(reference_pc2)

for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
# Debian 12's Blender 3.4 importer still says np.bool, an alias the system's numpy (1.24+) has
# dropped; it meant the builtin.
if "bool" not in vars(np):
    np.bool = bool
scene = bpy.context.scene
scene.render.fps, scene.render.fps_base = FPS, 1.0
bpy.ops.import_scene.gltf(filepath=glb)

meshes = [o for o in scene.objects if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)]
armatures = [o for o in scene.objects if o.type == "ARMATURE"]
if len(meshes) != 1 or len(armatures) != 1:
    fail(f"expected one skinned mesh and one armature, Blender made {len(meshes)} and {len(armatures)}")
helpers = [b.name for b in armatures[0].data.bones if b.name.startswith("wobble_helper_")]
if len(helpers) != HELPERS:
    fail(f"{len(helpers)} helper bones in Blender's armature, not {HELPERS}")
if meshes[0].data.shape_keys is not None:
    fail("the helper-bone bake has shape keys (morph targets)")
if len(meshes[0].data.vertices) != reference.shape[1]:
    fail(f"Blender's mesh has {len(meshes[0].data.vertices)} vertices, wobble's {reference.shape[1]}")

largest, worst = 0.0, -1
for frame in range(reference.shape[0]):
    scene.frame_set(frame)
    evaluated = meshes[0].evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    local = np.empty(3 * len(mesh.vertices), dtype=np.float64)
    mesh.vertices.foreach_get("co", local)
    evaluated.to_mesh_clear()
    world = np.asarray(evaluated.matrix_world, dtype=np.float64)
    points = local.reshape(-1, 3) @ world[:3, :3].T + world[:3, 3]
    gltf = np.stack([points[:, 0], points[:, 2], -points[:, 1]], axis=1)
    distance = float(np.linalg.norm(gltf - reference[frame], axis=1).max()) / size
    if distance > largest:
        largest, worst = distance, frame

print(f"helper_bones_playback.py: Blender {bpy.app.version_string}: {reference.shape[0]} frames of "
      f"{reference.shape[1]} vertices, {len(helpers)} helper bones; largest distance to wobble's LBS "
      f"{largest:.2e} of the size (frame {worst}), at most {TOLERANCE}", flush=True)
if not largest <= TOLERANCE:
    fail(f"Blender's playback is {largest:.2e} of the size away from wobble's at frame {worst}")
print("helper_bones_playback.py: ok", flush=True)
