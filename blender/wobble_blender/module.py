"""The compiled wobble module. Blender 3.x add-on: the copy packed inside the add-on folder
(wobble_blender.wobble). Blender 4.2+ extension: the top-level `wobble` that Blender installed
from the extension's wheel. A development build: the one on sys.path (PYTHONPATH=build/python)."""
try:
    from . import wobble  # noqa: F401  (legacy add-on: packed beside this file)
except ImportError:
    import wobble  # noqa: F401  (extension wheel, or a development build)
