"""The add-on's settings, stored on each mesh object (Object.wobble).

The deformers' parameters are not declared here. When the add-on registers, one property group
per deformer (Object.wobble.dlbs, .dynamic, .deltamush) is generated from the descriptions the
bundled module exports (wobble.deformers(): key, type, unit, default, allowed and slider range,
choices, help, lifetime, and a per-joint table's nested description):

  number        FloatProperty: min/max the allowed range (an open end just inside it),
                soft_min/soft_max the slider range; the unit in the name and the tooltip
  integer       IntProperty, the same ranges
  boolean       BoolProperty
  choice        EnumProperty of the choices
  vector3       FloatVectorProperty (3)
  vertex_array  the name of a vertex group whose weights are passed (empty: the default)
  joint_table   a collection of per-bone entries: the bone and the table's fields; an optional
                field (one that falls back to the global value) gets a tick box use_FIELD
  text          not shown: wobble's text parameters name glTF vertex attributes, which a
                Blender mesh does not pass to wobble (it passes vertex groups instead)

The helper-bone bake's settings (Object.wobble.helper_bones: bones, influences, ...) are generated
the same way from the fit's description (wobble.helper_bones_description(), the flags
`wobble bake --helper-KEY` takes). Only the add-on's own settings (on/off per deformer, loop and
pre-roll, the bake's file) are declared by hand. settings.py turns the properties into the CLI's --deformer and --settings."""
import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty,
                       PointerProperty, StringProperty)

from .module import wobble

# The deformers the add-on offers, in stack order, and whether each is on for a new object.
# The base skinning is the Armature modifier's own (lbs, or dqs with Preserve Volume); dlbs
# replaces lbs.
DEFORMERS = (("dlbs", False), ("dynamic", True), ("deltamush", False))
INT_LIMIT = 2**31 - 1  # Blender's integer properties are 32-bit
OPEN_END = 1e-6        # how far inside an open range end the hard limit sits (relative)


def _refresh(self, context):
    # Show a change at once, also while the animation is paused.
    from . import playback
    playback.refresh(self.id_data, context)


def load_descriptions():
    """The bundled module's descriptions of the add-on's deformers, by name, in stack order."""
    known = {d["name"]: d for d in wobble.deformers()}
    return {name: known[name] for name, _ in DEFORMERS}


def shown(parameter):
    return parameter["type"] != "text"


def label(parameter):
    name = parameter["key"].replace("_", " ").capitalize()
    return f"{name} ({parameter['unit']})" if parameter["unit"] else name


def range_text(parameter):
    low, high = parameter["minimum"], parameter["maximum"]
    if parameter["choices"]:
        return ", ".join(parameter["choices"])
    if low is None and high is None:
        return ""
    return (("(" if parameter["minimum_exclusive"] else "[") + ("-inf" if low is None else f"{low:g}") + ", " +
            ("inf" if high is None else f"{high:g}") + (")" if parameter["maximum_exclusive"] else "]"))


def tooltip(parameter):
    """help (unit; range; lifetime), as `wobble deformers` lists it, and the settings key."""
    facts = [fact for fact in (parameter["unit"], range_text(parameter), parameter["lifetime"]) if fact]
    return f"{parameter['help']} ({'; '.join(facts)}). Settings key '{parameter['key']}'"


def hard_limits(parameter):
    """Blender's min/max: the allowed range; an open end (max angle in (0, 180]) just inside."""
    limits = {}
    for name, end, exclusive, inward in (("min", parameter["minimum"], parameter["minimum_exclusive"], 1.0),
                                         ("max", parameter["maximum"], parameter["maximum_exclusive"], -1.0)):
        if end is not None:
            limits[name] = end + inward * OPEN_END * max(1.0, abs(end)) if exclusive else end
    return limits


def soft_limits(parameter):
    """Blender's soft_min/soft_max: the description's slider range (inside the hard range)."""
    limits = {}
    if parameter["soft_minimum"] is not None:
        limits["soft_min"] = parameter["soft_minimum"]
    if parameter["soft_maximum"] is not None:
        limits["soft_max"] = parameter["soft_maximum"]
    hard = hard_limits(parameter)
    for soft, name in (("soft_min", "min"), ("soft_max", "max")):
        if soft in limits and name in hard:
            limits[soft] = min(max(limits[soft], hard.get("min", limits[soft])), hard.get("max", limits[soft]))
    return limits


def _precision(parameter, default):
    """Digits shown: enough for the default and the slider's ends (skip_below's 1e-5)."""
    smallest = min((abs(v) for v in (default, parameter["soft_minimum"], parameter["soft_maximum"]) if v), default=1.0)
    digits = 3
    while digits < 6 and smallest < 10.0 ** -(digits - 1):
        digits += 1
    return digits


