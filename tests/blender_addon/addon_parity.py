"""Runs inside headless Blender: installs the wobble add-on from its zip, imports a glTF
character, plays a clip with the effect and compares the evaluated vertices with wobble's own
evaluation of the same clip and settings (the Armature modifier alone against `wobble bake`);
then bakes to PC2 and checks that the Mesh Cache plays it back identically.

    blender -b -noaudio --factory-startup --python-exit-code 1 --python addon_parity.py -- \
        ADDON.zip WOBBLE_CLI CHARACTER.glb SCRATCH_DIR

The scene runs at 10 fps first: the bundled character's keys are 0.1 s apart, so every frame
Blender shows is a key. Between keys Blender interpolates quaternions component-wise while glTF
(and wobble) use slerp; that difference belongs to the importer, not to the add-on. Then at
60 fps, the rate at which Dynamic Skinning samples the joints' motion, so that playback can be
compared with `wobble bake` itself: first with Blender's interpolation (reported), then with a
key on every frame interpolated as glTF does (asserted to 1e-5 of the character size).
"""
import os
import subprocess
import sys
import time

import bpy
import numpy

# Debian 12's glTF importer needs this with numpy 1.24 (a workaround for the test only).
numpy.bool = bool
np = numpy

zip_path, cli, character_path, scratch = sys.argv[sys.argv.index("--") + 1:][:4]
FPS, CLIP, LAST_FRAME = 10, "Walk", 20
SAMPLE_RATE = 60  # Hz: Dynamic Skinning samples the joints' motion every 1/60 s (wobble.hpp: kDynamicSampleRate)
SETTINGS = {"frequency": 2.0, "damping": 0.4, "amplitude": 0.5, "drag": 0.2}
started = time.time()


def check(condition, message):
    if not condition:
        raise SystemExit(f"addon_parity: FAILED: {message}")
    print(f"addon_parity: ok: {message}")


# --- install and enable from the zip (the user's way: Preferences > Add-ons > Install) ---
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="wobble_blender")
import wobble_blender  # noqa: E402
from wobble_blender import playback  # noqa: E402
from wobble_blender.module import wobble  # noqa: E402

check(os.path.dirname(wobble.__file__).startswith(os.environ["BLENDER_USER_SCRIPTS"]),
      f"the compiled module comes from the installed zip ({wobble.__file__})")

# --- the character, imported from glTF (Y up -> Blender's Z up) ---
for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
scene = bpy.context.scene
scene.render.fps, scene.render.fps_base = FPS, 1.0
bpy.ops.import_scene.gltf(filepath=character_path)
mesh_obj = next(o for o in scene.objects if o.type == 'MESH' and any(m.type == 'ARMATURE' for m in o.modifiers))
# The clip's action on every object it animates (the importer stashes each clip on NLA tracks).
# Bones the clip does not key keep whatever pose they last had in Blender, while glTF puts them
# at rest: start from the rest pose.
for obj in scene.objects:
    if obj.type == 'ARMATURE':
        for bone in obj.pose.bones:
            bone.location, bone.rotation_quaternion, bone.scale = (0, 0, 0), (1, 0, 0, 0), (1, 1, 1)
for obj in scene.objects:
    if obj.animation_data is not None:
        track = obj.animation_data.nla_tracks.get(CLIP)
        obj.animation_data.action = track.strips[0].action if track is not None else None
scene.frame_start, scene.frame_end = 0, LAST_FRAME
bpy.context.view_layer.objects.active = mesh_obj
vertex_count = len(mesh_obj.data.vertices)

# Blender's importer keeps, per primitive, the used vertices in index order.
reference_character = wobble.load(character_path)
check(len(reference_character.clip_names) > 0 and CLIP in reference_character.clip_names, f"clip {CLIP} in the file")
used = np.unique(reference_character.triangles)
check(len(used) == vertex_count, f"Blender has the file's {vertex_count} used vertices")
size = reference_character.size
# glTF (x, y, z) is Blender (x, -z, y).
Y_UP_TO_Z_UP = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.float64)


def world_positions():
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = mesh_obj.evaluated_get(depsgraph)
    m = evaluated.to_mesh()
    co = np.empty(len(m.vertices) * 3, dtype=np.float32)
    m.vertices.foreach_get("co", co)
    world = np.array(evaluated.matrix_world, dtype=np.float64)
    evaluated.to_mesh_clear()
    local = co.reshape(-1, 3).astype(np.float64)
    return local @ world[:3, :3].T + world[:3, 3], co.reshape(-1, 3)


