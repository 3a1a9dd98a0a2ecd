"""Makes the pictures of docs/blender.md with Blender's own UI under Xvfb (not part of the tests):

    xvfb-run -a -s '-screen 0 1300x1500x24' blender --factory-startup --python make_doc_images.py -- \
        build/blender/wobble_blender_legacy.zip build/assets/clonk.glb docs/images

Writes blender_panel_MAJOR_MINOR.png (the wobble panel next to the viewport, in the Blender that
ran: blender_panel_3_4.png, blender_panel_4_3.png) and blender_effect.png (a Workbench render:
the Armature modifier alone on the left, with wobble on the right).
Uses a scratch user folder for the add-on when BLENDER_USER_SCRIPTS is set. In Blender 4.3
(scripts/blender4.sh in place of blender), install the extension first and name its module
(Blender 4's screenshot operator reads back a black window under Xvfb's software OpenGL, so there
the host's ffmpeg grabs the X screen instead; the panel is slower to appear there):

    export BLENDER_USER_RESOURCES=$(mktemp -d) WOBBLE_ADDON_MODULE=bl_ext.user_default.wobble_blender
    scripts/blender4.sh --command extension install-file -r user_default -e build/blender/wobble_blender.zip
    WOBBLE_CAPTURE_DELAY=30 xvfb-run -a -s '-screen 0 1300x1500x24' scripts/blender4.sh --factory-startup \
        --python $PWD/tests/blender_addon/make_doc_images.py -- - $PWD/build/assets/clonk.glb /tmp/images
"""
import os
import subprocess
import sys

import bpy
import numpy

numpy.bool = bool  # Debian 12's glTF importer with numpy 1.24 (outside the add-on)

bpy.context.preferences.view.show_splash = False
zip_path, character_path, out_dir = sys.argv[sys.argv.index("--") + 1:][:3]
os.makedirs(out_dir, exist_ok=True)
FRAME = 13

module = os.environ.get("WOBBLE_ADDON_MODULE")
if module is None:
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    module = "wobble_blender"
bpy.ops.preferences.addon_enable(module=module)

for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
scene = bpy.context.scene
scene.render.fps = 30


def import_character(x_offset):
    before = set(bpy.data.objects)
    bpy.ops.import_scene.gltf(filepath=character_path)
    new = [o for o in bpy.data.objects if o not in before]
    # The skinned mesh (Blender 4's importer also adds icospheres, the bones' display shapes).
    mesh = next(o for o in new if o.type == 'MESH' and any(m.type == 'ARMATURE' for m in o.modifiers))
    for o in new:
        if o.type == 'ARMATURE':
            for bone in o.pose.bones:
                bone.location, bone.rotation_quaternion, bone.scale = (0, 0, 0), (1, 0, 0, 0), (1, 1, 1)
        if o.animation_data is not None:
            track = o.animation_data.nla_tracks.get("Run")
            o.animation_data.action = track.strips[0].action if track is not None else None
    for o in new:
        if o.parent is None:
            o.location.x += x_offset
    return mesh


plain = import_character(-11.0)
wobbly = import_character(11.0)
s = wobbly.wobble
s.dynamic.frequency, s.dynamic.damping, s.dynamic.amplitude, s.dynamic.drag = 3.0, 0.5, 1.0, 0.3
scene.frame_start, scene.frame_end = 0, 40
bpy.context.view_layer.objects.active = wobbly
wobbly.select_set(True)
s.enabled = True
for frame in range(0, FRAME + 1):
    scene.frame_set(frame)

# A Workbench render of both, from the front.
bpy.ops.object.camera_add(location=(0, -60, 10), rotation=(1.5708, 0, 0))
scene.camera = bpy.context.object
scene.camera.data.lens = 50
scene.render.engine = 'BLENDER_WORKBENCH'
scene.render.resolution_x, scene.render.resolution_y = 640, 400
scene.display.shading.color_type = 'OBJECT'
plain.color = (0.55, 0.6, 0.7, 1)
wobbly.color = (0.9, 0.55, 0.35, 1)
scene.render.filepath = os.path.join(out_dir, "blender_effect.png")
bpy.ops.render.render(write_still=True)


def screenshot():
    try:
        bpy.context.view_layer.objects.active = wobbly
        screen = bpy.context.window_manager.windows[0].screen
        for area in screen.areas:
            if area.type == 'PROPERTIES':
                area.spaces.active.context = 'OBJECT'
            if area.type == 'VIEW_3D':
                space = area.spaces.active
                space.shading.type = 'SOLID'
                space.shading.color_type = 'OBJECT'
                space.overlay.show_floor = False
                space.overlay.show_bones = False
                space.region_3d.view_perspective = 'CAMERA'
            area.tag_redraw()
        bpy.app.timers.register(capture, first_interval=float(os.environ.get("WOBBLE_CAPTURE_DELAY", "1.5")))
    except Exception as error:  # never leave Blender running
        print(f"make_doc_images: {error}")
        bpy.ops.wm.quit_blender()


def grab_screen(path):
    """The X screen as the host's ffmpeg grabs it (through WOBBLE_HOST_ROOT in Blender 4's tree)."""
    window = bpy.context.window_manager.windows[0]
    command = ["ffmpeg", "-loglevel", "error", "-y", "-f", "x11grab", "-draw_mouse", "0", "-video_size", f"{window.width}x{window.height}",
               "-i", os.environ["DISPLAY"], "-frames:v", "1", path]
    host = os.environ.get("WOBBLE_HOST_ROOT")
    subprocess.run((["chroot", host] if host else []) + command, check=True)


def capture():
    path = os.path.join(out_dir, "blender_panel_{}_{}.png".format(*bpy.app.version[:2]))
    try:
        if bpy.app.version >= (4, 0, 0):
            grab_screen(path)
        else:
            bpy.ops.screen.screenshot(filepath=path, check_existing=False)
    finally:
        bpy.ops.wm.quit_blender()


bpy.app.timers.register(screenshot, first_interval=1.0)
