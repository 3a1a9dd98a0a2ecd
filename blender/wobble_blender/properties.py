"""The add-on's settings, stored on each mesh object (Object.wobble), and their translation
into a wobble deformer stack and settings: the same strings and keys as the command line's
--deformer and --settings, so a result seen in Blender can be reproduced with `wobble bake`."""
import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty,
                       PointerProperty, StringProperty)


def _refresh(self, context):
    # Show a change at once, also while the animation is paused.
    from . import playback
    playback.refresh(context)


class WobbleBoneOverride(bpy.types.PropertyGroup):
    bone: StringProperty(name="Bone", description="Bone (joint) these settings apply to", update=_refresh)
    enabled: BoolProperty(name="Enabled", default=True, description="Off: this bone adds no secondary motion",
                          update=_refresh)
    frequency_scale: FloatProperty(name="Frequency ×", default=1.0, min=0.0, soft_max=4.0, update=_refresh)
    damping_scale: FloatProperty(name="Damping ×", default=1.0, min=0.0, soft_max=4.0, update=_refresh)
    amplitude_scale: FloatProperty(name="Amplitude ×", default=1.0, soft_min=0.0, soft_max=4.0, update=_refresh)
    drag_scale: FloatProperty(name="Drag ×", default=1.0, soft_min=0.0, soft_max=4.0, update=_refresh)


class WobbleSettings(bpy.types.PropertyGroup):
    enabled: BoolProperty(name="Enable wobble", default=False, update=_refresh,
                          description="Apply the effect every frame on top of the Armature modifier")
    # Dynamic Skinning (Rohmer et al.): units as in the paper and the CLI.
    use_dynamic: BoolProperty(name="Dynamic Skinning", default=True, update=_refresh)
    frequency: FloatProperty(name="Frequency f", default=2.5, min=0.0, max=30.0, unit='NONE', update=_refresh,
                             description="Oscillation frequency, Hz")
    damping: FloatProperty(name="Damping τ", default=0.3, min=0.0, soft_max=3.0, update=_refresh,
                           description="Decay time of the oscillations, s")
    amplitude: FloatProperty(name="Amplitude A", default=0.25, soft_min=0.0, soft_max=2.0, update=_refresh,
                             description="Oscillation amplitude, s (angle per angular velocity)")
    drag: FloatProperty(name="Drag D", default=0.08, soft_min=0.0, soft_max=1.0, update=_refresh,
                        description="Drag, s (angle per angular velocity)")
    max_angle: FloatProperty(name="Max Angle", default=60.0, min=0.1, max=180.0, update=_refresh,
                             description="Soft limit on the bend angle, degrees")
    bend_group: StringProperty(name="Bend Weights", default="", update=_refresh,
                               description="Vertex group with the bend weight γ (vertices outside it: 0); "
                                           "empty: 1 everywhere")
    use_dlbs: BoolProperty(name="Delayed LBS", default=False, update=_refresh,
                           description="Joint rotations travel along the skeleton as a wave")
    wave_speed: FloatProperty(name="Wave Speed", default=4.0, min=0.01, soft_max=20.0, update=_refresh,
                              description="Delayed LBS wave speed, character sizes per second")
    overrides: CollectionProperty(type=WobbleBoneOverride)
    active_override: IntProperty(default=0)
    # Delta Mush (post-deformer).
    use_mush: BoolProperty(name="Delta Mush", default=False, update=_refresh)
    mush_iterations: IntProperty(name="Iterations", default=10, min=0, soft_max=100, update=_refresh)
    mush_step: FloatProperty(name="Step", default=0.5, min=0.0, max=1.0, update=_refresh)
    mush_smoothing: EnumProperty(name="Smoothing", default='uniform', update=_refresh,
                                 items=[('uniform', "Uniform", ""), ('length', "Length", ""),
                                        ('cotangent', "Cotangent", "")])
    mush_mode: EnumProperty(name="Mode", default='wobble', update=_refresh,
                            items=[('wobble', "wobble", "Seams welded, fixed smoothing operator"),
                                   ('blender', "Corrective Smooth", "As Blender's Corrective Smooth modifier")])
    mush_pin_boundary: BoolProperty(name="Pin Boundary", default=False, update=_refresh)
    mush_scale: FloatProperty(name="Scale", default=1.0, soft_min=0.0, soft_max=2.0, update=_refresh)
    mush_group: StringProperty(name="Mask", default="", update=_refresh,
                               description="Vertex group with the smoothing weight; empty: everywhere")
    mush_invert: BoolProperty(name="Invert Mask", default=False, update=_refresh)
    # Loop and pre-roll: how the history meets the frame range (as wobble bake's --loop, --pre-roll).
    loop: BoolProperty(name="Loop", default=False, update=_refresh,
                       description="The frame range is a cycle (frame_end + 1 is frame_start again): the effect is its "
                                   "periodic steady state, seamless when the playback loops")
    pre_roll: EnumProperty(name="Pre-roll", default='HOLD', update=_refresh,
                           items=[('HOLD', "Hold", "The first frame's pose held forever before it: no jolt"),
                                  ('SECONDS', "Seconds", "The rig's own motion from this long before the first frame")])
    pre_roll_seconds: FloatProperty(name="Pre-roll Time", default=1.0, min=0.0, soft_max=10.0, update=_refresh,
                                    description="How long before the first frame the history begins, s")
    # Bake.
    bake_path: StringProperty(name="PC2 File", subtype='FILE_PATH', default="//wobble.pc2",
                              description="Point cache written by Bake")


