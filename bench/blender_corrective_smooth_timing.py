# Times Blender's Corrective Smooth modifier the way bench_deltamush times wobble's Delta Mush:
# the same tessellated cylinder (about 100,000 vertices, 3 joints, bent), 10 iterations,
# factor 0.5, Simple smoothing, rest source = original coordinates, one thread.
#
#   blender -b -noaudio --factory-startup -t 1 --python bench/blender_corrective_smooth_timing.py [-- VERTICES]
#
# The bend is an Armature modifier; the script times the depsgraph evaluation with the armature
# only and with armature + Corrective Smooth, and prints both and their difference (the cost of
# the smoothing) in ms per frame. Pass that figure to bench/report_deltamush.py.
import math
import sys
import time

import bpy

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
target = int(argv[0]) if argv else 100_000
sides = int(math.sqrt(target / 4.0))
rings = target // sides
length = 4.0

vertices, faces = [], []
for r in range(rings):
    x = length * r / (rings - 1)
    for s in range(sides):
        a = 2 * math.pi * s / sides
        radius = 0.5 + 0.02 * math.sin(9 * a) * math.sin(31 * x)
        vertices.append((x, radius * math.cos(a), radius * math.sin(a)))
for r in range(rings - 1):
    for s in range(sides):
        a0, a1 = r * sides + s, r * sides + (s + 1) % sides
        b0, b1 = (r + 1) * sides + s, (r + 1) * sides + (s + 1) % sides
        faces.append((a0, b1, b0))
        faces.append((a0, a1, b1))

mesh = bpy.data.meshes.new("cylinder")
mesh.from_pydata(vertices, [], faces)
mesh.update()
obj = bpy.data.objects.new("cylinder", mesh)
bpy.context.scene.collection.objects.link(obj)

armature_data = bpy.data.armatures.new("rig")
armature = bpy.data.objects.new("rig", armature_data)
bpy.context.scene.collection.objects.link(armature)
bpy.context.view_layer.objects.active = armature
bpy.ops.object.mode_set(mode="EDIT")
bones = []
for j in range(3):
    bone = armature_data.edit_bones.new(f"j{j}")
    bone.head = (length * j / 3, 0, 0)
    bone.tail = (length * (j + 1) / 3, 0, 0)
    if bones:
        bone.parent = bones[-1]
        bone.use_connect = True
    bones.append(bone)
bpy.ops.object.mode_set(mode="OBJECT")

groups = [obj.vertex_groups.new(name=f"j{j}") for j in range(3)]
for v, (x, _, _) in enumerate(vertices):
    u = x / length * 3
    j = min(2, int(u))
    f = u - j
    if j < 2 and f > 0.7:
        w = (f - 0.7) / 0.6
        groups[j].add([v], 1 - w, "REPLACE")
        groups[j + 1].add([v], w, "REPLACE")
    elif j > 0 and f < 0.3:
        w = (0.3 - f) / 0.6
        groups[j].add([v], 1 - w, "REPLACE")
        groups[j - 1].add([v], w, "REPLACE")
    else:
        groups[j].add([v], 1.0, "REPLACE")

modifier = obj.modifiers.new("armature", "ARMATURE")
modifier.object = armature
armature.pose.bones["j1"].rotation_mode = "XYZ"
armature.pose.bones["j2"].rotation_mode = "XYZ"


def time_frames(count=20):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    best = []
    for k in range(count):
        # Change the pose each frame so that everything is re-evaluated.
        armature.pose.bones["j1"].rotation_euler = (0, 0, 0.8 + 0.001 * k)
        armature.pose.bones["j2"].rotation_euler = (0, 0.3, 0.9 + 0.001 * k)
        start = time.perf_counter()
        depsgraph.update()
        obj.evaluated_get(depsgraph).data.vertices[0].co  # touch the result
        best.append((time.perf_counter() - start) * 1000)
    best.sort()
    return best[len(best) // 2]


time_frames(3)
armature_ms = time_frames()
smooth = obj.modifiers.new("smooth", "CORRECTIVE_SMOOTH")
smooth.iterations = 10
smooth.factor = 0.5
smooth.smooth_type = "SIMPLE"
smooth.rest_source = "ORCO"
time_frames(3)
total_ms = time_frames()
print(f"blender {bpy.app.version_string}: {len(vertices)} vertices; armature {armature_ms:.2f} ms/frame, "
      f"armature + corrective smooth (10 iterations) {total_ms:.2f} ms/frame; corrective smooth {total_ms - armature_ms:.2f} ms/frame")
