"""wobble: secondary motion and better deformation for skinned characters (numpy in and out).

The package re-exports its compiled module, wobble._wobble (characters, poses, deformer stacks,
bakes, physics: docs/python.md), and has wobble.batch: many bakes from one manifest, on this
machine or on a Dask cluster (docs/batch.md), imported when first used.
"""
import importlib as _importlib

from . import _wobble
from ._wobble import *  # noqa: F401,F403
from ._wobble import __version__  # noqa: F401

# wobble.Error, wobble.Character: the names people use, in messages and reprs too.
for _value in vars(_wobble).values():
    if isinstance(_value, type) and _value.__module__ == _wobble.__name__:
        _value.__module__ = __name__
del _value


def __getattr__(name):
    # Lazily, so that `python3 -m wobble.batch` does not import the module twice.
    if name == "batch":
        return _importlib.import_module(".batch", __name__)
    raise AttributeError(f"module 'wobble' has no attribute '{name}'")
