"""The pieces the add-on's headless Blender tests share: installing the add-on from its zip,
the bundled character with one clip on every object it animates, playing frames, keys that
Blender interpolates as glTF does, and `wobble bake` of the same clip in Blender's axes.

Imported by the test scripts, which Blender runs with --python (so: sys.path gets this folder)."""
import importlib
import json
import os
import struct
import subprocess

import bpy
import numpy

# Debian 12's glTF importer needs this with numpy 1.24 (a workaround for the tests only).
numpy.bool = bool
np = numpy

SAMPLE_RATE = 60  # Hz: Dynamic Skinning samples the joints' motion every 1/60 s (wobble.hpp: kDynamicSampleRate)
# glTF (x, y, z) is Blender (x, -z, y).
Y_UP_TO_Z_UP = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.float64)


def checker(name):
    """check(condition, message): prints "NAME: ok: message", or exits with "NAME: FAILED"."""
    def check(condition, message):
        if not condition:
            raise SystemExit(f"{name}: FAILED: {message}")
        print(f"{name}: ok: {message}")
    return check


def install_addon(zip_path):
    """Enables the add-on and returns its package. Blender 3.x: installed here from the legacy zip
    (the user's way: Preferences > Add-ons > Install). Blender 4.x: the test driver installed the
    extension zip with `blender --command extension install-file` and names its module in
    WOBBLE_ADDON_MODULE (bl_ext.user_default.wobble_blender)."""
    module = os.environ.get("WOBBLE_ADDON_MODULE")
    if module is None:
        bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
        module = "wobble_blender"
    bpy.ops.preferences.addon_enable(module=module)
    return importlib.import_module(module)


def host_command(argv):
    """A command of this machine: in Blender 4.3's tree (scripts/blender4.sh) the host's own root
    is at WOBBLE_HOST_ROOT, where the wobble CLI built here finds its libraries."""
    host = os.environ.get("WOBBLE_HOST_ROOT")
    return ["chroot", host, *argv] if host else list(argv)


