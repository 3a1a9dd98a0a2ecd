"""Bake to Helper Bones: the effect's motion carried by a few extra bones of the character's own
armature, so that the Armature modifier alone plays it, as any engine plays a skinned mesh (the
skinning decomposition of `wobble bake --helper-bones`, through wobble_offline.h).

The scene's frame range is played with the live effect, as the other bakes do; the joints' world
matrices and the mesh Blender shows (world space) go to wobble's helper-bone fit, with only deform
bones allowed to carry weight (the Armature modifier weights bones, not objects). Then:
  - the armature gains the helpers (wobble_helper_0, ...), each a child of the character bone it
    follows, its rest at the centre of its vertices, half its parent's length along it;
  - their keys (location, rotation, scale on every frame of the range) go to the armature's action,
    next to the clip's own channels (a new action when it has none);
  - the deform bones' vertex groups, and new ones for the helpers, hold the refitted weights (at
    most the fit's influences per vertex);
  - the live effect is switched off; the Armature modifier stays and plays the bake.
Remove Bake deletes the helpers, their keys and groups and puts the vertex groups back as they
were (kept in the object's property RECORD until then).

Keys. Blender poses a child bone as pose = parent pose @ parent rest^-1 @ rest @ basis (armature
space). With S a joint's skinning matrix in world space (world @ bind^-1) and G the helper's rest in
bind-time world space (armature bind world @ rest), the helper's basis in frame f is
G^-1 @ S_parent(f)^-1 @ S_helper(f) @ G, and S_parent^-1 @ S_helper = parent bind world @ the
helper's local transform (f) @ its inverse bind: the fit's own arrays, whatever the parent does.
"""
import contextlib
import os

import bpy
import numpy as np
from mathutils import Matrix

from . import actions, playback
from .module import wobble
from .properties import HELPER_BONES
from .rig_bridge import armature_modifier
from .settings import is_default, plain

PREFIX = "wobble_helper_"
RECORD = "wobble_helper_bones"  # object property: what the bake changed, for Remove Bake


def fit_settings(obj):
    """The Helper Bones settings that differ from the fit's defaults ({"bones": 8})."""
    group = obj.wobble.helper_bones
    settings = {}
    for parameter in HELPER_BONES["parameters"]:
        value = plain(parameter, getattr(group, parameter["key"]))
        if not is_default(parameter, value):
            settings[parameter["key"]] = value
    return settings


def fit(context, obj, play_frames):
    """Plays the frame range (play_frames of bake.py) and fits helper bones to what Blender showed;
    returns the bridge, the first frame and the fit (wobble.HelperBones)."""
    scene = context.scene
    if armature_modifier(obj).use_deform_preserve_volume:
        raise ValueError(f"{obj.name}: helper bones play with linear blending: turn off the Armature modifier's "
                         "Preserve Volume")
    bridge = playback.runtime_of(obj, scene).bridge
    poses = []
    start, local = play_frames(context, obj, on_frame=lambda depsgraph: poses.append(bridge.world_matrices(depsgraph)))
    world = np.array([w for w, _ in poses])
    positions = np.array([p @ m[:3, :3].T + m[:3, 3] for p, (_, m) in zip(local.astype(np.float64), poses)])
    fps = scene.render.fps / scene.render.fps_base
    times = (start + np.arange(len(local))) / fps
    threads = min(os.cpu_count() or 1, 8)  # the same result for any count
    return bridge, start, wobble.helper_bones(bridge.character, times, world, positions, fit_settings(obj),
                                              bridge.deform_joints, threads=threads)


@contextlib.contextmanager
def edit_mode(context, armature):
    """The armature in Edit Mode (its edit bones), then back in Object Mode with the active object
    as it was."""
    view_layer = context.view_layer
    active = view_layer.objects.active
    view_layer.objects.active = armature
    try:
        with context.temp_override(active_object=armature, object=armature, selected_objects=[armature],
                                   selected_editable_objects=[armature]):
            bpy.ops.object.mode_set(mode='EDIT')
            try:
                yield armature.data.edit_bones
            finally:
                bpy.ops.object.mode_set(mode='OBJECT')
    finally:
        view_layer.objects.active = active


def add_bones(context, armature, bridge, result):
    """The helpers as bones of the armature, each a child of the bone it follows; their names."""
    digits = len(str(len(result.parents) - 1))
    to_armature = np.linalg.inv(bridge.bind_world[bridge.first_bone - 1])  # the armature object's joint
    names = []
    with edit_mode(context, armature) as bones:
        for h, (parent, inverse_bind) in enumerate(zip(result.parents, result.inverse_bind)):
            parent_bone = bones[bridge.bone_names[parent - bridge.first_bone]]
            bone = bones.new(f"{PREFIX}{h:0{digits}d}")
            bone.head = (to_armature @ np.linalg.inv(inverse_bind))[:3, 3]
            bone.tail = bone.head + parent_bone.vector * 0.5
            bone.parent, bone.use_connect, bone.use_deform = parent_bone, False, True
            names.append(bone.name)
    return names