def group_weights(obj, name):
    """Per-vertex weights of a vertex group (0 outside it)."""
    group = obj.vertex_groups.get(name)
    if group is None:
        raise ValueError(f"{obj.name}: no vertex group '{name}'")
    index = group.index
    weights = [0.0] * len(obj.data.vertices)
    for vertex in obj.data.vertices:
        for element in vertex.groups:
            if element.group == index:
                weights[vertex.index] = element.weight
    return weights


def motion_of(obj):
    """(loop, pre-roll seconds or None for hold) of an object's settings."""
    s = obj.wobble
    return s.loop, (s.pre_roll_seconds if s.pre_roll == 'SECONDS' else None)


def stack_and_settings(obj, base, weights=True):
    """The deformer stack ("lbs,dynamic,deltamush", ...) and settings ({"dynamic": {...}}) of an
    object's wobble settings; `base` is the Armature modifier's skinning, 'lbs' or 'dqs'. Without
    `weights`, vertex groups appear by name (a cheap signature of the settings: reading a group's
    weights walks every vertex in Python)."""
    s = obj.wobble
    stack, settings = [], {}
    if s.use_dlbs and base == 'lbs':
        stack.append('dlbs')
        settings['dlbs'] = {'wave_speed': s.wave_speed}
    else:
        stack.append(base)
    if s.use_dynamic:
        stack.append('dynamic')
        dynamic = {'frequency': s.frequency, 'damping': s.damping, 'amplitude': s.amplitude, 'drag': s.drag,
                   'max_angle': s.max_angle, 'bend_weight_attribute': ''}
        if s.bend_group:
            dynamic['bend_weights'] = group_weights(obj, s.bend_group) if weights else s.bend_group
        joints = {}
        for o in s.overrides:
            if not o.bone:
                continue
            joints[o.bone] = {'enabled': o.enabled, 'frequency_scale': o.frequency_scale,
                              'damping_scale': o.damping_scale, 'amplitude_scale': o.amplitude_scale,
                              'drag_scale': o.drag_scale}
        if joints:
            dynamic['joints'] = joints
        settings['dynamic'] = dynamic
    if s.use_mush:
        stack.append('deltamush')
        mush = {'iterations': s.mush_iterations, 'step': s.mush_step, 'smoothing': s.mush_smoothing,
                'mode': s.mush_mode, 'pin_boundary': s.mush_pin_boundary, 'scale': s.mush_scale,
                'invert_mask': s.mush_invert}
        if s.mush_group:
            mush['mask'] = group_weights(obj, s.mush_group) if weights else s.mush_group
        settings['deltamush'] = mush
    return ",".join(stack), settings


classes = (WobbleBoneOverride, WobbleSettings)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.wobble = PointerProperty(type=WobbleSettings)


def unregister():
    del bpy.types.Object.wobble
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
