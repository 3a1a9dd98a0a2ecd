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
per frame.

Settings. Every frame the object's properties are read as the CLI's stack and settings
(settings.py; keyframed numbers as keys). A change of the stack (a deformer switched on or off),
of the loop or pre-roll, of the mesh or the armature builds the runtime afresh; any other change
goes to the running stack through Stack.update: while the animation plays, live values keep the
motion's history (live tuning: the wobble goes on); paused, or when a deformer was rebound, the
displayed frame is computed afresh with the new settings (timeline.py). Values wobble refuses
are reported with wobble's message (in the panel, and by Bake) and the effect shows nothing
until they are fixed.
"""
import contextlib
import json

import bpy
import numpy as np
from bpy.app.handlers import persistent

from . import actions
from .module import wobble
from .rig_bridge import CharacterBridge, armature_modifier
from .settings import motion_of, stack_and_settings
from .timeline import Timeline

OFFSET_ATTRIBUTE = "wobble_offset"
NODE_GROUP = "wobble offset"
MODIFIER_NAME = "wobble"

# Per object (by name): the bridge, the stacks and what they were made from.
_runtime = {}
# Per object (by name): (the signatures refused, or None, and wobble's message), and the message
# printed last.
_errors = {}
_printed = {}


def skinning_of(modifier):
    return 'dqs' if modifier.use_deform_preserve_volume else 'lbs'


def signatures_of(obj, modifier, scene):
    """What the runtime was made from: (structure, settings). A structure change needs a new
    runtime; a settings change goes through Stack.update. Vertex groups by name (reading a
    group's weights walks every vertex in Python: they are read when the settings change)."""
    spec, settings = stack_and_settings(obj, skinning_of(modifier), scene, weights=False)
    structure = json.dumps([spec, motion_of(obj), len(obj.data.vertices), modifier.object.name])
    return structure, json.dumps(settings, sort_keys=True)


def animation_playing():
    """True while the timeline plays in any window (live tuning keeps the history then)."""
    window_manager = bpy.context.window_manager
    return window_manager is not None and any(w.screen.is_animation_playing for w in window_manager.windows)


class Runtime:
    def __init__(self, obj, modifier, scene, signatures):
        self.bridge = CharacterBridge(obj, modifier)
        self.spec, self.settings = stack_and_settings(obj, self.bridge.base, scene)
        self.stack = wobble.Stack(self.bridge.character, self.spec, self.settings)
        self.base = wobble.Stack(self.bridge.character, self.bridge.base)
        self.timeline = Timeline(self.bridge, self.stack, self.base, *motion_of(obj))
        self.structure, self.signature = signatures
        self.shown_time = None  # the time whose offsets the mesh attribute holds

    def retune(self, obj, scene, signature, keep_history):
        """New settings for the running stack: live values keep its history when keep_history;
        a deformer whose bind values changed is rebound by Stack.update and the history restarts."""
        _, settings = stack_and_settings(obj, self.bridge.base, scene)
        rebound = self.stack.update(settings)
        self.settings, self.signature = settings, signature
        self.timeline.settings_changed(keep_history and not rebound)
        if not (keep_history and not rebound):
            self.shown_time = None  # the displayed frame changes


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
    _errors.pop(obj.name, None)
    if obj.type == 'MESH' and obj.data.attributes.get(OFFSET_ATTRIBUTE) is not None:
        write_offsets(obj, np.zeros((len(obj.data.vertices), 3), dtype=np.float32))


def runtime_of(obj, scene):
    """The object's runtime, built or given its new settings. Raises wobble.Error or ValueError
    with the message of a refused value; the same settings are not tried again."""
    modifier = armature_modifier(obj)
    if modifier is None:
        raise ValueError(f"{obj.name}: wobble needs an Armature modifier with an armature")
    signatures = signatures_of(obj, modifier, scene)
    refused = _errors.get(obj.name)
    if refused is not None and refused[0] == signatures:
        raise ValueError(refused[1])
    runtime = _runtime.get(obj.name)
    try:
        if runtime is None or runtime.structure != signatures[0]:
            _runtime.pop(obj.name, None)
            runtime = Runtime(obj, modifier, scene, signatures)
            _runtime[obj.name] = runtime
        elif runtime.signature != signatures[1]:
            runtime.retune(obj, scene, signatures[1], animation_playing())
    except (wobble.Error, ValueError) as error:
        message = named(obj, error)
        _errors[obj.name] = (signatures, message)
        raise ValueError(message) from error
    return runtime


def named(obj, error):
    """An error's message naming the object ("Body: settings: dynamic.amplitude: ...")."""
    message = str(error)
    return message if message.startswith(obj.name + ": ") else f"{obj.name}: {message}"


def error_of(obj):
    """wobble's message about the object's settings, or None."""
    refused = _errors.get(obj.name)
    return refused[1] if refused is not None else None


def _refuse(obj, message):
    """Settings wobble refused: the message printed (once) and kept for the panel, the effect
    off (zero offsets) until they are fixed."""
    if _printed.get(obj.name) != message:
        print(f"wobble: {message}")
        _printed[obj.name] = message
    refused = _errors.get(obj.name)
    if refused is None or refused[1] != message:  # refused while running (keys at some time)
        _errors[obj.name] = (None, message)
        _runtime.pop(obj.name, None)  # built afresh next time
    if obj.data.attributes.get(OFFSET_ATTRIBUTE) is not None:
        write_offsets(obj, np.zeros((len(obj.data.vertices), 3), dtype=np.float32))


def evaluate(obj, depsgraph, time):
    """The effect for the object at `time` (the bake's, see timeline.py), written to the mesh."""
    scene = bpy.context.scene
    try:
        runtime = runtime_of(obj, scene)
        offsets = runtime.timeline.offsets(scene, depsgraph, time)
    except (wobble.Error, ValueError) as error:
        message = named(obj, error)
        _refuse(obj, message)
        raise ValueError(message) from error
    _errors.pop(obj.name, None)
    _printed.pop(obj.name, None)
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
        except (wobble.Error, ValueError):
            pass  # reported (printed, and in the panel); the effect stays on, showing nothing until fixed


@persistent
def on_load(_):
    _runtime.clear()
    _errors.clear()


@persistent
def moves_rig(action):
    """Whether an action may move a rig: it animates more than wobble's own properties (keys on
    those reach the stack through the settings, see settings.py). Forgetting the samples would
    make the next frame sample the rig again, setting the scene's frame, which puts animated
    properties back at their curves' values: an edited, not yet keyed value would be lost."""
    return any(not c.data_path.startswith("wobble.") for c in actions.every_fcurve(action))


def on_depsgraph_update(scene, depsgraph):
    # An edited action changes the rig's motion: the cached samples and results are stale.
    if _paused[0] or not _runtime:
        return
    if any(isinstance(update.id, bpy.types.Action) and moves_rig(update.id) for update in depsgraph.updates):
        for runtime in _runtime.values():
            runtime.timeline.forget_samples()
            runtime.shown_time = None


def refresh(obj, context):
    """After a property change: the current frame with the new settings (timeline.py)."""
    if obj is None or obj.type != 'MESH':
        return
    if not obj.wobble.enabled:
        clear(obj)
        return
    try:
        evaluate(obj, context.evaluated_depsgraph_get(), scene_time(context.scene))
    except (wobble.Error, ValueError):
        pass  # reported


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
