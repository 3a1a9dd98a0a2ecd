"""Times the add-on's live playback in headless Blender, part by part (not a test: figures for
docs/blender.md).

    blender -b -noaudio --factory-startup --python tests/blender_addon/profile_playback.py -- \
        build/blender/wobble_blender_legacy.zip build/assets/clonk.glb [FRAMES] [--mush]

Imports the character, plays its Walk clip at 30 fps with the Armature modifier alone, then with
wobble (lbs,dynamic; with --mush also deltamush), and prints the median per frame of: the whole
frame change plus reading the evaluated mesh, and inside the add-on's frame handler each part
(settings check, reading the pose, the two wobble calls, the offsets' arithmetic, writing the
attribute). "depsgraph" is what the frame costs beyond the handler and the Armature-only frame:
the mesh evaluated again because the attribute changed. Imports the add-on unpacked from the
legacy zip (its files and libwobble_blender.so) without installing it.
"""
import os
import statistics
import sys
import tempfile
import time
import zipfile

import bpy
import numpy

numpy.bool = bool  # Debian 12's glTF importer with numpy 1.24 (outside the add-on)
np = numpy

arguments = sys.argv[sys.argv.index("--") + 1:]
zip_path, character_path = arguments[:2]
FRAMES = int(arguments[2]) if len(arguments) > 2 and arguments[2].isdigit() else 60
MUSH = "--mush" in arguments
unpacked = tempfile.mkdtemp(prefix="wobble-profile-")
zipfile.ZipFile(zip_path).extractall(unpacked)
sys.path.insert(0, unpacked)
import wobble_blender  # noqa: E402
from wobble_blender import playback, rig_bridge, timeline  # noqa: E402

wobble_blender.register()

for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
scene = bpy.context.scene
scene.render.fps = 30
bpy.ops.import_scene.gltf(filepath=character_path)
mesh_obj = next(o for o in scene.objects if o.type == 'MESH' and any(m.type == 'ARMATURE' for m in o.modifiers))
for obj in scene.objects:
    if obj.animation_data is not None:
        track = obj.animation_data.nla_tracks.get("Walk")
        obj.animation_data.action = track.strips[0].action if track is not None else None
bpy.context.view_layer.objects.active = mesh_obj

# Per-part clocks: wrap the functions the frame handler calls.
parts = {}


def timed(name, function):
    def wrapper(*args, **kwargs):
        clock = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            parts.setdefault(name, []).append(time.perf_counter() - clock)
    return wrapper


class TimedStack:
    """A wobble.Stack whose evaluate() is timed under `name`."""

    def __init__(self, stack, name):
        self._stack, self._name = stack, name

    def evaluate(self, *args, **kwargs):
        return timed(self._name, self._stack.evaluate)(*args, **kwargs)

    def __getattr__(self, attribute):
        return getattr(self._stack, attribute)


playback.runtime_of = timed("settings check (runtime_of)", playback.runtime_of)
rig_bridge.CharacterBridge.world_matrices = timed("read pose (bones, objects)", rig_bridge.CharacterBridge.world_matrices)
timeline.Timeline._frame_set = timed("the scene set to a sample's sub-frame (frame_set)", timeline.Timeline._frame_set)
playback.write_offsets = timed("write attribute (foreach_set)", playback.write_offsets)
playback.ensure_modifier = timed("modifier check", playback.ensure_modifier)
playback.evaluate = timed("handler total", playback.evaluate)


def read_mesh():
    evaluated = mesh_obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    evaluated.to_mesh_clear()


def play(frames):
    """Per frame: (frame change, reading the evaluated mesh); the first frame (the runtime is built) left out."""
    times = []
    for frame in range(frames):
        clock = time.perf_counter()
        scene.frame_set(frame)
        middle = time.perf_counter()
        read_mesh()
        times.append((middle - clock, time.perf_counter() - middle))
    return times[1:]


def median_ms(values):
    return statistics.median(values) * 1e3


def total_ms(frames):
    return median_ms([a + b for a, b in frames])


alone = play(FRAMES)
s = mesh_obj.wobble
s.dynamic.frequency, s.dynamic.damping, s.dynamic.amplitude, s.dynamic.drag = 2.0, 0.4, 0.5, 0.2
s.use_deltamush = MUSH
s.enabled = True
runtime = playback.runtime_of(mesh_obj, scene)
runtime.timeline.stack = runtime.stack = TimedStack(runtime.stack, f"wobble {runtime.spec}")
runtime.timeline.base = runtime.base = TimedStack(runtime.base, f"wobble {runtime.bridge.base} (the modifier's part)")
parts.clear()
played = play(FRAMES)
handler = median_ms(parts["handler total"])
print(f"profile_playback: {len(mesh_obj.data.vertices)} vertices, {len(runtime.bridge.bone_names)} bones, "
      f"{FRAMES - 1} frames, stack {runtime.spec}")
for label, frames in (("Armature modifier alone", alone), ("with wobble", played)):
    print(f"profile_playback: {label}: {total_ms(frames):.2f} ms per frame (frame change "
          f"{median_ms([a for a, _ in frames]):.2f} ms, then reading the evaluated mesh {median_ms([b for _, b in frames]):.2f} ms)")
for name, values in parts.items():
    if name != "handler total":
        print(f"profile_playback:   {name}: {median_ms(values):.3f} ms")
print(f"profile_playback:   handler total: {handler:.3f} ms")
print(f"profile_playback:   the rest (the mesh evaluated again after the attribute changed): "
      f"{total_ms(played) - total_ms(alone) - handler:.2f} ms")
