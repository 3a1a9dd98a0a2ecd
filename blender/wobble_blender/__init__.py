"""wobble for Blender: Dynamic Skinning secondary motion, delayed LBS and Delta Mush on meshes
deformed by an Armature modifier, played in real time and baked to PC2.

Panel: Properties > Object > wobble. Blender 3.4 reads bl_info below; Blender 4.2 and later
install it as an extension (blender_manifest.toml)."""

bl_info = {
    "name": "wobble",
    "author": "wobble developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Object > wobble",
    "description": "Dynamic Skinning secondary motion and Delta Mush for armature-deformed meshes",
    "category": "Animation",
}

from . import bake, panel, playback, properties  # noqa: E402

_modules = (properties, playback, bake, panel)


def register():
    for module in _modules:
        module.register()


def unregister():
    for module in reversed(_modules):
        module.unregister()