def play(last_frame=LAST_FRAME):
    """World and object-space positions of every frame, played in order from the start."""
    world, local = [], []
    for frame in range(0, last_frame + 1):
        scene.frame_set(frame)
        w, l = world_positions()
        world.append(w)
        local.append(l)
    return np.array(world), np.array(local)


def slerp_rows(a, b, u):
    """Shortest-path spherical interpolation of quaternion rows (glTF's rule for rotations)."""
    d = np.sum(a * b, axis=1)
    b = b * np.where(d < 0, -1.0, 1.0)[:, None]
    angle = np.arccos(np.clip(np.abs(d), 0.0, 1.0))
    s = np.sin(angle)
    near = s < 1e-6  # nearly equal keys: linear is exact there
    safe = np.where(near, 1.0, s)
    wa = np.where(near, 1 - u, np.sin((1 - u) * angle) / safe)
    wb = np.where(near, u, np.sin(u * angle) / safe)
    return wa[:, None] * a + wb[:, None] * b


def snapshot_keys(scene):
    """The imported keys of the scene's actions: {(action, data_path): (times in seconds, values (K, C))},
    the curves of a path in array order."""
    fps = scene.render.fps / scene.render.fps_base
    keys = {}
    for action in {o.animation_data.action for o in scene.objects if o.animation_data and o.animation_data.action}:
        by_path = {}
        for fc in action.fcurves:
            by_path.setdefault(fc.data_path, []).append(fc)
        for path, curves in by_path.items():
            curves.sort(key=lambda fc: fc.array_index)
            frames = sorted({kp.co[0] for fc in curves for kp in fc.keyframe_points})
            values = np.array([[fc.evaluate(f) for fc in curves] for f in frames], dtype=np.float64)
            keys[(action, path)] = (np.array(frames) / fps, values)
    return keys


def key_clip(scene, keys, times, fps):
    """Keys at `times` (s) for a scene at `fps`, interpolated as glTF does between the imported
    keys: spherically for rotations (Blender would interpolate quaternion components one by one),
    linearly for the rest, constant outside them. The importer turns each glTF rotation into
    Blender's by fixed rotations on both sides, which slerp commutes with, so slerp in Blender's
    values is the file's slerp."""
    times = np.asarray(times, dtype=np.float64)
    for (action, path), (key_times, values) in keys.items():
        clamped = np.clip(times, key_times[0], key_times[-1])
        k = np.clip(np.searchsorted(key_times, clamped, side='right') - 1, 0, max(len(key_times) - 2, 0))
        if len(key_times) < 2:
            interpolated = np.repeat(values[:1], len(times), axis=0)
        else:
            u = np.clip((clamped - key_times[k]) / np.maximum(key_times[k + 1] - key_times[k], 1e-12), 0.0, 1.0)
            if path.endswith("rotation_quaternion") and values.shape[1] == 4:
                interpolated = slerp_rows(values[k], values[k + 1], u)
            else:
                interpolated = values[k] + u[:, None] * (values[k + 1] - values[k])
        curves = sorted((fc for fc in action.fcurves if fc.data_path == path), key=lambda fc: fc.array_index)
        for column, fc in enumerate(curves):
            points = fc.keyframe_points
            while len(points):
                points.remove(points[0], fast=True)
            points.add(len(times))
            points.foreach_set("co", np.column_stack([times * fps, interpolated[:, column]]).astype(np.float32).ravel())
            for point in points:
                point.interpolation = 'LINEAR'
            fc.update()


def cli_bake(stack, flags, name, fps=FPS, last_frame=LAST_FRAME):
    """`wobble bake` of the clip's frames 0..last_frame at fps, in Blender's axes, on Blender's vertices."""
    out = os.path.join(scratch, name)
    subprocess.run([cli, "bake", character_path, "--clip", CLIP, "--fps", str(fps), "--end", str(last_frame / fps),
                    "--deformer", stack, *flags, "--quiet", "-o", out], check=True)
    return (wobble.read_pc2(out).astype(np.float64) @ Y_UP_TO_Z_UP.T)[:, used]


# --- the Armature modifier alone equals wobble's LBS (the base the add-on builds on) ---
clock = time.perf_counter()
blender_lbs, _ = play()
lbs_seconds = (time.perf_counter() - clock) / (LAST_FRAME + 1)
wobble_lbs = cli_bake("lbs", [], "lbs.pc2")
error = np.abs(blender_lbs - wobble_lbs).max() / size
check(error <= 1e-5, f"Armature modifier vs wobble bake lbs: max error {error:.2e} of the size")

