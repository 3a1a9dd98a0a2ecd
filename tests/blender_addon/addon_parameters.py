"""Runs inside headless Blender: the add-on's properties come from wobble's deformer
descriptions, keyframed properties bake as `wobble bake` bakes the same keys, live tuning keeps
the motion's history, and refused values are reported with wobble's messages.

    blender -b -noaudio --factory-startup --python-exit-code 1 --python addon_parameters.py -- \
        ADDON.zip WOBBLE_CLI CHARACTER.glb SCRATCH_DIR

1. Every parameter of the add-on's deformers (`wobble deformers --json`, read here independently of the
   add-on) is a property of Object.wobble.NAME with the description's type, default, allowed range
   (hard min/max), slider range (soft min/max), choices, unit and help; a per-joint table is a
   collection whose entries carry the nested description's fields.
2. The bundled clip at 30 fps with keys on every frame and 60 Hz sample time interpolated as glTF
   does (as addon_parity.py), so that Blender's rig is the file's clip where the effect reads it:
   - per-bone overrides (the head's own amplitude and a frequency scale, the left forearm off)
     pass as the settings' "joints" table and Bake equals `wobble bake --settings` with it;
   - amplitude keyed linearly from frame 12 to 18 (A down before a hold): the add-on passes the
     keys as they are; Bake equals `wobble bake --settings` with the same keys to 1e-5 of the
     character size, and its frames up to frame 12 equal the constant bake's bytes;
   - live tuning: amplitude changed between frames 11 and 12 while the animation plays keeps the
     stack (no restart): the frames equal a bake with a step key at frame 12 (the CLI's too) and
     frame 12 differs from a fresh start with the new amplitude; revisiting frames then shows
     the bake of the new settings;
   - Bezier keys pass as the curve's value on every frame; keys on a bind parameter, a
     keyframed value out of range and NaN are refused with wobble's messages, and Bake cancels.
"""
import json
import os
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_clip import (CliBake, checker, cli_json, import_character, install_addon, key_clip_on_samples,  # noqa: E402
                          np, play, read_pc2, snapshot_keys)

zip_path, cli, character_path, scratch = sys.argv[sys.argv.index("--") + 1:][:4]
FPS, CLIP, LAST_FRAME = 30, "Walk", 30
SETTINGS = {"frequency": 2.0, "damping": 0.4, "amplitude": 0.5, "drag": 0.2}
LOW_AMPLITUDE = 0.1
# Per-bone overrides (dynamic's joint table): the head's own amplitude, slower; the left forearm off.
JOINTS = {"skeleton_head": {"amplitude": 1.5, "frequency_scale": 0.5}, "skeleton_arm_lower.L": {"enabled": False}}
KEY_FROM, KEY_TO = 12, 18  # frames of the amplitude's two keys
started = time.time()
check = checker("addon_parameters")

addon = install_addon(zip_path)
playback, addon_settings = addon.playback, addon.settings

# --- 1. the properties are the descriptions (the CLI's, `wobble deformers --json`) ---
descriptions = {d["name"]: d for d in cli_json(cli, "deformers", "--json")}
group_types = {p.identifier: p.fixed_type for p in bpy.types.Object.bl_rna.properties["wobble"].fixed_type.properties
               if p.type == 'POINTER'}
FLT_MAX = float(np.finfo(np.float32).max)


def f32(value):
    return float(np.float32(value))


def expected_limits(p):
    """(hard min, hard max) Blender should hold: the allowed range, an open end just inside."""
    low = -FLT_MAX if p["minimum"] is None else p["minimum"]
    high = FLT_MAX if p["maximum"] is None else p["maximum"]
    if p["minimum_exclusive"]:
        low += 1e-6 * max(1.0, abs(low))
    if p["maximum_exclusive"]:
        high -= 1e-6 * max(1.0, abs(high))
    return low, high


def close32(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))  # single precision


