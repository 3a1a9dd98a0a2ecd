"""Blender's values as wobble's settings values."""
import numpy as np


def number(value):
    """A float property's value as the number the user typed: Blender keeps floats in single
    precision (0.3 is stored as 0.30000001192...), so the shortest decimal that reads back as
    the same single-precision float, as a double (0.3): the settings then equal a settings file
    or command line with the same numbers."""
    return float(str(np.float32(value)))
