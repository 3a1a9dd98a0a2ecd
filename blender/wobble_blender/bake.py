"""Bake: plays the scene's frame range with the effect and stores what Blender shows (the mesh in
object space, after the Armature and wobble modifiers), either in a PC2 point cache played by a
Mesh Cache modifier, or as one shape key per frame (either replaces the Armature and wobble
modifiers), or as helper bones that the Armature modifier plays (helper_bones.py)."""
import os

import bpy
import numpy as np
from bpy.props import EnumProperty

from . import actions, helper_bones, pc2, playback
from .module import wobble
from .rig_bridge import armature_modifier

CACHE_MODIFIER = "wobble bake"
SHAPE_KEY_PREFIX = "wobble "
# Object properties: the user's keys the shape-key bake muted, and whether it added the basis.
MUTED_KEYS = "wobble_muted_shape_keys"
CREATED_BASIS = "wobble_created_basis"


def evaluated_positions(obj, depsgraph):
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        positions = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", positions)
    finally:
        evaluated.to_mesh_clear()
    return positions.reshape(-1, 3)


def play_frames(context, obj, on_frame=None):
    """Plays the scene's frame range with the live effect from a fresh start; returns the first
    frame and the object-space positions of every frame (F, N, 3); on_frame(depsgraph), if given,
    sees the scene at each frame. An earlier bake must be gone
    (remove_bake): played with it, the frames would hold it as well as the rig. Leaves the scene
    on the range's last frame: the caller puts its frame back once the effect is off, so that the
    restore shows the bake instead of running the effect once more."""
    scene = context.scene
    if armature_modifier(obj) is None:
        raise ValueError(f"{obj.name}: bake needs an Armature modifier")
    modifiers = list(obj.modifiers)
    wobble_modifier = playback.ensure_modifier(obj)
    # Later modifiers (subdivision, ...) would change the vertex count: off while baking.
    later = [m for m in modifiers[modifiers.index(wobble_modifier) + 1:] if m.show_viewport]
    for m in later:
        m.show_viewport = False
    frames = []
    start, end = scene.frame_start, scene.frame_end
    window_manager = context.window_manager
    try:
        playback.runtime_of(obj, scene)  # settings wobble refuses: no bake, wobble's message
        playback.reset(obj)
        window_manager.progress_begin(start, end)
        for frame in range(start, end + 1):
            scene.frame_set(frame)  # runs the frame-change handler: the effect for this frame
            refused = playback.error_of(obj)
            if refused:  # keyed values refused at this frame's time
                raise ValueError(refused)
            depsgraph = context.evaluated_depsgraph_get()
            if on_frame is not None:
                on_frame(depsgraph)
            frames.append(evaluated_positions(obj, depsgraph))
            window_manager.progress_update(frame)
    finally:
        window_manager.progress_end()
        for m in later:
            m.show_viewport = True
    return start, np.stack(frames)


def switch_to_baked(obj):
    """The live effect and the Armature modifier off: the bake replaces both."""
    obj.wobble.enabled = False
    playback.clear(obj)
    for m in (armature_modifier(obj), obj.modifiers.get(playback.MODIFIER_NAME)):
        if m is not None:
            m.show_viewport = m.show_render = False


def bake(context, obj, path):
    """Writes the PC2 and sets up the Mesh Cache modifier; returns the number of frames."""
    start, frames = play_frames(context, obj)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    pc2.write(path, frames, start)

    # Play the cache instead of the live effect.
    switch_to_baked(obj)
    cache = obj.modifiers.get(CACHE_MODIFIER) or obj.modifiers.new(CACHE_MODIFIER, 'MESH_CACHE')
    cache.cache_format = 'PC2'
    cache.filepath = path
    cache.time_mode = 'FRAME'
    cache.play_mode = 'SCENE'
    cache.frame_start = float(start)
    cache.frame_scale = 1.0
    cache.deform_mode = 'OVERWRITE'
    cache.forward_axis = 'POS_Y'
    cache.up_axis = 'POS_Z'
    cache.show_viewport = cache.show_render = True
    with context.temp_override(object=obj):
        bpy.ops.object.modifier_move_to_index(modifier=cache.name, index=0)
    return len(frames)


def bake_shape_keys(context, obj):
    """One shape key per frame ("wobble 0012"), keyed 1 on its frame and 0 on its neighbours, so
    that the mesh shows each frame exactly and blends linearly in between; returns the number
    of frames. The user's own shape keys are muted (the baked positions already hold them)."""
    start, frames = play_frames(context, obj)
    if obj.data.shape_keys is None:
        obj.shape_key_add(name="Basis", from_mix=False)
        obj[CREATED_BASIS] = True
    key = obj.data.shape_keys
    muted = [block.name for block in key.key_blocks[1:] if not block.mute]
    for name in muted:
        key.key_blocks[name].mute = True
    obj[MUTED_KEYS] = muted
    curves = actions.fcurves(key.animation_data)
    if curves is None:
        curves = actions.new_action(key, f"{obj.name} wobble shape keys")
    last = start + len(frames) - 1
    for k, positions in enumerate(frames):
        frame = start + k
        block = obj.shape_key_add(name=f"{SHAPE_KEY_PREFIX}{frame:04d}", from_mix=False)
        block.data.foreach_set("co", positions.ravel())
        block.value = 0.0
        keys = [(f, 1.0 if f == frame else 0.0) for f in (frame - 1, frame, frame + 1) if start <= f <= last]
        curve = curves.new(f'key_blocks["{block.name}"].value')
        curve.keyframe_points.add(len(keys))
        curve.keyframe_points.foreach_set("co", np.asarray(keys, dtype=np.float32).ravel())
        for point in curve.keyframe_points:
            point.interpolation = 'LINEAR'
        curve.update()
    switch_to_baked(obj)
    return len(frames)


