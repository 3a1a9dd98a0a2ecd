"""The wobble API the add-on uses: wobble's C API through ctypes (runtime.py), on the library
packed beside the add-on's files (libwobble_blender.so), in Blender 3.x and 4.x alike."""
from . import runtime as wobble  # noqa: F401