def make_property(parameter, default=None):
    """The Blender property of one parameter; `default` replaces the description's (an optional
    joint field starts at the global value)."""
    kind = parameter["type"]
    value = parameter["default"] if default is None else default
    common = {"name": label(parameter), "description": tooltip(parameter), "update": _refresh}
    if kind == "number":
        return FloatProperty(default=value, precision=_precision(parameter, value), **hard_limits(parameter),
                             **soft_limits(parameter), **common)
    if kind == "integer":
        def clamp(v):
            return int(max(-INT_LIMIT, min(INT_LIMIT, v)))
        limits = {k: clamp(v) for k, v in {**hard_limits(parameter), **soft_limits(parameter)}.items()}
        return IntProperty(default=int(value), **limits, **common)
    if kind == "boolean":
        return BoolProperty(default=value, **common)
    if kind == "choice":
        items = [(c, c.replace("_", " ").capitalize(), "") for c in parameter["choices"]]
        return EnumProperty(items=items, default=value, **common)
    if kind == "vector3":
        return FloatVectorProperty(size=3, default=tuple(value), **hard_limits(parameter), **common)
    if kind == "vertex_array":
        return StringProperty(default="", name=label(parameter), update=_refresh,
                              description=f"{tooltip(parameter)}: the weights of this vertex group (0 outside "
                                          "it); empty: the default")
    raise ValueError(f"wobble: no Blender property for the parameter type '{kind}' ({parameter['key']})")


def optional_default(field, globals_by_key):
    """Where an optional joint field starts: the global parameter of the same key's default."""
    return globals_by_key[field["key"]]["default"] if field["key"] in globals_by_key else 0.0


def joint_entry_class(deformer, table, globals_by_key):
    """One bone's entry of a per-joint table: the bone and the table's fields."""
    annotations = {"bone": StringProperty(name="Bone", description="Bone (joint) this entry applies to",
                                          update=_refresh)}
    for field in table["fields"]:
        key = field["key"]
        if field["optional"]:
            annotations["use_" + key] = BoolProperty(
                name=f"Own {key.replace('_', ' ')}", default=False, update=_refresh,
                description=f"Give this bone its own {key.replace('_', ' ')} (unticked: the global value)")
            annotations[key] = make_property(field, default=optional_default(field, globals_by_key))
        else:
            annotations[key] = make_property(field)
    name = f"WOBBLE_PG_{deformer}_{table['key']}"
    return type(name, (bpy.types.PropertyGroup,), {"__annotations__": annotations})


def deformer_classes(description):
    """The property group of a deformer (last) after the classes it uses."""
    name = description["name"]
    classes, annotations = [], {}
    by_key = {p["key"]: p for p in description["parameters"]}
    for parameter in filter(shown, description["parameters"]):
        key = parameter["key"]
        if parameter["type"] == "joint_table":
            entry = joint_entry_class(name, parameter, by_key)
            classes.append(entry)
            annotations[key] = CollectionProperty(type=entry, name=label(parameter), description=tooltip(parameter))
            annotations[active_index(key)] = IntProperty(default=0)
        else:
            annotations[key] = make_property(parameter)
    classes.append(type(f"WOBBLE_PG_{name}", (bpy.types.PropertyGroup,), {"__annotations__": annotations}))
    return classes


def active_index(table_key):
    """The property holding a joint table's selected row."""
    return table_key + "_active"


class WobbleSettings(bpy.types.PropertyGroup):
    # Generated at register: use_NAME (on/off) and NAME (the parameters) per deformer.
    enabled: BoolProperty(name="Enable wobble", default=False, update=_refresh,
                          description="Apply the effect every frame on top of the Armature modifier")
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


def deformer_title(description):
    """'Dynamic Skinning' from the summary 'Dynamic Skinning: drag and ...'."""
    title = description["summary"].split(":")[0]
    return title[:1].upper() + title[1:]


DESCRIPTIONS = {}  # name -> description, filled at register
HELPER_BONES = {}  # the helper-bone fit's description, filled at register
_classes = []


def register():
    DESCRIPTIONS.clear()
    DESCRIPTIONS.update(load_descriptions())
    _classes.clear()
    generated = {}
    for name, on in DEFORMERS:
        description = DESCRIPTIONS[name]
        classes = deformer_classes(description)
        _classes.extend(classes)
        generated["use_" + name] = BoolProperty(name=deformer_title(description), default=on, update=_refresh,
                                                description=description["summary"])
        generated[name] = PointerProperty(type=classes[-1])
    HELPER_BONES.clear()
    HELPER_BONES.update(wobble.helper_bones_description())
    helper_classes = deformer_classes(HELPER_BONES)
    _classes.extend(helper_classes)
    generated["helper_bones"] = PointerProperty(type=helper_classes[-1])
    WobbleSettings.__annotations__.update(generated)
    _classes.append(WobbleSettings)
    for cls in _classes:
        bpy.utils.register_class(cls)
    bpy.types.Object.wobble = PointerProperty(type=WobbleSettings)


def unregister():
    del bpy.types.Object.wobble
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
    _classes.clear()