def property_problem(p, rna, default=None):
    """What in the RNA property `rna` differs from the parameter description `p`, or None."""
    kind = p["type"]
    default = p["default"] if default is None else default
    if p["help"] not in rna.description or (p["unit"] and p["unit"] not in rna.description + rna.name):
        return f"description {rna.description!r}, name {rna.name!r} lack the help or the unit {p['unit']!r}"
    if kind == "number":
        low, high = expected_limits(p)
        if rna.type != 'FLOAT' or rna.array_length != 0:
            return f"type {rna.type}"
        if rna.default != f32(default):
            return f"default {rna.default} != {default}"
        if not (close32(rna.hard_min, low) and close32(rna.hard_max, high)):
            return f"hard range [{rna.hard_min}, {rna.hard_max}] != [{low}, {high}]"
        if not (close32(rna.soft_min, p["soft_minimum"]) and close32(rna.soft_max, p["soft_maximum"])):
            return f"soft range [{rna.soft_min}, {rna.soft_max}] != [{p['soft_minimum']}, {p['soft_maximum']}]"
    elif kind == "integer":
        if rna.type != 'INT' or rna.default != default:
            return f"type {rna.type}, default {rna.default}"
        if (rna.hard_min, rna.hard_max, rna.soft_min, rna.soft_max) != (
                p["minimum"], p["maximum"], p["soft_minimum"], p["soft_maximum"]):
            return f"ranges {rna.hard_min, rna.hard_max, rna.soft_min, rna.soft_max}"
    elif kind == "boolean":
        if rna.type != 'BOOLEAN' or rna.default != default:
            return f"type {rna.type}, default {rna.default}"
    elif kind == "choice":
        if rna.type != 'ENUM' or [item.identifier for item in rna.enum_items] != p["choices"] or rna.default != default:
            return f"type {rna.type}, items {[i.identifier for i in rna.enum_items]}, default {rna.default}"
    elif kind == "vector3":
        if rna.type != 'FLOAT' or rna.array_length != 3 or list(rna.default_array) != [f32(v) for v in default]:
            return f"type {rna.type}[{rna.array_length}], default {list(rna.default_array)}"
    elif kind == "vertex_array":
        if rna.type != 'STRING' or rna.default != "":
            return f"type {rna.type}, default {rna.default!r} (a vertex group's name, empty: the default)"
    else:
        return f"no rule for type {kind}"
    return None


counted = 0
for name in ("dlbs", "dynamic", "deltamush"):
    group = group_types[name]
    expected = set()
    for p in descriptions[name]["parameters"]:
        key = p["key"]
        if p["type"] == "text":
            check(key not in group.properties, f"{name}.{key}: a text parameter (a glTF attribute's name) is not shown")
            continue
        rna = group.properties.get(key)
        check(rna is not None, f"{name}.{key} is a property")
        expected.add(key)
        if p["type"] == "joint_table":
            entry = rna.fixed_type
            expected.add(key + "_active")
            fields = {"bone"}
            by_key = {q["key"]: q for q in descriptions[name]["parameters"]}
            for field in p["fields"]:
                fields.add(field["key"])
                default = None
                if field["optional"]:
                    fields.add("use_" + field["key"])
                    use = entry.properties["use_" + field["key"]]
                    check(use.type == 'BOOLEAN' and not use.default, f"{name}.{key}.{field['key']}: a tick box, off")
                    default = by_key[field["key"]]["default"]
                problem = property_problem(field, entry.properties[field["key"]], default)
                check(problem is None, f"{name}.{key}[].{field['key']} is its description ({problem or 'all fields'})")
                counted += 1
            check(set(entry.properties.keys()) - {"rna_type", "name"} == fields,
                  f"{name}.{key}: the entry has the bone and the table's fields, nothing else")
            continue
        problem = property_problem(p, rna)
        check(problem is None, f"{name}.{key} is its description ({problem or 'type, default, ranges, help'})")
        counted += 1
    check(set(group.properties.keys()) - {"rna_type", "name"} == expected, f"{name}: no property besides the description's")