def remove_shape_keys(obj):
    """Removes the baked shape keys and their curves, and unmutes the user's keys."""
    key = obj.data.shape_keys
    if key is None:
        return
    curves = actions.fcurves(key.animation_data)
    for block in [b for b in key.key_blocks if b.name.startswith(SHAPE_KEY_PREFIX)]:
        curve = curves.find(f'key_blocks["{block.name}"].value') if curves is not None else None
        if curve is not None:
            curves.remove(curve)
        obj.shape_key_remove(block)
    for name in obj.get(MUTED_KEYS, []):
        if name in key.key_blocks:
            key.key_blocks[name].mute = False
    if MUTED_KEYS in obj:
        del obj[MUTED_KEYS]
    if obj.get(CREATED_BASIS) and len(obj.data.shape_keys.key_blocks) == 1:
        obj.shape_key_clear()  # only the basis the bake added is left
    if CREATED_BASIS in obj:
        del obj[CREATED_BASIS]


def has_baked_shape_keys(obj):
    key = obj.data.shape_keys
    return key is not None and any(b.name.startswith(SHAPE_KEY_PREFIX) for b in key.key_blocks)


def remove_bake(context, obj):
    """Undoes any bake: the live effect and the Armature modifier back on."""
    cache = obj.modifiers.get(CACHE_MODIFIER)
    if cache is not None:
        obj.modifiers.remove(cache)
    remove_shape_keys(obj)
    helper_bones.remove(context, obj)
    for m in obj.modifiers:
        if m.type == 'ARMATURE' or m.name == playback.MODIFIER_NAME:
            m.show_viewport = m.show_render = True


def has_bake(obj):
    return obj.modifiers.get(CACHE_MODIFIER) is not None or has_baked_shape_keys(obj) or helper_bones.has_bake(obj)


class WOBBLE_OT_bake(bpy.types.Operator):
    """Bake the effect over the scene's frame range, to a PC2 point cache played by a Mesh Cache modifier, to one shape key per frame or to helper bones of the armature"""
    bl_idname = "wobble.bake"
    bl_label = "Bake"
    bl_options = {'REGISTER', 'UNDO'}

    target: EnumProperty(name="Target", default='PC2',
                         items=[('PC2', "PC2", "A PC2 point cache (the PC2 File setting) played by a Mesh Cache modifier"),
                                ('SHAPE_KEYS', "Shape Keys", "One shape key per frame, keyed 1 on its frame"),
                                ('HELPER_BONES', "Helper Bones", "Helper bones of the armature, keyed on every frame, "
                                 "and the vertex groups refitted: the Armature modifier plays the motion")])

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and armature_modifier(obj) is not None

    def execute(self, context):
        obj = context.object
        path = bpy.path.abspath(obj.wobble.bake_path)
        if path.startswith("//"):  # an unsaved file: relative paths have no folder
            path = os.path.join(bpy.app.tempdir or ".", path[2:])
        was_enabled = obj.wobble.enabled
        saved_frame = context.scene.frame_current
        remove_bake(context, obj)  # bake what the rig does, not an earlier bake
        obj.wobble.enabled = True
        try:
            if self.target == 'SHAPE_KEYS':
                frames = bake_shape_keys(context, obj)
                where = "shape keys"
            elif self.target == 'HELPER_BONES':
                helpers, frames, rmse, secondary = helper_bones.bake(context, obj, play_frames)
                where = (f"{helpers} helper bones (RMSE {rmse:.3g}, {100 * rmse / max(secondary, 1e-30):.1f} % of the "
                         "secondary motion)")
            else:
                frames = bake(context, obj, path)
                where = path
        except (wobble.Error, ValueError, OSError) as error:
            obj.wobble.enabled = was_enabled
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        finally:
            # Last, with the effect off after a bake (or as it was after an error): the restore
            # evaluates what the object now shows (the bake's curves too) and runs no effect in vain.
            context.scene.frame_set(saved_frame)
        self.report({'INFO'}, f"wobble: baked {frames} frames to {where}")
        return {'FINISHED'}


class WOBBLE_OT_unbake(bpy.types.Operator):
    """Remove the bake (Mesh Cache modifier, shape keys or helper bones) and turn the Armature modifier and the live effect back on"""
    bl_idname = "wobble.unbake"
    bl_label = "Remove Bake"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and has_bake(obj)

    def execute(self, context):
        obj = context.object
        remove_bake(context, obj)
        obj.wobble.enabled = True
        return {'FINISHED'}


classes = (WOBBLE_OT_bake, WOBBLE_OT_unbake)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