# --- the add-on's live effect at 10 fps: `wobble bake` of the frame range ---
# The add-on samples the rig at the effect's 60 Hz between frames (sub-frames of Blender's evaluated
# scene), as `wobble bake` samples the clip. Between the file's keys (0.1 s apart) Blender
# interpolates its own way, so at 10 fps the two differ by that (reported); the matrix at the end
# puts keys on every sample and asserts equality.
s = mesh_obj.wobble
for key, value in SETTINGS.items():
    setattr(s, key, value)
s.enabled = True
check(mesh_obj.modifiers.get(playback.MODIFIER_NAME) is not None, "the add-on added its Geometry Nodes modifier")
playback.reset(mesh_obj)
clock = time.perf_counter()
played_world, played_local = play()
effect_seconds = (time.perf_counter() - clock) / (LAST_FRAME + 1)
print(f"addon_parity: frame change + evaluation: {lbs_seconds * 1e3:.1f} ms per frame with the Armature "
      f"modifier alone, {effect_seconds * 1e3:.1f} ms with wobble ({vertex_count} vertices, 60 Hz sampling)")
# The bend angle is |F x (p - q)| / L with L the bounding-box diagonal, which depends on the axes it
# is measured in: the add-on measures it in Blender's world axes when it builds the character, the
# file in its bind space. F is linear in A and D, so the reference takes A and D scaled by the
# ratio of the two sizes and then bends exactly as the add-on does.
blender_size = playback._runtime[mesh_obj.name].bridge.character.size
ratio = size / blender_size
print(f"addon_parity: character size {blender_size:.4f} in Blender's world axes, {size:.4f} in the file")
reference_settings = dict(SETTINGS, amplitude=SETTINGS["amplitude"] * ratio, drag=SETTINGS["drag"] * ratio)
reference_flags = [item for key, value in reference_settings.items() for item in (f"--{key}", repr(value))]
baked = cli_bake("lbs,dynamic", reference_flags, "dynamic.pc2")
effect = np.abs(baked - wobble_lbs).max() / size
check(effect > 1e-3, f"the effect moves vertices by up to {effect:.2e} of the size (not a vacuous comparison)")
print(f"addon_parity: note: at {FPS} fps with Blender's interpolation between the file's keys, playback vs "
      f"`wobble bake --fps {FPS}`: max difference {np.abs(played_world - baked).max() / size:.2e} of the size")

# --- a frame shows the same whatever the timeline did before: the history runs from the first frame ---
playback.reset(mesh_obj)
scene.frame_set(5)  # cold, straight to frame 5
jumped, _ = world_positions()
check(np.abs(jumped - played_world[5]).max() <= 1e-6 * size, "jumping to frame 5 equals frame 5 played in order")

# --- Bake: PC2 through a Mesh Cache modifier plays back what the live effect showed ---
s.bake_path = os.path.join(scratch, "baked.pc2")
# The times the effect runs for during the bake (the frame-change handler calls playback.evaluate).
evaluated_times, live_evaluate = [], playback.evaluate


def recording_evaluate(obj, depsgraph, t):
    evaluated_times.append(t)
    return live_evaluate(obj, depsgraph, t)


frame_before = scene.frame_current
playback.evaluate = recording_evaluate
try:
    with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
        result = bpy.ops.wobble.bake()
finally:
    playback.evaluate = live_evaluate
check(result == {'FINISHED'}, "the Bake operator finished")
check(scene.frame_current == frame_before != LAST_FRAME, f"the bake puts the scene back on frame {frame_before}")
check(evaluated_times[-(LAST_FRAME + 1):] == [frame / FPS for frame in range(LAST_FRAME + 1)],
      "the effect ran for every baked frame and not again for the restore of the frame after them")
check(os.path.exists(s.bake_path), "the PC2 file exists")
cache = mesh_obj.modifiers.get("wobble bake")
check(cache is not None and cache.type == 'MESH_CACHE' and list(mesh_obj.modifiers).index(cache) == 0,
      "a Mesh Cache modifier plays the bake, first in the stack")
check(not s.enabled and not next(m for m in mesh_obj.modifiers if m.type == 'ARMATURE').show_viewport,
      "the live effect and the Armature modifier are off")
baked = wobble.read_pc2(s.bake_path)
check(baked.shape == (LAST_FRAME + 1, vertex_count, 3), f"the PC2 holds {baked.shape[0]} frames")
check(np.array_equal(baked, played_local), "the PC2 holds exactly the positions shown during playback")
_, replayed = play()
check(np.array_equal(replayed, played_local), "the Mesh Cache plays the bake back identically")