check(counted == sum(1 for d in ("dlbs", "dynamic", "deltamush") for p in descriptions[d]["parameters"]
                     for _ in (p.get("fields") or [p]) if p["type"] != "text"),
      f"{counted} parameters compared")

# --- 2. the clip, with Blender's rig equal to the file's clip where the effect reads it ---
mesh_obj = import_character(character_path, CLIP, FPS, 0, LAST_FRAME)
scene = bpy.context.scene
key_clip_on_samples(scene, snapshot_keys(scene), LAST_FRAME / FPS, FPS)
reference_character = cli_json(cli, "info", character_path, "--json")
check(reference_character["vertices"] == len(mesh_obj.data.vertices), "Blender has the file's vertices")
used = np.arange(len(mesh_obj.data.vertices))
size = reference_character["size"]
cli_bake = CliBake(cli, character_path, CLIP, scratch, used)
s = mesh_obj.wobble
for key, value in SETTINGS.items():
    setattr(s.dynamic, key, value)
# The effect's bind space is world space when it starts (rig_bridge.py): every start on frame 0,
# so that bakes can be compared byte for byte.
scene.frame_set(0)
s.enabled = True
frames = range(0, LAST_FRAME + 1)


def blender_size():
    return playback._runtime[mesh_obj.name].bridge.character.size


def reference(dynamic, name):
    """`wobble bake --settings` of the clip: A and D scaled to the file's character size (the
    add-on measures the size in Blender's world axes, see addon_parity.py)."""
    ratio = size / blender_size()

    def scaled(value):
        if isinstance(value, dict):
            return dict(value, keys=[[t, v * ratio] for t, v in value["keys"]])
        return value * ratio

    def scaled_fields(fields):
        return {k: scaled(v) if k in ("amplitude", "drag") else v for k, v in fields.items()}

    section = scaled_fields(dynamic)
    if "joints" in section:  # a bone's own amplitude and drag as the global ones
        section["joints"] = {bone: scaled_fields(fields) for bone, fields in section["joints"].items()}
    path = os.path.join(scratch, name + ".json")
    with open(path, "w") as f:
        json.dump({"dynamic": section}, f)
    return cli_bake("lbs,dynamic", ["--settings", path], name + ".pc2", FPS, LAST_FRAME)


def bake():
    """The Bake operator's PC2 (object space) and the baked mesh as Blender plays it (world space)."""
    s.bake_path = os.path.join(scratch, "baked.pc2")
    with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
        result = bpy.ops.wobble.bake()
    check(result == {'FINISHED'}, "the Bake operator finished")
    baked = read_pc2(s.bake_path)
    world, _ = play(mesh_obj, frames)
    scene.frame_set(0)
    with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
        bpy.ops.wobble.unbake()
    return baked, world


def error(a, b):
    return np.abs(a - b).max() / size


def amplitude_curve():
    action = mesh_obj.animation_data.action if mesh_obj.animation_data else None
    return action.fcurves.find("wobble.dynamic.amplitude") if action else None


def remove_amplitude_keys():
    """No keys on the amplitude, and its value SETTINGS' (without keys Blender leaves the
    property at the value the animation gave it last)."""
    curve = amplitude_curve()
    if curve is not None:
        mesh_obj.animation_data.action.fcurves.remove(curve)
    s.dynamic.amplitude = SETTINGS["amplitude"]


def key_amplitude(points, interpolation):
    remove_amplitude_keys()
    for frame, value in points:
        s.dynamic.amplitude = value
        mesh_obj.keyframe_insert("wobble.dynamic.amplitude", frame=frame)
    for point in amplitude_curve().keyframe_points:
        point.interpolation = interpolation
    s.dynamic.amplitude = SETTINGS["amplitude"]


def passed_settings():
    return addon_settings.stack_and_settings(mesh_obj, 'lbs', scene)[1]["dynamic"]


