"""Animated parameters: the F-curve of a property, as wobble's keys.

wobble takes a keyframed live number as {"keys": [[t, v], ...], "interpolation": "linear" or
"step"} (t in seconds of the clip, here the scene: t = frame / fps; held before the first key and
after the last) and puts it at its value at every evaluated frame, in the preview and the bake
alike (both run the same keys through timeline.py), and in `wobble bake --settings` with the same
keys. What Blender shows at each frame is what wobble uses there:

- an F-curve whose keys are all linear, or all constant, with constant extrapolation and no
  modifiers goes as its keys (constant -> "step"), so the settings are the animator's keys;
- any other (Bezier, the default of new keys; easing; linear extrapolation; cycles or noise
  modifiers) goes as its value at every scene frame of the history (from the pre-roll's first
  frame to frame_end), linear in between: equal to Blender's curve on every frame.

Only the object's active action is read (not NLA strips). A driver is refused: its value at
other frames is not known without evaluating the scene there."""
import math

from . import actions
from .values import number

EXACT = {'LINEAR': None, 'CONSTANT': "step"}


def object_fcurves(obj):
    """The F-curves of the object's active action (its slot's, where actions are layered)."""
    return actions.fcurves(obj.animation_data)


def fcurve(obj, data_path):
    """The unmuted F-curve with keys that animates `data_path` of the object, or None."""
    curves = object_fcurves(obj)
    curve = curves.find(data_path) if curves is not None else None
    if curve is None or curve.mute or not curve.keyframe_points:
        return None
    return curve


def driven(obj, data_path):
    animation = obj.animation_data
    return animation is not None and animation.drivers.find(data_path) is not None


def exact_keys(curve, fps):
    """The curve's own keys when wobble's interpolation is the curve's, else None."""
    points = curve.keyframe_points
    kinds = {p.interpolation for p in points[:-1]}  # the last key's interpolation plays no part
    if len(kinds) > 1 or not kinds <= EXACT.keys() or curve.extrapolation != 'CONSTANT':
        return None
    if any(not m.mute for m in curve.modifiers):
        return None
    keys = {"keys": [[p.co[0] / fps, number(p.co[1])] for p in points]}
    if kinds and EXACT[next(iter(kinds))]:
        keys["interpolation"] = EXACT[next(iter(kinds))]
    return keys


def sampled_keys(curve, fps, first_frame, last_frame):
    """The curve's value at every frame from first_frame to last_frame."""
    return {"keys": [[f / fps, number(curve.evaluate(f))] for f in range(first_frame, last_frame + 1)]}


def keys_of(obj, data_path, span):
    """wobble's keys of an animated number, or None when it is not animated. `span` is
    (fps, first frame, last frame) of the history."""
    curve = fcurve(obj, data_path)
    if curve is None:
        return None
    fps, first_frame, last_frame = span
    if len(curve.keyframe_points) == 1 and curve.extrapolation == 'CONSTANT' and not curve.modifiers:
        return number(curve.keyframe_points[0].co[1])  # one key: a constant
    return exact_keys(curve, fps) or sampled_keys(curve, fps, first_frame, last_frame)


def history_span(scene, pre_roll_seconds):
    """(fps, first frame, last frame) the history covers: pre-roll frames before frame_start."""
    fps = scene.render.fps / scene.render.fps_base
    first = scene.frame_start
    if pre_roll_seconds:
        first = math.floor(scene.frame_start - pre_roll_seconds * fps)
    return fps, first, scene.frame_end