def basis_keys(armature, bridge, result, names):
    """Each helper's pose (location, rotation quaternion, scale) per frame: (F, H, 10)."""
    armature_bind = bridge.bind_world[bridge.first_bone - 1]
    local = result.local_matrices()
    keys = np.empty(local.shape[:2] + (10,))
    for h, name in enumerate(names):
        rest = armature_bind @ np.array(armature.data.bones[name].matrix_local, dtype=np.float64)
        relative = bridge.bind_world[result.parents[h]] @ local[:, h] @ result.inverse_bind[h]
        previous = None
        for f, basis in enumerate(np.linalg.inv(rest) @ relative @ rest):
            location, rotation, scale = Matrix(basis.tolist()).decompose()
            if previous is not None and rotation.dot(previous) < 0:
                rotation.negate()  # the shorter way from the previous frame's
            previous = rotation
            keys[f, h] = [*location, *rotation, *scale]
    return keys


def key_bones(armature, names, keys, start):
    """The helpers' keys in the armature's action (a new one when it has none); returns the name
    of the action created, or ""."""
    curves = actions.fcurves(armature.animation_data)
    created = ""
    if curves is None:
        curves = actions.new_action(armature, f"{armature.name} wobble helper bones")
        created = armature.animation_data.action.name
    frames = start + np.arange(len(keys), dtype=np.float64)
    for h, name in enumerate(names):
        for path, first, count in (("location", 0, 3), ("rotation_quaternion", 3, 4), ("scale", 7, 3)):
            for index in range(count):
                curve = curves.new(f'pose.bones["{name}"].{path}', index=index)
                curve.keyframe_points.add(len(frames))
                co = np.column_stack([frames, keys[:, h, first + index]]).astype(np.float32)
                curve.keyframe_points.foreach_set("co", co.ravel())
                curve.keyframe_points.foreach_set("interpolation", [1] * len(frames))  # LINEAR
                curve.update()
    return created


def group_weights(obj, names):
    """The weights of the named vertex groups: {name: {"vertices": [...], "weights": [...]}}."""
    by_index = {g.index: g.name for g in obj.vertex_groups if g.name in names}
    saved = {name: {"vertices": [], "weights": []} for name in by_index.values()}
    for vertex in obj.data.vertices:
        for element in vertex.groups:
            name = by_index.get(element.group)
            if name is not None:
                saved[name]["vertices"].append(vertex.index)
                saved[name]["weights"].append(element.weight)
    return saved


def refit_groups(obj, bridge, result, names):
    """The refitted weights into the deform bones' vertex groups and the helpers' new ones;
    returns the deform groups' weights before (to put back) and the groups the bake created."""
    joint_names = [None] * bridge.first_bone + bridge.bone_names + names
    deform = {name for name, weighted in zip(joint_names, bridge.deform_joints) if weighted}
    saved = group_weights(obj, deform)
    vertices = list(range(len(obj.data.vertices)))
    for name in saved:
        obj.vertex_groups[name].remove(vertices)
    created = []
    for v, (joints, weights) in enumerate(zip(result.joints, result.weights)):
        for joint, weight in zip(joints, weights):
            if weight <= 0:
                continue
            name = joint_names[joint]
            group = obj.vertex_groups.get(name)
            if group is None:
                group = obj.vertex_groups.new(name=name)
                created.append(name)
            group.add([v], float(weight), 'REPLACE')
    return saved, created


def bake(context, obj, play_frames):
    """Bakes the frame range to helper bones; returns (helpers, frames, rmse, secondary RMS)."""
    bridge, start, result = fit(context, obj, play_frames)
    armature = armature_modifier(obj).object
    names = add_bones(context, armature, bridge, result)
    keys = basis_keys(armature, bridge, result, names)
    action = key_bones(armature, names, keys, start)
    saved, created = refit_groups(obj, bridge, result, names)
    obj[RECORD] = {"armature": armature.name, "bones": names, "created_action": action,
                   "action": armature.animation_data.action.name, "groups": saved, "created_groups": created,
                   "rmse": result.rmse, "secondary_rms": result.secondary_rms}
    obj.wobble.enabled = False
    playback.clear(obj)
    wobble_modifier = obj.modifiers.get(playback.MODIFIER_NAME)
    if wobble_modifier is not None:
        wobble_modifier.show_viewport = wobble_modifier.show_render = False
    return len(names), len(keys), result.rmse, result.secondary_rms


def has_bake(obj):
    return RECORD in obj


def remove(context, obj):
    """Undoes a helper-bone bake: the helpers, their keys and groups gone, the groups as before."""
    record = obj.get(RECORD)
    if record is None:
        return
    names = set(record["bones"])
    armature = bpy.data.objects.get(record["armature"])
    if armature is not None:
        with edit_mode(context, armature) as bones:
            for name in names:
                if name in bones:
                    bones.remove(bones[name])
    action = bpy.data.actions.get(record["action"])
    if action is not None:
        actions.remove_fcurves(action, lambda c: c.data_path.startswith('pose.bones["') and c.data_path.split('"')[1] in names)
        if record["created_action"] == action.name and not actions.every_fcurve(action):
            bpy.data.actions.remove(action)
    for name in list(record["created_groups"]):
        if name in obj.vertex_groups:
            obj.vertex_groups.remove(obj.vertex_groups[name])
    vertices = list(range(len(obj.data.vertices)))
    for name, weights in record["groups"].items():
        group = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
        group.remove(vertices)
        for v, w in zip(weights["vertices"], weights["weights"]):
            group.add([v], w, 'REPLACE')
    del obj[RECORD]
