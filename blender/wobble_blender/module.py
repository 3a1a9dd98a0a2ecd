"""The compiled wobble module: the copy packaged inside the add-on, or one on sys.path (a
development build: PYTHONPATH=build/python)."""
try:
    from . import wobble  # noqa: F401  (the packaged wobble.cpython-311-*.so)
except ImportError:
    import wobble  # noqa: F401
