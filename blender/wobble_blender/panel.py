"""The "wobble" panel in Object properties (meshes with an Armature modifier)."""
import bpy

from .rig_bridge import armature_modifier


class WOBBLE_UL_overrides(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        row = layout.row(align=True)
        row.prop(item, "enabled", text="")
        row.label(text=item.bone or "(no bone)", icon='BONE_DATA')


class WOBBLE_OT_override_add(bpy.types.Operator):
    """Add per-bone settings"""
    bl_idname = "wobble.override_add"
    bl_label = "Add Bone Override"
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        s = context.object.wobble
        item = s.overrides.add()
        pose_bone = context.active_pose_bone
        if pose_bone is not None:
            item.bone = pose_bone.name
        s.active_override = len(s.overrides) - 1
        return {'FINISHED'}


class WOBBLE_OT_override_remove(bpy.types.Operator):
    """Remove the selected per-bone settings"""
    bl_idname = "wobble.override_remove"
    bl_label = "Remove Bone Override"
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        s = context.object.wobble
        if 0 <= s.active_override < len(s.overrides):
            s.overrides.remove(s.active_override)
            s.active_override = max(0, s.active_override - 1)
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
        s = context.object.wobble
        layout = self.layout
        layout.use_property_split = True
        layout.label(text=f"Armature: {armature_modifier(context.object).object.name}", icon='ARMATURE_DATA')


class WOBBLE_PT_dynamic(WobblePanel, bpy.types.Panel):
    bl_label = "Dynamic Skinning"
    bl_parent_id = "WOBBLE_PT_main"

    def draw_header(self, context):
        self.layout.prop(context.object.wobble, "use_dynamic", text="")

    def draw(self, context):
        obj = context.object
        s = obj.wobble
        layout = self.layout
        layout.use_property_split = True
        layout.active = s.use_dynamic
        column = layout.column(align=True)
        for name in ("frequency", "damping", "amplitude", "drag"):
            column.prop(s, name)
        layout.prop(s, "max_angle")
        layout.prop_search(s, "bend_group", obj, "vertex_groups")
        row = layout.row(heading="Delayed LBS")
        row.prop(s, "use_dlbs", text="")
        sub = row.row()
        sub.active = s.use_dlbs
        sub.prop(s, "wave_speed")


class WOBBLE_PT_bones(WobblePanel, bpy.types.Panel):
    bl_label = "Bone Overrides"
    bl_parent_id = "WOBBLE_PT_dynamic"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        obj = context.object
        s = obj.wobble
        layout = self.layout
        row = layout.row()
        row.template_list("WOBBLE_UL_overrides", "", s, "overrides", s, "active_override", rows=3)
        buttons = row.column(align=True)
        buttons.operator("wobble.override_add", icon='ADD', text="")
        buttons.operator("wobble.override_remove", icon='REMOVE', text="")
        if 0 <= s.active_override < len(s.overrides):
            item = s.overrides[s.active_override]
            layout.use_property_split = True
            armature = armature_modifier(obj).object
            layout.prop_search(item, "bone", armature.data, "bones")
            column = layout.column(align=True)
            for name in ("frequency_scale", "damping_scale", "amplitude_scale", "drag_scale"):
                column.prop(item, name)


class WOBBLE_PT_mush(WobblePanel, bpy.types.Panel):
    bl_label = "Delta Mush"
    bl_parent_id = "WOBBLE_PT_main"
    bl_options = {'DEFAULT_CLOSED'}

    def draw_header(self, context):
        self.layout.prop(context.object.wobble, "use_mush", text="")

    def draw(self, context):
        obj = context.object
        s = obj.wobble
        layout = self.layout
        layout.use_property_split = True
        layout.active = s.use_mush
        for name in ("mush_mode", "mush_smoothing", "mush_iterations", "mush_step", "mush_scale", "mush_pin_boundary"):
            layout.prop(s, name)
        layout.prop_search(s, "mush_group", obj, "vertex_groups")
        layout.prop(s, "mush_invert")


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


classes = (WOBBLE_UL_overrides, WOBBLE_OT_override_add, WOBBLE_OT_override_remove, WOBBLE_PT_main,
           WOBBLE_PT_dynamic, WOBBLE_PT_bones, WOBBLE_PT_mush, WOBBLE_PT_loop, WOBBLE_PT_bake)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
