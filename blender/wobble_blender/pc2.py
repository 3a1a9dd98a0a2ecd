"""PC2 point caches (3ds Max's Point Cache 2, which Blender's Mesh Cache modifier reads): a
32-byte header, then the frames' xyz float32, little-endian.

    char  magic[12]    "POINTCACHE2\\0"
    int32 version      1
    int32 numPoints
    float startFrame   the first sample, in frames
    float sampleRate   frames between samples (1: one sample per frame)
    int32 numSamples
"""
import os
import struct

import numpy as np

MAGIC = b"POINTCACHE2\0"


def write(path, positions, start_frame):
    """Writes positions (F, N, 3), one sample per frame from start_frame, atomically (a failed
    write leaves no file, or the previous one)."""
    frames = np.ascontiguousarray(positions, dtype="<f4")
    if frames.ndim != 3 or frames.shape[2] != 3:
        raise ValueError(f"{path}: positions of shape {frames.shape}, expected (frames, vertices, 3)")
    if not np.isfinite(frames).all():
        frame, vertex = np.argwhere(~np.isfinite(frames).all(axis=2))[0]
        raise ValueError(f"{path}: frame {frame} vertex {vertex} is not finite")
    header = MAGIC + struct.pack("<iiffi", 1, frames.shape[1], float(start_frame), 1.0, frames.shape[0])
    temporary = f"{path}.tmp{os.getpid()}"
    try:
        with open(temporary, "wb") as file:
            file.write(header)
            file.write(frames.tobytes())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
