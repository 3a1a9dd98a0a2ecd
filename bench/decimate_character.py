"""A skinned character with fewer vertices, by Blender's Decimate modifier (edge collapse), its
skeleton, skin and clips kept: the modifier interpolates the vertex groups, so the skin follows.
For bench/decompose_vs_dem_bones.py, which needs the issue's scale case (a 754-vertex animation of
400 frames) and has no asset of that size: vs_cow.glb (3,225 vertices) at RATIO 0.1937 gives 754
in Blender 3.4 (the result is deterministic), its clip still 13.3 s long.

    blender --background --python bench/decimate_character.py -- IN.glb OUT.glb RATIO
"""
import sys

import numpy

if not hasattr(numpy, "bool"):  # Debian 12's Blender 3.4 importer still says np.bool (numpy 1.24+ lacks it)
    numpy.bool = bool

import bpy  # noqa: E402  (Blender's own module, after the shim)


def main():
    source, out, ratio = sys.argv[sys.argv.index("--") + 1:][:3]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    # Blender keys the imported clips on its frames and exports them sampled at its frame rate:
    # at 30 fps the 10 Hz keys of the velocity-skinning clips stay on frames and the clip's length
    # is kept (at the default 24 fps, vs_cow's 13.3 s became 13.29 s).
    bpy.context.scene.render.fps = 30
    bpy.ops.import_scene.gltf(filepath=source)
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    if len(meshes) != 1:
        sys.exit(f"decimate_character: {source} has {len(meshes)} meshes, expected one")
    mesh = meshes[0]
    bpy.context.view_layer.objects.active = mesh
    decimate = mesh.modifiers.new("decimate", "DECIMATE")
    decimate.ratio = float(ratio)
    while mesh.modifiers.find("decimate") > 0:  # before the armature: the rest pose is decimated
        bpy.ops.object.modifier_move_up(modifier="decimate")
    bpy.ops.object.modifier_apply(modifier="decimate")
    bpy.ops.export_scene.gltf(filepath=out, export_format="GLB", export_animations=True)


main()