# --- constant bake ---
constant_pc2, constant = bake()
constant_cli = reference(SETTINGS, "constant")
check(error(constant, constant_cli) <= 1e-5,
      f"constant amplitude: Bake equals `wobble bake`: {error(constant, constant_cli):.2e} of the size")

# --- per-bone overrides: the joint table's entries pass as the settings' "joints" ---
for bone, fields in JOINTS.items():
    entry = s.dynamic.joints.add()
    entry.bone = bone
    for key, value in fields.items():
        if "use_" + key in entry.bl_rna.properties:
            setattr(entry, "use_" + key, True)  # the tick box of a field that falls back to the global value
        setattr(entry, key, value)
check(passed_settings()["joints"] == JOINTS, f"per-bone entries pass as {passed_settings()['joints']}")
_, overridden = bake()
overridden_cli = reference(dict(SETTINGS, joints=JOINTS), "joints")
check(error(overridden, overridden_cli) <= 1e-5,
      f"per-bone overrides: Bake equals `wobble bake` with the same joints: {error(overridden, overridden_cli):.2e} of "
      "the size")
check(error(overridden, constant) > 1e-3,
      f"... and differs from the bake without them ({error(overridden, constant):.2e} of the size)")
s.dynamic.joints.clear()

# --- a keyframed amplitude: keyed down from frame 12 to 18 ---
key_amplitude([(KEY_FROM, SETTINGS["amplitude"]), (KEY_TO, LOW_AMPLITUDE)], 'LINEAR')
keys = {"keys": [[KEY_FROM / FPS, SETTINGS["amplitude"]], [KEY_TO / FPS, LOW_AMPLITUDE]]}
check(passed_settings()["amplitude"] == keys, f"linear keys pass as they are: {passed_settings()['amplitude']}")
keyed_pc2, keyed = bake()
keyed_cli = reference(dict(SETTINGS, amplitude=keys), "keyed")
check(error(keyed, keyed_cli) <= 1e-5,
      f"keyed amplitude: Bake equals `wobble bake` with the same keys: {error(keyed, keyed_cli):.2e} of the size")
check(np.array_equal(keyed_pc2[:KEY_FROM + 1], constant_pc2[:KEY_FROM + 1]),
      f"frames 0..{KEY_FROM} (up to the first key) are the constant bake's bytes")
check(error(keyed[KEY_TO:], constant[KEY_TO:]) > 1e-3,
      f"after the keys the bake differs from the constant one ({error(keyed[KEY_TO:], constant[KEY_TO:]):.2e} of the size)")

# --- live tuning keeps the history ---
remove_amplitude_keys()
s.dynamic.amplitude = LOW_AMPLITUDE
_, low = bake()  # a fresh start with the low amplitude
s.dynamic.amplitude = SETTINGS["amplitude"]
key_amplitude([(0, SETTINGS["amplitude"]), (KEY_FROM, LOW_AMPLITUDE)], 'CONSTANT')
check(passed_settings()["amplitude"] == {"keys": [[0.0, SETTINGS["amplitude"]], [KEY_FROM / FPS, LOW_AMPLITUDE]],
                                         "interpolation": "step"}, "constant keys pass as step keys")
step_pc2, step = bake()
remove_amplitude_keys()
step_cli = reference(dict(SETTINGS, amplitude={"keys": [[0.0, SETTINGS["amplitude"]], [KEY_FROM / FPS, LOW_AMPLITUDE]],
                                               "interpolation": "step"}), "step")
check(error(step, step_cli) <= 1e-5, f"a step key at frame {KEY_FROM}: Bake equals `wobble bake`: "
      f"{error(step, step_cli):.2e} of the size")

