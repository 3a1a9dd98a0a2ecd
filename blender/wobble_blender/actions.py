"""Blender's actions across its versions: the F-curves that animate a data-block.

Blender 4.4 made actions layered (Action.layers > strips > a channelbag per slot; the data-block
plays the slot AnimData.action_slot) and 5.0 removed the legacy Action.fcurves. Where the
layered API exists (4.4+) the add-on uses it as the Python API reference documents it
(ActionKeyframeStrip.channelbag, Action.slots, Action.layers); before (3.x to 4.3, where layers
are an experiment at most), the legacy Action.fcurves. Tested in 3.4 and 4.3 (the legacy path);
the layered path follows the 4.4 to 5.x documentation without a Blender to try it here.
"""
import bpy

LAYERED = bpy.app.version >= (4, 4, 0)


def _channelbags(action):
    for layer in action.layers:
        for strip in layer.strips:
            if strip.type == 'KEYFRAME':
                yield from strip.channelbags


def fcurves(animation_data):
    """The F-curves the data-block plays (its action's, of its slot), or None."""
    action = animation_data.action if animation_data is not None else None
    if action is None:
        return None
    if not LAYERED:
        return action.fcurves
    slot = animation_data.action_slot
    for bag in _channelbags(action):
        if slot is not None and bag.slot_handle == slot.handle:
            return bag.fcurves
    return None


def every_fcurve(action):
    """All F-curves of an action, whichever data-block (slot) they animate."""
    if not LAYERED:
        return list(action.fcurves)
    return [curve for bag in _channelbags(action) for curve in bag.fcurves]


def new_action(id_data, name):
    """A new action played by the data-block (with its own slot, layer and strip where layered);
    returns the F-curves to add to."""
    animation_data = id_data.animation_data or id_data.animation_data_create()
    action = bpy.data.actions.new(name)
    animation_data.action = action
    if not LAYERED:
        return action.fcurves
    slot = action.slots.new(id_type=id_data.id_type, name=id_data.name)
    animation_data.action_slot = slot
    strip = action.layers.new("Layer").strips.new(type='KEYFRAME')
    return strip.channelbag(slot, ensure=True).fcurves


def remove_fcurves(action, predicate):
    """Removes the action's F-curves for which predicate(curve) is true (every slot's)."""
    if not LAYERED:
        for curve in [c for c in action.fcurves if predicate(c)]:
            action.fcurves.remove(curve)
        return
    for bag in _channelbags(action):
        for curve in [c for c in bag.fcurves if predicate(c)]:
            bag.fcurves.remove(curve)
