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
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_clip import (CliBake, checker, cli_json, import_character, install_addon, key_clip_on_samples,  # noqa: E402
                          np, play as play_frames, read_pc2, snapshot_keys, world_positions as positions_of)

zip_path, cli, character_path, scratch = sys.argv[sys.argv.index("--") + 1:][:4]
FPS, CLIP, LAST_FRAME = 10, "Walk", 20
SETTINGS = {"frequency": 2.0, "damping": 0.4, "amplitude": 0.5, "drag": 0.2}
started = time.time()
check = checker("addon_parity")

addon = install_addon(zip_path)
playback, wobble = addon.playback, addon.module.wobble
check(os.path.dirname(wobble.__file__).startswith(os.environ["WOBBLE_ADDON_HOME"]),
      f"wobble's library comes from the installed zip ({wobble.__file__}, wobble {wobble.__version__})")

mesh_obj = import_character(character_path, CLIP, FPS, 0, LAST_FRAME)
scene = bpy.context.scene
vertex_count = len(mesh_obj.data.vertices)

reference_character = cli_json(cli, "info", character_path, "--json")
check(CLIP in [c["name"] for c in reference_character["clips"]], f"clip {CLIP} in the file")
check(reference_character["vertices"] == vertex_count, f"Blender has the file's {vertex_count} vertices")
used = np.arange(vertex_count)
size = reference_character["size"]
bake_clip = CliBake(cli, character_path, CLIP, scratch, used)


def world_positions():
    return positions_of(mesh_obj)


def play(last_frame=LAST_FRAME):
    """World and object-space positions of every frame, played in order from the start."""
    return play_frames(mesh_obj, range(0, last_frame + 1))


def cli_bake(stack, flags, name, fps=FPS, last_frame=LAST_FRAME):
    return bake_clip(stack, flags, name, fps, last_frame)


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
    setattr(s.dynamic, key, value)
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
baked = read_pc2(s.bake_path)
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
    key_clip_on_samples(scene, keys, SPAN, fps)
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

# --- Loop: the frame range as a cycle equals `wobble bake --loop`, also played backwards over the seam ---
# The Walk (2.4 s, its last key repeats the first pose) at 30 fps: frames 0..71, frame 72 is frame 0.
fps, frames = 30, 72
key_clip_on_samples(scene, keys, frames / fps, fps)
scene.render.fps, scene.render.fps_base = fps, 1.0
scene.frame_start, scene.frame_end = 0, frames - 1
s.loop = True
looped = cli_bake("lbs,dynamic", reference_flags + ["--loop"], "loop30.pc2", fps, frames)
playback.reset(mesh_obj)
order = [5, 4, 3, 2, 1, 0, 71, 70, 69, 40, 41, 71, 0, 1]
shown = {}
for frame in order:
    scene.frame_set(frame)
    shown[frame] = world_positions()[0]
error = max(np.abs(shown[f] - looped[f]).max() for f in shown) / size
check(error <= 1e-5, f"Loop at {fps} fps, backwards over the seam and back: every frame equals `wobble bake --loop` "
      f"({len(order)} frames): max error {error:.2e} of the size")
seam = np.abs(looped[frames] - looped[0]).max() / size
check(seam <= 1e-6, f"the loop's frame 72 (the next cycle's frame 0) equals frame 0: {seam:.2e} of the size")
s.loop = False

print(f"addon_parity: OK ({time.time() - started:.1f} s)")
