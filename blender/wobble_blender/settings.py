"""An object's wobble properties as a deformer stack and settings: the strings and keys of the
command line's --deformer and --settings (only what differs from the defaults), so that a
result seen in Blender can be reproduced with `wobble bake`. Animated live numbers go as keys
(keyframes.py); a keyframed parameter wobble cannot key is refused, with the reason."""
import numpy as np

from . import keyframes
from .properties import DESCRIPTIONS, DEFORMERS, shown
from .values import number


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
    return s.loop, (s.pre_roll_seconds if s.pre_roll == 'SECONDS' and not s.loop else None)


def plain(parameter, value):
    """A property's value as the settings file has it."""
    kind = parameter["type"]
    if kind == "number":
        return number(value)
    if kind == "vector3":
        return [number(v) for v in value]
    return value  # integer, boolean, choice: Python's int, bool, str


def is_default(parameter, value):
    """The value is the default (numbers as Blender holds them: 1/240 is stored as the nearest
    single-precision float). An optional joint field's default is None: never."""
    default = parameter["default"]
    if parameter["type"] in ("number", "vector3") and default is not None:
        return bool(np.all(np.float32(value) == np.float32(default)))
    return value == default


class Reader:
    """Reads one object's properties; `span` is the history's (fps, first, last frame) for keys."""

    def __init__(self, obj, span, weights):
        self.obj, self.span, self.weights = obj, span, weights

    def value(self, parameter, owner, path, where):
        """The settings value of one property (keys when animated), or None for the default."""
        if keyframes.driven(self.obj, path):
            raise ValueError(f"{where}: has a driver; wobble takes keyframes (Key > Bake Keyframes turns a driver "
                             "into keys)")
        keys = None if keyframes.fcurve(self.obj, path) is None else self.keys(parameter, path, where)
        if keys is not None:
            return keys
        value = plain(parameter, getattr(owner, parameter["key"]))
        return None if is_default(parameter, value) else value

    def keys(self, parameter, path, where):
        if parameter["lifetime"] != "live":
            raise ValueError(f"{where}: is keyframed, but it is a bind parameter (it changes what the deformer "
                             "precomputes, once per bake): remove its keys")
        if parameter["type"] != "number":
            raise ValueError(f"{where}: is keyframed, but only numbers can follow keys in wobble (remove its keys)")
        return keyframes.keys_of(self.obj, path, self.span)

    def section(self, name):
        """One deformer's settings section."""
        group = getattr(self.obj.wobble, name)
        section = {}
        for parameter in filter(shown, DESCRIPTIONS[name]["parameters"]):
            key, kind = parameter["key"], parameter["type"]
            where = f"{self.obj.name}: {name}.{key}"
            if kind == "vertex_array":
                group_name = getattr(group, key)
                if group_name:
                    section[key] = group_weights(self.obj, group_name) if self.weights else group_name
                continue
            if kind == "joint_table":
                table = self.joint_table(name, parameter, getattr(group, key))
                if table:
                    section[key] = table
                continue
            value = self.value(parameter, group, f"wobble.{name}.{key}", where)
            if value is not None:
                section[key] = value
        return section

    def joint_table(self, name, table, entries):
        out = {}
        for index, entry in enumerate(entries):
            if not entry.bone:
                continue
            fields = {}
            for field in table["fields"]:
                key = field["key"]
                if field["optional"] and not getattr(entry, "use_" + key):
                    continue
                path = f"wobble.{name}.{table['key']}[{index}].{key}"
                where = f"{self.obj.name}: {name}.{table['key']}.{entry.bone}.{key}"
                value = self.value(field, entry, path, where)
                if value is not None:
                    fields[key] = value
            if fields:
                if entry.bone in out:
                    raise ValueError(f"{self.obj.name}: {name}.{table['key']}: bone '{entry.bone}' has two entries")
                out[entry.bone] = fields
        return out


def stack_of(obj, base):
    """The deformer stack ("lbs,dynamic,deltamush", ...); `base` is the Armature modifier's
    skinning, 'lbs' or 'dqs' (delayed LBS replaces lbs only)."""
    s = obj.wobble
    stack = []
    for name, _ in DEFORMERS:
        if not getattr(s, "use_" + name):
            continue
        if DESCRIPTIONS[name]["stage"] == "base":
            if base == 'lbs' and not stack:
                stack.append(name)
        else:
            if not stack:
                stack.append(base)
            stack.append(name)
    return stack or [base]


def stack_and_settings(obj, base, scene, weights=True):
    """The stack and the settings ({"dynamic": {...}}) of an object's wobble properties. Without
    `weights`, vertex groups appear by name (a cheap signature of the settings: reading a
    group's weights walks every vertex in Python)."""
    stack = stack_of(obj, base)
    reader = Reader(obj, keyframes.history_span(scene, motion_of(obj)[1]), weights)
    settings = {}
    for name in stack:
        if name in DESCRIPTIONS:
            section = reader.section(name)
            if section:
                settings[name] = section
    return ",".join(stack), settings