playing = playback.animation_playing
playback.animation_playing = lambda: True  # headless Blender cannot play: as if the timeline were playing
try:
    playback.reset(mesh_obj)
    before, _ = play(mesh_obj, range(0, KEY_FROM))
    stack = playback._runtime[mesh_obj.name].stack
    s.dynamic.amplitude = LOW_AMPLITUDE  # between frames 11 and 12, while playing
    check(playback._runtime[mesh_obj.name].stack is stack, "the change went to the running stack (Stack.update)")
    after, _ = play(mesh_obj, range(KEY_FROM, LAST_FRAME + 1))
    check(playback._runtime[mesh_obj.name].stack is stack, "... and the playback went on with it")
finally:
    playback.animation_playing = playing
live = np.concatenate([before, after])
check(error(live, step) <= 1e-6, f"live tuning at frame {KEY_FROM} equals the bake with a step key there "
      f"({error(live, step):.1e} of the size)")
restart = error(live[KEY_FROM], low[KEY_FROM])
check(restart > 1e-3, f"no restart: frame {KEY_FROM} differs from a fresh start with the new amplitude by {restart:.2e} "
      "of the size")
revisited, _ = play(mesh_obj, [5, 20])
check(error(revisited, low[[5, 20]]) <= 1e-6, "frames visited again show the bake of the new settings")
# Paused, a change shows at once what Bake would give at the displayed frame.
s.dynamic.amplitude = SETTINGS["amplitude"]
shown, _ = play(mesh_obj, [20])
check(error(shown[0], constant[20]) <= 1e-6, "paused, a change shows the bake of the new settings at the current frame")

# --- Bezier keys pass as the curve's values on every frame ---
key_amplitude([(KEY_FROM, SETTINGS["amplitude"]), (KEY_TO, LOW_AMPLITUDE)], 'BEZIER')
curve = amplitude_curve()
sampled = passed_settings()["amplitude"]["keys"]
check([t for t, _ in sampled] == [f / FPS for f in frames] and
      all(abs(v - curve.evaluate(f)) <= 1e-6 for (_, v), f in zip(sampled, frames)),
      f"Bezier keys pass as the curve's value at each of the {len(sampled)} frames")
remove_amplitude_keys()

# --- refused values: wobble's messages, in the panel and from Bake ---


def refused(message_part, what):
    scene.frame_set(3)
    message = playback.error_of(mesh_obj) or ""
    check(message_part in message, f"{what}: refused with {message!r}")
    with bpy.context.temp_override(object=mesh_obj, active_object=mesh_obj):
        try:
            result, reported = bpy.ops.wobble.bake(), ""
        except RuntimeError as error:  # an operator's error report, in a script
            result, reported = {'CANCELLED'}, str(error)
    check(result == {'CANCELLED'} and message in reported, f"{what}: Bake cancels with the message")
    check(message.startswith(mesh_obj.name + ": "), f"{what}: the message names the object")


key_amplitude([(0, 0.5), (10, 0.5)], 'LINEAR')
amplitude_curve().keyframe_points[1].co[1] = 2e6  # the Graph Editor lets a key go anywhere
refused("out of range", "a keyed amplitude of 2e6 (allowed: [-1e6, 1e6])")
remove_amplitude_keys()
s.dynamic.damping = float("nan")
refused("not a finite number", "a damping of NaN")
s.dynamic.damping = SETTINGS["damping"]
s.use_deltamush = True
mesh_obj.keyframe_insert("wobble.deltamush.iterations", frame=1)
refused("bind parameter", "keys on Delta Mush's iterations")
mesh_obj.animation_data.action.fcurves.remove(mesh_obj.animation_data.action.fcurves.find("wobble.deltamush.iterations"))
scene.frame_set(0)  # the effect starts again here (see the bind space above)
s.use_deltamush = False
back = error(play(mesh_obj, [20])[0][0], constant[20])
check(playback.error_of(mesh_obj) is None and back <= 1e-6, f"fixed, the effect is back (frame 20: {back:.1e} of the size)")

print(f"addon_parameters: OK ({time.time() - started:.1f} s)")
