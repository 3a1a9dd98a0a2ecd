#!/usr/bin/python3
"""A skinned tube as a GLB of about N vertices, for benchmarks that need one file both wobble and
three.js's GLTFLoader read (scripts/bench-web.sh): a closed cylinder along y, a chain of 8 bones
up its axis, each vertex weighted between the two nearest bones (4 influences, 2 used), and a clip
"Walk" of 1 s that swings every bone about z (31 linear keys).
Usage: make_tube_glb.py OUT.glb [VERTICES]   (default 100000)"""
import json
import struct
import sys

import numpy as np

BONES = 8
HEIGHT = 2.0


def tube(vertex_count):
    sides = 250
    rings = max(2, vertex_count // sides)
    angle = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    y = np.linspace(0, HEIGHT, rings)
    a, yy = np.meshgrid(angle, y)
    radius = 0.25 + 0.01 * np.sin(9 * a) * np.sin(31 * yy)
    positions = np.stack([radius * np.cos(a), yy, radius * np.sin(a)], axis=-1).reshape(-1, 3)
    normals = np.stack([np.cos(a), np.zeros_like(a), np.sin(a)], axis=-1).reshape(-1, 3)
    r, s = np.meshgrid(np.arange(rings - 1), np.arange(sides), indexing='ij')
    at = lambda r, s: r * sides + s % sides
    quads = [at(r, s), at(r + 1, s), at(r + 1, s + 1), at(r, s + 1)]
    triangles = np.stack([quads[0], quads[1], quads[2], quads[0], quads[2], quads[3]], axis=-1).reshape(-1, 3)
    return positions.astype(np.float32), normals.astype(np.float32), triangles.astype(np.uint32)


def skin(positions):
    step = HEIGHT / BONES
    u = np.clip(positions[:, 1] / step - 0.5, 0, BONES - 1)
    lower = np.minimum(np.floor(u).astype(np.uint16), BONES - 2)
    f = (u - lower).astype(np.float32)
    joints = np.zeros((len(positions), 4), np.uint16)
    weights = np.zeros((len(positions), 4), np.float32)
    joints[:, 0], joints[:, 1] = lower, lower + 1
    weights[:, 0], weights[:, 1] = 1 - f, f
    joints[weights == 0] = 0  # glTF: an unused influence names joint 0
    return joints, weights


def walk():
    times = np.linspace(0, 1, 31, dtype=np.float32)
    rotations = []
    for j in range(BONES):
        half = 0.5 * (0.3 * np.sin(2 * np.pi * times + j))
        q = np.zeros((len(times), 4), np.float32)  # x y z w about z
        q[:, 2], q[:, 3] = np.sin(half), np.cos(half)
        rotations.append(q)
    return times, rotations


def main():
    out = sys.argv[1]
    positions, normals, triangles = tube(int(sys.argv[2]) if len(sys.argv) > 2 else 100_000)
    joints, weights = skin(positions)
    times, rotations = walk()
    step = HEIGHT / BONES
    inverse_bind = np.tile(np.eye(4, dtype=np.float32), (BONES, 1, 1))
    inverse_bind[:, 3, 1] = -step * np.arange(BONES)  # column-major: translation in row 3
    blobs, views, accessors = [], [], []

    def add(array, kind, component, target=None, bounds=False):
        data = np.ascontiguousarray(array).tobytes()
        offset = sum(len(b) for b in blobs)
        blobs.append(data + b'\0' * (-len(data) % 4))
        view = {'buffer': 0, 'byteOffset': offset, 'byteLength': len(data)}
        if target:
            view['target'] = target
        views.append(view)
        accessor = {'bufferView': len(views) - 1, 'componentType': component, 'count': len(array), 'type': kind}
        if bounds:
            accessor['min'], accessor['max'] = array.min(axis=0).tolist(), array.max(axis=0).tolist()
        accessors.append(accessor)
        return len(accessors) - 1

    attributes = {'POSITION': add(positions, 'VEC3', 5126, 34962, bounds=True), 'NORMAL': add(normals, 'VEC3', 5126, 34962),
                  'JOINTS_0': add(joints, 'VEC4', 5123, 34962), 'WEIGHTS_0': add(weights, 'VEC4', 5126, 34962)}
    indices = add(triangles.reshape(-1), 'SCALAR', 5125, 34963)
    matrices = add(inverse_bind.reshape(BONES, 16), 'MAT4', 5126)
    time_accessor = add(times, 'SCALAR', 5126)
    accessors[time_accessor]['min'], accessors[time_accessor]['max'] = [0.0], [1.0]
    bones = [{'name': f'bone{j}', 'translation': [0, step if j else 0, 0]} | ({'children': [j + 2]} if j + 1 < BONES else {})
             for j in range(BONES)]
    channels, samplers = [], []
    for j in range(BONES):
        samplers.append({'input': time_accessor, 'output': add(rotations[j], 'VEC4', 5126), 'interpolation': 'LINEAR'})
        channels.append({'sampler': j, 'target': {'node': j + 1, 'path': 'rotation'}})
    gltf = {
        'asset': {'version': '2.0', 'generator': 'wobble bench/make_tube_glb.py'},
        'scene': 0, 'scenes': [{'nodes': [0, 1]}],
        'nodes': [{'name': 'tube', 'mesh': 0, 'skin': 0}] + bones,
        'meshes': [{'primitives': [{'attributes': attributes, 'indices': indices}]}],
        'skins': [{'joints': list(range(1, BONES + 1)), 'inverseBindMatrices': matrices, 'skeleton': 1}],
        'animations': [{'name': 'Walk', 'channels': channels, 'samplers': samplers}],
        'buffers': [{'byteLength': sum(len(b) for b in blobs)}], 'bufferViews': views, 'accessors': accessors,
    }
    text = json.dumps(gltf).encode()
    text += b' ' * (-len(text) % 4)
    binary = b''.join(blobs)
    with open(out, 'wb') as f:
        f.write(struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(binary)))
        f.write(struct.pack('<II', len(text), 0x4E4F534A) + text)
        f.write(struct.pack('<II', len(binary), 0x004E4942) + binary)
    print(f'make_tube_glb: {out}: {len(positions)} vertices, {len(triangles)} triangles, {BONES} bones')


if __name__ == '__main__':
    main()
