"""Bake: plays the scene's frame range with the effect, writes what Blender shows (the mesh in
object space, after the Armature and wobble modifiers) to a PC2 point cache, and plays it back
with a Mesh Cache modifier in place of the Armature and wobble modifiers."""
import os

import bpy
import numpy as np

from . import playback
from .module import wobble
from .rig_bridge import armature_modifier

CACHE_MODIFIER = "wobble bake"


def evaluated_positions(obj, depsgraph):
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        positions = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", positions)
    finally:
        evaluated.to_mesh_clear()
    return positions.reshape(-1, 3)


def bake(context, obj, path):
    """Writes the PC2 and sets up the Mesh Cache modifier; returns the number of frames."""
    scene = context.scene
    armature = armature_modifier(obj)
    if armature is None:
        raise ValueError(f"{obj.name}: bake needs an Armature modifier")
    modifiers = list(obj.modifiers)
    wobble_modifier = playback.ensure_modifier(obj)
    # Later modifiers (subdivision, ...) would change the vertex count: off while baking.
    later = [m for m in modifiers[modifiers.index(wobble_modifier) + 1:] if m.show_viewport]
    for m in later:
        m.show_viewport = False
    frames = []
    start, end = scene.frame_start, scene.frame_end
    saved_frame = scene.frame_current
    window_manager = context.window_manager
    try:
        playback.reset(obj)
        window_manager.progress_begin(start, end)
        for frame in range(start, end + 1):
            scene.frame_set(frame)  # runs the frame-change handler: the effect for this frame
            frames.append(evaluated_positions(obj, context.evaluated_depsgraph_get()))
            window_manager.progress_update(frame)
    finally:
        window_manager.progress_end()
        for m in later:
            m.show_viewport = True
    fps = scene.render.fps / scene.render.fps_base
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    wobble.write_pc2(path, np.stack(frames), fps, start / fps)

    # Play the cache instead of the live effect.
    obj.wobble.enabled = False
    playback.clear(obj)
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
    for m in (armature, obj.modifiers.get(playback.MODIFIER_NAME)):
        if m is not None:
            m.show_viewport = m.show_render = False
    scene.frame_set(saved_frame)
    return len(frames)


class WOBBLE_OT_bake(bpy.types.Operator):
    """Bake the effect over the scene's frame range to a PC2 point cache played by a Mesh Cache modifier"""
    bl_idname = "wobble.bake"
    bl_label = "Bake to PC2"
    bl_options = {'REGISTER', 'UNDO'}

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
        obj.wobble.enabled = True
        try:
            frames = bake(context, obj, path)
        except (wobble.Error, ValueError, OSError) as error:
            obj.wobble.enabled = was_enabled
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        self.report({'INFO'}, f"wobble: baked {frames} frames to {path}")
        return {'FINISHED'}


class WOBBLE_OT_unbake(bpy.types.Operator):
    """Remove the baked Mesh Cache modifier and turn the Armature modifier and the live effect back on"""
    bl_idname = "wobble.unbake"
    bl_label = "Remove Bake"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and obj.modifiers.get(CACHE_MODIFIER) is not None

    def execute(self, context):
        obj = context.object
        obj.modifiers.remove(obj.modifiers[CACHE_MODIFIER])
        for m in obj.modifiers:
            if m.type == 'ARMATURE' or m.name == playback.MODIFIER_NAME:
                m.show_viewport = m.show_render = True
        obj.wobble.enabled = True
        return {'FINISHED'}


classes = (WOBBLE_OT_bake, WOBBLE_OT_unbake)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
