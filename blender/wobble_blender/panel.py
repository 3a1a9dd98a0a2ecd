"""The "wobble" panel in Object properties (meshes with an Armature modifier). One sub-panel per
deformer, drawn from its description at register (properties.py generated the properties):
numbers, integers, choices and tick boxes in the description's order, vertex arrays as a vertex
group search, a per-joint table as a list of bones with the selected bone's fields. Settings
wobble refused show as an error line with wobble's message."""
import bpy
from bpy.props import StringProperty

from . import helper_bones, playback
from .properties import DEFORMERS, DESCRIPTIONS, HELPER_BONES, active_index, deformer_title, shown
from .rig_bridge import armature_modifier


class WOBBLE_UL_joints(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        if "enabled" in item.bl_rna.properties:
            row.prop(item, "enabled", text="")
        row.label(text=item.bone or "(no bone)", icon='BONE_DATA')


def _table(context, deformer, table):
    group = getattr(context.object.wobble, deformer)
    return group, getattr(group, table), active_index(table)


class WOBBLE_OT_joint_add(bpy.types.Operator):
    """Add an entry for a bone (the active pose bone, if any)"""
    bl_idname = "wobble.joint_add"
    bl_label = "Add Bone Entry"
    bl_options = {'REGISTER', 'UNDO'}

    deformer: StringProperty()
    table: StringProperty()

    def execute(self, context):
        group, entries, active = _table(context, self.deformer, self.table)
        item = entries.add()
        pose_bone = context.active_pose_bone
        if pose_bone is not None:
            item.bone = pose_bone.name
        setattr(group, active, len(entries) - 1)
        return {'FINISHED'}


class WOBBLE_OT_joint_remove(bpy.types.Operator):
    """Remove the selected bone's entry"""
    bl_idname = "wobble.joint_remove"
    bl_label = "Remove Bone Entry"
    bl_options = {'REGISTER', 'UNDO'}

    deformer: StringProperty()
    table: StringProperty()

    def execute(self, context):
        group, entries, active = _table(context, self.deformer, self.table)
        index = getattr(group, active)
        if 0 <= index < len(entries):
            entries.remove(index)
            setattr(group, active, max(0, index - 1))
        return {'FINISHED'}


class WobblePanel:
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == 'MESH' and armature_modifier(obj) is not None


class WOBBLE_PT_main(WobblePanel, bpy.types.Panel):
    bl_label = "wobble"

    def draw_header(self, context):
        self.layout.prop(context.object.wobble, "enabled", text="")

    def draw(self, context):
        obj = context.object
        layout = self.layout
        layout.use_property_split = True
        layout.label(text=f"Armature: {armature_modifier(obj).object.name}", icon='ARMATURE_DATA')
        message = playback.error_of(obj)
        if message:
            column = layout.column()
            column.alert = True
            column.label(text=message, icon='ERROR')


def draw_parameter(layout, obj, owner, parameter):
    key = parameter["key"]
    if parameter["type"] == "vertex_array":
        layout.prop_search(owner, key, obj, "vertex_groups")
    else:
        layout.prop(owner, key)


def draw_joint_entry(layout, obj, entry, table):
    layout.use_property_split = True
    layout.prop_search(entry, "bone", armature_modifier(obj).object.data, "bones")
    for field in table["fields"]:
        key = field["key"]
        if field["optional"]:
            row = layout.row(heading=field["key"].replace("_", " ").capitalize())
            row.prop(entry, "use_" + key, text="")
            sub = row.row()
            sub.active = getattr(entry, "use_" + key)
            sub.prop(entry, key, text="")
        else:
            layout.prop(entry, key)


def deformer_panel(name):
    """The sub-panel of one deformer, its header ticking it on and off."""
    description = DESCRIPTIONS[name]

    def draw_header(self, context):
        self.layout.prop(context.object.wobble, "use_" + name, text="")

    def draw(self, context):
        obj = context.object
        layout = self.layout
        layout.use_property_split = True
        layout.active = getattr(obj.wobble, "use_" + name)
        if description["stage"] == "base" and armature_modifier(obj).use_deform_preserve_volume:
            layout.label(text="Replaces linear blending: off with the modifier's Preserve Volume", icon='INFO')
        group = getattr(obj.wobble, name)
        for parameter in filter(shown, description["parameters"]):
            if parameter["type"] != "joint_table":
                draw_parameter(layout, obj, group, parameter)

    return type(f"WOBBLE_PT_{name}", (WobblePanel, bpy.types.Panel),
                {"bl_label": deformer_title(description), "bl_parent_id": "WOBBLE_PT_main",
                 "bl_options": {'DEFAULT_CLOSED'} if name != "dynamic" else set(),
                 "draw_header": draw_header, "draw": draw})


def joint_table_panel(name, table):
    """The sub-panel of a deformer's per-joint table: the bones and the selected one's fields."""
    key = table["key"]

    def draw(self, context):
        obj = context.object
        group = getattr(obj.wobble, name)
        layout = self.layout
        layout.active = getattr(obj.wobble, "use_" + name)
        row = layout.row()
        row.template_list("WOBBLE_UL_joints", f"{name}_{key}", group, key, group, active_index(key), rows=3)
        buttons = row.column(align=True)
        for operator, icon in (("wobble.joint_add", 'ADD'), ("wobble.joint_remove", 'REMOVE')):
            op = buttons.operator(operator, icon=icon, text="")
            op.deformer, op.table = name, key
        entries, index = getattr(group, key), getattr(group, active_index(key))
        if 0 <= index < len(entries):
            draw_joint_entry(layout, obj, entries[index], table)

    return type(f"WOBBLE_PT_{name}_{key}", (WobblePanel, bpy.types.Panel),
                {"bl_label": f"{key.replace('_', ' ').capitalize()}: per-bone settings",
                 "bl_description": table["help"], "bl_parent_id": f"WOBBLE_PT_{name}",
                 "bl_options": {'DEFAULT_CLOSED'}, "draw": draw})


class WOBBLE_PT_loop(WobblePanel, bpy.types.Panel):
    bl_label = "Loop and Pre-roll"
    bl_parent_id = "WOBBLE_PT_main"

    def draw(self, context):
        s = context.object.wobble
        layout = self.layout
        layout.use_property_split = True
        layout.prop(s, "loop")
        column = layout.column()
        column.active = not s.loop  # a loop's history has no beginning
        column.prop(s, "pre_roll")
        row = column.row()
        row.active = s.pre_roll == 'SECONDS'
        row.prop(s, "pre_roll_seconds")


class WOBBLE_PT_bake(WobblePanel, bpy.types.Panel):
    bl_label = "Bake"
    bl_parent_id = "WOBBLE_PT_main"

    def draw(self, context):
        s = context.object.wobble
        layout = self.layout
        layout.prop(s, "bake_path")
        row = layout.row()
        row.operator("wobble.bake", text="Bake to PC2", icon='FILE_CACHE').target = 'PC2'
        row.operator("wobble.bake", text="Bake to Shape Keys", icon='SHAPEKEY_DATA').target = 'SHAPE_KEYS'
        layout.operator("wobble.unbake", icon='X')


class WOBBLE_PT_helper_bones(WobblePanel, bpy.types.Panel):
    """The helper-bone bake: the fit's settings (from its description) and the button."""
    bl_label = "Helper Bones"
    bl_parent_id = "WOBBLE_PT_bake"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        obj = context.object
        layout = self.layout
        layout.use_property_split = True
        for parameter in HELPER_BONES["parameters"]:
            draw_parameter(layout, obj, obj.wobble.helper_bones, parameter)
        layout.operator("wobble.bake", text="Bake to Helper Bones", icon='BONE_DATA').target = 'HELPER_BONES'
        record = obj.get(helper_bones.RECORD)
        if record is not None:
            share = 100 * record["rmse"] / max(record["secondary_rms"], 1e-30)
            layout.label(text=f"{len(record['bones'])} helpers: RMSE {record['rmse']:.3g}, {share:.1f} % of the "
                              "secondary motion", icon='INFO')


_classes = []


def panel_classes():
    """The panels, parents before children, in stack order."""
    panels = [WOBBLE_PT_main]
    for name, _ in DEFORMERS:
        panels.append(deformer_panel(name))
        for parameter in DESCRIPTIONS[name]["parameters"]:
            if parameter["type"] == "joint_table":
                panels.append(joint_table_panel(name, parameter))
    return panels + [WOBBLE_PT_loop, WOBBLE_PT_bake, WOBBLE_PT_helper_bones]


def register():
    _classes[:] = [WOBBLE_UL_joints, WOBBLE_OT_joint_add, WOBBLE_OT_joint_remove] + panel_classes()
    for cls in _classes:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(_classes):
        bpy.utils.unregister_class(cls)
    _classes.clear()