def cli_json(cli, *arguments):
    """The JSON a `wobble` command prints (`wobble deformers --json`, `wobble info FILE --json`)."""
    result = subprocess.run(host_command([cli, *arguments]), check=True, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    return json.loads(result.stdout)


def read_pc2(path):
    """A PC2 point cache's frames (F, N, 3) float32 (its 32-byte header, then xyz float32)."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:12] != b"POINTCACHE2\0":
        raise SystemExit(f"{path}: not a PC2 file")
    _, points, _, _, samples = struct.unpack("<iiffi", data[12:32])
    return np.frombuffer(data, dtype="<f4", offset=32).reshape(samples, points, 3)


def import_character(character_path, clip, fps, first_frame, last_frame):
    """The character imported from glTF (Y up -> Blender's Z up) into an empty scene, the clip's
    action on every object it animates (the importer stashes each clip on NLA tracks) and
    un-keyed bones at rest (glTF's rule; Blender would keep their last pose). Returns the mesh."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = fps, 1.0
    bpy.ops.import_scene.gltf(filepath=character_path)
    mesh_obj = next(o for o in scene.objects if o.type == 'MESH' and any(m.type == 'ARMATURE' for m in o.modifiers))
    for obj in scene.objects:
        if obj.type == 'ARMATURE':
            for bone in obj.pose.bones:
                bone.location, bone.rotation_quaternion, bone.scale = (0, 0, 0), (1, 0, 0, 0), (1, 1, 1)
    for obj in scene.objects:
        if obj.animation_data is not None:
            track = obj.animation_data.nla_tracks.get(clip)
            obj.animation_data.action = track.strips[0].action if track is not None else None
    scene.frame_start, scene.frame_end = first_frame, last_frame
    bpy.context.view_layer.objects.active = mesh_obj
    return mesh_obj


def world_positions(mesh_obj):
    """The evaluated mesh: world-space (float64) and object-space (float32) positions."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = mesh_obj.evaluated_get(depsgraph)
    m = evaluated.to_mesh()
    co = np.empty(len(m.vertices) * 3, dtype=np.float32)
    m.vertices.foreach_get("co", co)
    world = np.array(evaluated.matrix_world, dtype=np.float64)
    evaluated.to_mesh_clear()
    local = co.reshape(-1, 3).astype(np.float64)
    return local @ world[:3, :3].T + world[:3, 3], co.reshape(-1, 3)


def play(mesh_obj, frames):
    """World and object-space positions of each frame, set in the order given."""
    world, local = [], []
    for frame in frames:
        bpy.context.scene.frame_set(frame)
        w, l = world_positions(mesh_obj)
        world.append(w)
        local.append(l)
    return np.array(world), np.array(local)


def slerp_rows(a, b, u):
    """Shortest-path spherical interpolation of quaternion rows (glTF's rule for rotations)."""
    d = np.sum(a * b, axis=1)
    b = b * np.where(d < 0, -1.0, 1.0)[:, None]
    angle = np.arccos(np.clip(np.abs(d), 0.0, 1.0))
    s = np.sin(angle)
    near = s < 1e-6  # nearly equal keys: linear is exact there
    safe = np.where(near, 1.0, s)
    wa = np.where(near, 1 - u, np.sin((1 - u) * angle) / safe)
    wb = np.where(near, u, np.sin(u * angle) / safe)
    return wa[:, None] * a + wb[:, None] * b


def snapshot_keys(scene):
    """The imported keys of the scene's actions: {(action, data_path): (times in seconds, values (K, C))},
    the curves of a path in array order."""
    fps = scene.render.fps / scene.render.fps_base
    keys = {}
    for action in {o.animation_data.action for o in scene.objects if o.animation_data and o.animation_data.action}:
        by_path = {}
        for fc in action.fcurves:
            by_path.setdefault(fc.data_path, []).append(fc)
        for path, curves in by_path.items():
            curves.sort(key=lambda fc: fc.array_index)
            frames = sorted({kp.co[0] for fc in curves for kp in fc.keyframe_points})
            values = np.array([[fc.evaluate(f) for fc in curves] for f in frames], dtype=np.float64)
            keys[(action, path)] = (np.array(frames) / fps, values)
    return keys


def key_clip(scene, keys, times, fps):
    """Keys at `times` (s) for a scene at `fps`, interpolated as glTF does between the imported
    keys: spherically for rotations (Blender would interpolate quaternion components one by one),
    linearly for the rest, constant outside them. The importer turns each glTF rotation into
    Blender's by fixed rotations on both sides, which slerp commutes with, so slerp in Blender's
    values is the file's slerp."""
    times = np.asarray(times, dtype=np.float64)
    for (action, path), (key_times, values) in keys.items():
        clamped = np.clip(times, key_times[0], key_times[-1])
        k = np.clip(np.searchsorted(key_times, clamped, side='right') - 1, 0, max(len(key_times) - 2, 0))
        if len(key_times) < 2:
            interpolated = np.repeat(values[:1], len(times), axis=0)
        else:
            u = np.clip((clamped - key_times[k]) / np.maximum(key_times[k + 1] - key_times[k], 1e-12), 0.0, 1.0)
            if path.endswith("rotation_quaternion") and values.shape[1] == 4:
                interpolated = slerp_rows(values[k], values[k + 1], u)
            else:
                interpolated = values[k] + u[:, None] * (values[k + 1] - values[k])
        curves = sorted((fc for fc in action.fcurves if fc.data_path == path), key=lambda fc: fc.array_index)
        for column, fc in enumerate(curves):
            points = fc.keyframe_points
            while len(points):
                points.remove(points[0], fast=True)
            points.add(len(times))
            points.foreach_set("co", np.column_stack([times * fps, interpolated[:, column]]).astype(np.float32).ravel())
            for point in points:
                point.interpolation = 'LINEAR'
            fc.update()


def key_clip_on_samples(scene, keys, span_seconds, fps):
    """key_clip of the imported `keys` (snapshot_keys) on every frame time and every 60 Hz sample
    time of [0, span] (and one sample beyond each end): Blender's rig is then the file's clip at
    every instant the effect reads."""
    frame_times = [k / fps for k in range(int(round(span_seconds * fps)) + 1)]
    sample_times = [n / SAMPLE_RATE for n in range(-1, int(span_seconds * SAMPLE_RATE) + 2)]
    key_clip(scene, keys, sorted(set(round(t, 9) for t in frame_times + sample_times)), fps)


class CliBake:
    """`wobble bake` of a clip's frames 0..last_frame at fps, in Blender's axes, on the vertices
    Blender's importer keeps (`used`: per primitive, the used ones in index order)."""

    def __init__(self, cli, character_path, clip, scratch, used):
        self.cli, self.character_path, self.clip, self.scratch, self.used = cli, character_path, clip, scratch, used

    def __call__(self, stack, flags, name, fps, last_frame):
        out = os.path.join(self.scratch, name)
        subprocess.run(host_command([self.cli, "bake", self.character_path, "--clip", self.clip, "--fps", str(fps),
                                     "--end", str(last_frame / fps), "--deformer", stack, *flags, "--quiet", "-o", out]),
                       check=True)
        return (read_pc2(out).astype(np.float64) @ Y_UP_TO_Z_UP.T)[:, self.used]