# --- Bake to shape keys: one per frame, 1 on its frame; the mesh then shows the PC2 bake's frames ---
# Twice: the second bake replaces the first, which the operator removes before it plays (played
# with the first bake's keys on top of the rig, the frames would not be the PC2 bake's).
for attempt in ("first", "second"):
    with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
        result = bpy.ops.wobble.bake(target='SHAPE_KEYS')
    check(result == {'FINISHED'}, f"the Bake operator finished (shape keys, {attempt} time)")
check(mesh_obj.modifiers.get("wobble bake") is None, "baking to shape keys replaced the Mesh Cache bake")
blocks = mesh_obj.data.shape_keys.key_blocks
check(len(blocks) == LAST_FRAME + 2 and blocks[1].name == "wobble 0000",
      f"{len(blocks) - 1} shape keys after the basis, one per frame")
check(not next(m for m in mesh_obj.modifiers if m.type == 'ARMATURE').show_viewport and not s.enabled,
      "the live effect and the Armature modifier are off")
shown = []
for frame in range(0, LAST_FRAME + 1):
    scene.frame_set(frame)
    shown.append(world_positions()[1])
    if frame in (0, 7, LAST_FRAME):
        values = [b.value for b in blocks[1:]]
        check(values[frame] == 1.0 and sum(values) == 1.0, f"frame {frame}: its shape key is 1, the others 0")
error = np.abs(np.array(shown) - baked).max() / size
check(error <= 1e-6, f"the shape keys show the PC2 bake's frames: max difference {error:.2e} of the size")
scene.frame_set(6, subframe=0.5)
halfway = world_positions()[1]
error = np.abs(halfway - 0.5 * (baked[6] + baked[7])).max() / size
check(error <= 1e-6, f"between frames the shape keys blend linearly (frame 6.5: {error:.2e} of the size)")
with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
    check(bpy.ops.wobble.unbake() == {'FINISHED'}, "Remove Bake goes back to live playback")
check(s.enabled and mesh_obj.data.shape_keys is None and mesh_obj.modifiers.get("wobble bake") is None,
      "the live effect is back, the shape keys are gone")
scene.frame_set(0)

# --- preview equals bake: every frame at 24, 25, 30 and 60 fps, played, with frames dropped, scrubbed
# and backwards ---
# Keys on every frame time and every 60 Hz sample time, interpolated as glTF does (slerp), so that
# Blender's rig is the file's clip at every instant the effect reads. Each pattern starts cold.
SPAN = 1.0  # s of the clip per frame rate
keys = snapshot_keys(scene)
rng = np.random.default_rng(17)
for fps in (24, 25, 30, 60):
    last = int(round(SPAN * fps))
    frame_times = [k / fps for k in range(last + 1)]
    sample_times = [n / SAMPLE_RATE for n in range(-1, int(SPAN * SAMPLE_RATE) + 2)]
    key_clip(scene, keys, sorted(set(round(t, 9) for t in frame_times + sample_times)), fps)
    scene.render.fps, scene.render.fps_base = fps, 1.0
    scene.frame_start, scene.frame_end = 0, last
    reference = cli_bake("lbs,dynamic", reference_flags, f"dynamic{fps}.pc2", fps, last)
    s.enabled = False
    lbs_error = np.abs(play(last)[0] - cli_bake("lbs", [], f"lbs{fps}.pc2", fps, last)).max() / size
    s.enabled = True
    patterns = {"played": list(range(last + 1)),
                "frames dropped": [f for f in range(last + 1) if f % 3 != 1],
                "scrubbed": list(rng.permutation(last + 1)),
                "backwards": list(range(last, -1, -1))}
    for name, order in patterns.items():
        playback.reset(mesh_obj)
        shown = {}
        for frame in order:
            scene.frame_set(int(frame))
            shown[int(frame)] = world_positions()[0]
        error = max(np.abs(shown[f] - reference[f]).max() for f in shown) / size
        check(error <= 1e-5, f"{fps} fps, {name}: every frame equals `wobble bake --fps {fps}` "
              f"({len(order)} frames): max error {error:.2e} of the size (Armature modifier alone {lbs_error:.1e})")
    timeline = playback._runtime[mesh_obj.name].timeline
    print(f"addon_parity: {fps} fps: {timeline.scene_evaluations} sub-frame evaluations of the scene for the last pattern")

print(f"addon_parity: OK ({time.time() - started:.1f} s)")
