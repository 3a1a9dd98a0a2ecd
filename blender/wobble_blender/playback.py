"""Real-time playback: after every frame change, each mesh with wobble enabled gets the
effect of the armature's evaluated pose.

How the result reaches the viewport. The Armature modifier stays as it is; wobble computes the
full stack (e.g. lbs,dynamic,deltamush) and the plain skinning the modifier itself performs (lbs,
or dqs with Preserve Volume), and stores their difference per vertex in the mesh attribute
`wobble_offset`. A small Geometry Nodes modifier right after the Armature modifier adds that
attribute to the positions. Nothing of the user's mesh is overwritten.

Time. t = frame / fps (scene frame rate). The result at a frame is `wobble bake` of the scene's
frame range at that frame, however the timeline got there (timeline.py): the rig is sampled at
the effect's 60 Hz between frames, the history runs from the first frame, results are cached
per frame. A settings change starts afresh.
"""
import contextlib
import json

import bpy
import numpy as np
from bpy.app.handlers import persistent

from .module import wobble
from .properties import motion_of, stack_and_settings
from .rig_bridge import CharacterBridge, armature_modifier
from .timeline import Timeline

OFFSET_ATTRIBUTE = "wobble_offset"
NODE_GROUP = "wobble offset"
MODIFIER_NAME = "wobble"

# Per object (by name): the bridge, the stacks and what they were made from.
_runtime = {}


class Runtime:
    def __init__(self, obj, modifier):
        self.bridge = CharacterBridge(obj, modifier)
        spec, settings = stack_and_settings(obj, self.bridge.base)
        self.signature = _signature(obj, modifier)
        self.spec = spec
        self.settings = settings
        self.stack = wobble.Stack(self.bridge.character, spec, settings)
        self.base = wobble.Stack(self.bridge.character, self.bridge.base)
        self.timeline = Timeline(self.bridge, self.stack, self.base, *motion_of(obj))
        self.shown_time = None  # the time whose offsets the mesh attribute holds


# The frame-change handler does nothing while the timeline sets sub-frames to sample the rig.
_paused = [False]


@contextlib.contextmanager
def handler_paused():
    was = _paused[0]
    _paused[0] = True
    try:
        yield
    finally:
        _paused[0] = was


def _signature(obj, modifier):
    # Checked every frame: vertex groups by name, their weights are read when the runtime is built.
    spec, settings = stack_and_settings(obj, 'dqs' if modifier.use_deform_preserve_volume else 'lbs', weights=False)
    return json.dumps([spec, settings, motion_of(obj), len(obj.data.vertices), modifier.object.name], sort_keys=True)


def scene_time(scene, frame=None):
    fps = scene.render.fps / scene.render.fps_base
    return (scene.frame_current + scene.frame_subframe if frame is None else frame) / fps


def offset_node_group():
    """Geometry Nodes: position += the `wobble_offset` attribute (Blender 3.4 and 4.x APIs)."""
    group = bpy.data.node_groups.get(NODE_GROUP)
    if group is not None:
        return group
    group = bpy.data.node_groups.new(NODE_GROUP, 'GeometryNodeTree')
    if hasattr(group, "interface"):  # Blender 4.0+
        group.interface.new_socket("Geometry", in_out='INPUT', socket_type='NodeSocketGeometry')
        group.interface.new_socket("Geometry", in_out='OUTPUT', socket_type='NodeSocketGeometry')
    else:
        group.inputs.new('NodeSocketGeometry', "Geometry")
        group.outputs.new('NodeSocketGeometry', "Geometry")
    nodes, links = group.nodes, group.links
    group_in = nodes.new('NodeGroupInput')
    group_out = nodes.new('NodeGroupOutput')
    attribute = nodes.new('GeometryNodeInputNamedAttribute')
    attribute.data_type = 'FLOAT_VECTOR'
    attribute.inputs["Name"].default_value = OFFSET_ATTRIBUTE
    set_position = nodes.new('GeometryNodeSetPosition')
    group_in.location, attribute.location, set_position.location, group_out.location = (-400, 0), (-400, -150), (-150, 0), (100, 0)
    vector_output = next(s for s in attribute.outputs if s.type == 'VECTOR')
    links.new(group_in.outputs[0], set_position.inputs["Geometry"])
    links.new(vector_output, set_position.inputs["Offset"])
    links.new(set_position.outputs["Geometry"], group_out.inputs[0])
    return group


