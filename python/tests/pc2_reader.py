"""An independent PC2 reader for the module's tests (not wobble's): a 32-byte header, then float32
[frames][vertices][3]."""
import struct

import numpy as np


def read_pc2_raw(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:12] == b"POINTCACHE2\0"
    _, vertices, _, _, frames = struct.unpack("<iiffi", data[12:32])
    return np.frombuffer(data, dtype="<f4", offset=32).reshape(frames, vertices, 3)
