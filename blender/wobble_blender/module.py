"""The wobble Python package: the copy packaged inside the add-on (wobble_blender/wobble/), or
one on sys.path (a development build: PYTHONPATH=build/python)."""
try:
    from . import wobble  # noqa: F401  (the packaged wobble/__init__.py and _wobble.cpython-311-*.so)
except ImportError:
    import wobble  # noqa: F401