def ensure_modifier(obj):
    """The Geometry Nodes modifier right after the Armature modifier."""
    modifier = obj.modifiers.get(MODIFIER_NAME)
    if modifier is None:
        modifier = obj.modifiers.new(MODIFIER_NAME, 'NODES')
        modifier.node_group = offset_node_group()
    armature = armature_modifier(obj)
    target = list(obj.modifiers).index(armature) + 1
    current = list(obj.modifiers).index(modifier)
    if current != target:
        if current > target:
            with bpy.context.temp_override(object=obj):
                bpy.ops.object.modifier_move_to_index(modifier=modifier.name, index=target)
    # Only when off: setting these (even to the same value) makes Blender rebuild the depsgraph's relations.
    if not (modifier.show_viewport and modifier.show_render):
        modifier.show_viewport = modifier.show_render = True
    return modifier


def write_offsets(obj, offsets):
    mesh = obj.data
    attribute = mesh.attributes.get(OFFSET_ATTRIBUTE)
    if attribute is None:
        attribute = mesh.attributes.new(OFFSET_ATTRIBUTE, 'FLOAT_VECTOR', 'POINT')
    attribute.data.foreach_set("vector", np.ascontiguousarray(offsets, dtype=np.float32).ravel())
    mesh.update_tag()


def clear(obj):
    """Removes the effect from an object (zero offsets) and forgets its history."""
    _runtime.pop(obj.name, None)
    if obj.type == 'MESH' and obj.data.attributes.get(OFFSET_ATTRIBUTE) is not None:
        write_offsets(obj, np.zeros((len(obj.data.vertices), 3), dtype=np.float32))


def runtime_of(obj):
    """The object's runtime, rebuilt when its settings, mesh or armature changed."""
    modifier = armature_modifier(obj)
    if modifier is None:
        raise ValueError(f"{obj.name}: wobble needs an Armature modifier with an armature")
    runtime = _runtime.get(obj.name)
    if runtime is None or runtime.signature != _signature(obj, modifier):
        runtime = Runtime(obj, modifier)
        _runtime[obj.name] = runtime
    return runtime


def evaluate(obj, depsgraph, time):
    """The effect for the object at `time` (the bake's, see timeline.py), written to the mesh."""
    runtime = runtime_of(obj)
    offsets = runtime.timeline.offsets(bpy.context.scene, depsgraph, time)
    ensure_modifier(obj)
    # The same frame again is not rewritten (that would only make Blender evaluate the mesh again),
    # unless the attribute is gone.
    if runtime.shown_time != time or obj.data.attributes.get(OFFSET_ATTRIBUTE) is None:
        write_offsets(obj, offsets)
        runtime.shown_time = time
    return offsets


def reset(obj):
    """Forgets the cached results and samples (the next frame computes the history afresh)."""
    runtime = _runtime.get(obj.name)
    if runtime is not None:
        runtime.timeline.forget_samples()
        runtime.shown_time = None


def _enabled_objects(scene):
    return [o for o in scene.objects if o.type == 'MESH' and o.wobble.enabled and armature_modifier(o) is not None]


@persistent
def on_frame_change(scene, depsgraph=None):
    if _paused[0]:
        return
    if depsgraph is None:
        depsgraph = bpy.context.evaluated_depsgraph_get()
    time = scene_time(scene)
    for obj in _enabled_objects(scene):
        try:
            evaluate(obj, depsgraph, time)
        except (wobble.Error, ValueError) as error:
            print(f"wobble: {error}")
            obj.wobble.enabled = False


@persistent
def on_load(_):
    _runtime.clear()


@persistent
def on_depsgraph_update(scene, depsgraph):
    # An edited action changes the rig's motion: the cached samples and results are stale.
    if _paused[0] or not _runtime:
        return
    if any(isinstance(update.id, bpy.types.Action) for update in depsgraph.updates):
        for runtime in _runtime.values():
            runtime.timeline.forget_samples()
            runtime.shown_time = None


def refresh(context):
    """After a settings change: re-run the current frame (the history restarts)."""
    obj = context.object
    if obj is None or obj.type != 'MESH':
        return
    if not obj.wobble.enabled:
        clear(obj)
        return
    try:
        evaluate(obj, context.evaluated_depsgraph_get(), scene_time(context.scene))
    except (wobble.Error, ValueError) as error:
        print(f"wobble: {error}")


_HANDLERS = (("frame_change_post", on_frame_change), ("load_post", on_load), ("depsgraph_update_post", on_depsgraph_update))


def register():
    for name, function in _HANDLERS:
        getattr(bpy.app.handlers, name).append(function)


def unregister():
    for name, function in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        if function in handlers:
            handlers.remove(function)
    _runtime.clear()
