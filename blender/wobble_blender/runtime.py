"""wobble's C API (include/wobble/wobble.h, wobble_offline.h) through ctypes: the deformers the
add-on runs, and helper bones for its bakes.

The library beside this file (libwobble_blender.so: wobble's runtime, needing only the C
library) has a C interface, so one binary serves every Python a Blender embeds (3.11 in Debian
12's Blender 3.4 and the official 4.2 to 5.x builds, 3.13 in Debian 13's 4.3): nothing here
depends on Python's version. The classes are the small part of the `wobble` Python package's
interface the add-on uses (Character.from_arrays, Pose.from_world, Stack, deformers()), so that
the add-on reads the same either way; helper_bones() fits helper bones to a bake.

Matrices are numpy (J, 4, 4) arrays, row-major as Blender's; the C API takes them column-major.
"""
import ctypes
import json
import os

import numpy as np

LIBRARY = "libwobble_blender.so"


class Error(RuntimeError):
    """A failure wobble reports (its message names what is wrong)."""


class _SkinnedMesh(ctypes.Structure):
    _fields_ = [("vertex_count", ctypes.c_uint32), ("positions", ctypes.c_void_p), ("positions_stride", ctypes.c_size_t),
                ("normals", ctypes.c_void_p), ("normals_stride", ctypes.c_size_t), ("triangle_count", ctypes.c_uint32),
                ("triangles", ctypes.c_void_p), ("joint_count", ctypes.c_uint32), ("joint_parents", ctypes.c_void_p),
                ("inverse_bind_matrices", ctypes.c_void_p), ("influences_per_vertex", ctypes.c_uint32),
                ("influence_joints", ctypes.c_void_p), ("influence_weights", ctypes.c_void_p)]


class _Frame(ctypes.Structure):
    _fields_ = [("time", ctypes.c_double), ("joint_world_matrices", ctypes.c_void_p), ("joint_count", ctypes.c_uint32),
                ("joint_local_transforms", ctypes.c_void_p)]


class _BakedFrames(ctypes.Structure):
    _fields_ = [("frame_count", ctypes.c_uint32), ("times", ctypes.c_void_p), ("joint_world_matrices", ctypes.c_void_p),
                ("positions", ctypes.c_void_p)]


class _HelperBonesResult(ctypes.Structure):
    _fields_ = [("helper_count", ctypes.c_uint32), ("frame_count", ctypes.c_uint32),
                ("influences_per_vertex", ctypes.c_uint32), ("parents", ctypes.POINTER(ctypes.c_int32)),
                ("inverse_bind_matrices", ctypes.POINTER(ctypes.c_float)),
                ("local_transforms", ctypes.POINTER(ctypes.c_float)), ("influence_joints", ctypes.POINTER(ctypes.c_uint16)),
                ("influence_weights", ctypes.POINTER(ctypes.c_float)), ("rmse", ctypes.c_double),
                ("secondary_rms", ctypes.c_double)]


_SAMPLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_float), ctypes.c_uint32,
                            ctypes.c_void_p)
_NO_SAMPLER = _SAMPLER()  # NULL
_WARNING = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)
_handle = ctypes.c_void_p
_text = ctypes.POINTER(ctypes.c_char_p)
# Each function's arguments (all return wobble_status, an int; 0 is success).
_SIGNATURES = {
    "wobble_character_create": (ctypes.POINTER(_SkinnedMesh), ctypes.POINTER(_handle)),
    "wobble_character_destroy": (_handle,),
    "wobble_character_set_joint_names": (_handle, ctypes.POINTER(ctypes.c_char_p), ctypes.c_uint32),
    "wobble_stack_create": (_handle, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.POINTER(_handle)),
    "wobble_stack_destroy": (_handle,),
    "wobble_stack_evaluate": (_handle, ctypes.POINTER(_Frame), ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                              ctypes.c_size_t),
    "wobble_stack_reset": (_handle,),
    "wobble_stack_set_pose_sampler": (_handle, _SAMPLER, ctypes.c_void_p),
    "wobble_stack_start_periodic": (_handle, ctypes.c_double, ctypes.c_double),
    "wobble_stack_update": (_handle, ctypes.c_char_p, _text),
    "wobble_stack_settings": (_handle, _text),
    "wobble_deformer_descriptions": (_text,),
    "wobble_set_warning_callback": (_WARNING, ctypes.c_void_p),
    # wobble/wobble_offline.h
    "wobble_helper_bones_fit": (_handle, ctypes.POINTER(_BakedFrames), ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int,
                                ctypes.c_uint32, ctypes.POINTER(_handle)),
    "wobble_helper_bones_destroy": (_handle,),
    "wobble_helper_bones_get": (_handle, ctypes.POINTER(_HelperBonesResult)),
    "wobble_helper_bones_description": (_text,),
}


def _load(folder):
    library = ctypes.CDLL(os.path.join(folder, LIBRARY))
    for name, arguments in _SIGNATURES.items():
        function = getattr(library, name)
        function.argtypes, function.restype = arguments, ctypes.c_int
    library.wobble_last_error.argtypes, library.wobble_last_error.restype = (), ctypes.c_char_p
    library.wobble_version.argtypes, library.wobble_version.restype = (), ctypes.c_char_p
    return library


_lib = _load(os.path.dirname(os.path.abspath(__file__)))
__version__ = _lib.wobble_version().decode()


@_WARNING
def _print_warning(message, _user):
    print(f"wobble: {message.decode(errors='replace')}")


_lib.wobble_set_warning_callback(_print_warning, None)  # wobble's repairs go where the add-on's messages go


def _call(function, *arguments):
    if function(*arguments) != 0:
        raise Error(_lib.wobble_last_error().decode(errors="replace"))


def _column_major(matrices, count, what):
    """(count, 4, 4) row-major matrices as the C API's 16 floats per matrix, column by column."""
    m = np.asarray(matrices, dtype=np.float32)
    if m.shape != (count, 4, 4):
        raise Error(f"{what}: expected ({count}, 4, 4) matrices, got the shape {m.shape}")
    return np.ascontiguousarray(m.transpose(0, 2, 1))


def _pointer(array):
    return array.ctypes.data_as(ctypes.c_void_p)


def deformers():
    """Every deformer's description, as `wobble deformers --json`."""
    text = ctypes.c_char_p()
    _call(_lib.wobble_deformer_descriptions, ctypes.byref(text))
    return json.loads(text.value)


def helper_bones_description():
    """The helper-bone fit's parameters (bones, influences, ...), as one deformer of deformers()."""
    text = ctypes.c_char_p()
    _call(_lib.wobble_helper_bones_description, ctypes.byref(text))
    return json.loads(text.value)


class HelperBones:
    """A helper-bone fit (wobble_helper_bones_result), copied into numpy arrays. Helper h is joint
    J + h of the extended skeleton (J: the character's joints)."""

    def __init__(self, result, vertex_count):
        h, f, k = result.helper_count, result.frame_count, result.influences_per_vertex
        self.parents = np.ctypeslib.as_array(result.parents, (h,)).copy()  # the character joint each follows
        inverse_bind = np.ctypeslib.as_array(result.inverse_bind_matrices, (h, 4, 4))
        self.inverse_bind = inverse_bind.transpose(0, 2, 1).astype(np.float64)  # row-major
        self.local = np.ctypeslib.as_array(result.local_transforms, (f, h, 10)).astype(np.float64)
        # The refitted skin, (N, K): joint J + h is helper h; zero weights are unused slots.
        self.joints = np.ctypeslib.as_array(result.influence_joints, (vertex_count, k)).astype(np.int64)
        self.weights = np.ctypeslib.as_array(result.influence_weights, (vertex_count, k)).copy()
        self.rmse, self.secondary_rms = result.rmse, result.secondary_rms

    def local_matrices(self):
        """Each helper's transform relative to its parent in each frame, (F, H, 4, 4) row-major."""
        t, q, s = self.local[..., 0:3], self.local[..., 3:7], self.local[..., 7:10]
        x, y, z, w = (q[..., i] for i in range(4))
        rotation = np.stack([
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], axis=-1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], axis=-1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=-1)], axis=-2)
        m = np.zeros(self.local.shape[:2] + (4, 4))
        m[..., :3, :3] = rotation * s[..., None, :]
        m[..., :3, 3] = t
        m[..., 3, 3] = 1.0
        return m


def helper_bones(character, times, world, positions, settings=None, joints_weighted=None, periodic=False, threads=1):
    """Helper bones for a host's bake of `character` (wobble_helper_bones_fit): times (F,) in s,
    the joints' world matrices (F, J, 4, 4) row-major and the deformed positions (F, N, 3) in
    world space per frame; settings as `wobble bake --helper-KEY` ({"bones": 8}); joints_weighted
    (J,) booleans, False for joints the refitted skin must not use. Returns HelperBones."""
    times = np.ascontiguousarray(times, dtype=np.float64)
    count = len(times)
    matrices = _column_major(np.asarray(world).reshape(-1, 4, 4), count * character.joint_count, "helper_bones: world")
    positions = np.ascontiguousarray(positions, dtype=np.float32)
    if positions.shape != (count, character.vertex_count, 3):
        raise Error(f"helper_bones: positions of shape {positions.shape} for {count} frames of "
                    f"{character.vertex_count} vertices")
    weighted = None if joints_weighted is None else np.ascontiguousarray(joints_weighted, dtype=np.uint8)
    if weighted is not None and weighted.shape != (character.joint_count,):
        raise Error(f"helper_bones: joints_weighted has {weighted.size} values for {character.joint_count} joints")
    frames = _BakedFrames(count, _pointer(times), _pointer(matrices), _pointer(positions))
    handle = _handle()
    _call(_lib.wobble_helper_bones_fit, character._handle, ctypes.byref(frames), _settings_text(settings),
          None if weighted is None else _pointer(weighted), int(periodic), threads, ctypes.byref(handle))
    try:
        result = _HelperBonesResult()
        _call(_lib.wobble_helper_bones_get, handle, ctypes.byref(result))
        return HelperBones(result, character.vertex_count)
    finally:
        _lib.wobble_helper_bones_destroy(handle)


def _skin_table(vertex_count, offsets, joints, weights, name):
    """Compressed skin rows (offsets, joints, weights) as the C API's k slots per vertex (zero
    weights: unused slots)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets.shape != (vertex_count + 1,) or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        raise Error(f"{name}: skin: offsets must rise from 0, one per vertex and one more")
    counts = np.diff(offsets)
    k = max(1, int(counts.max(initial=0)))
    table_joints = np.zeros((vertex_count, k), dtype=np.uint16)
    table_weights = np.zeros((vertex_count, k), dtype=np.float32)
    rows = np.repeat(np.arange(vertex_count), counts)
    slots = np.arange(len(rows)) - np.repeat(offsets[:-1], counts)
    table_joints[rows, slots] = np.asarray(joints, dtype=np.uint16)
    table_weights[rows, slots] = np.asarray(weights, dtype=np.float32)
    return k, table_joints, table_weights


class Character:
    """A character made from a host's arrays (from_arrays); its handle lives while it does."""

    def __init__(self, handle, positions, joint_count):
        self._handle = handle
        self.vertex_count = len(positions)
        self.joint_count = joint_count
        self.size = float(np.linalg.norm(positions.max(axis=0) - positions.min(axis=0))) if len(positions) else 0.0

    @classmethod
    def from_arrays(cls, positions, triangles, names, parents, bind_world, offsets, joints, weights, name="host"):
        """Bind-space positions (N, 3), triangles (M, 3), joints by name with their parents
        (earlier joints) and bind-pose world matrices (J, 4, 4) (rest pose = bind pose), the
        skin as compressed rows: vertex v's joints[offsets[v]:offsets[v + 1]] and weights."""
        positions = np.ascontiguousarray(positions, dtype=np.float32).reshape(-1, 3)
        triangles = np.ascontiguousarray(triangles, dtype=np.uint32).reshape(-1, 3)
        parents = np.ascontiguousarray(parents, dtype=np.int32)
        count = len(names)
        bind = np.asarray(bind_world, dtype=np.float64)
        if bind.shape != (count, 4, 4) or len(parents) != count:
            raise Error(f"{name}: {count} joint names, {len(parents)} parents and bind matrices of shape {bind.shape}")
        inverse_bind = _column_major(np.linalg.inv(bind), count, f"{name}: bind matrices")
        k, table_joints, table_weights = _skin_table(len(positions), offsets, joints, weights, name)
        mesh = _SkinnedMesh(len(positions), _pointer(positions), 0, None, 0, len(triangles), _pointer(triangles), count,
                            _pointer(parents), _pointer(inverse_bind), k, _pointer(table_joints), _pointer(table_weights))
        handle = _handle()
        try:
            _call(_lib.wobble_character_create, ctypes.byref(mesh), ctypes.byref(handle))
        except Error as error:
            raise Error(f"{name}: {error}") from None
        character = cls(handle, positions, count)
        encoded = (ctypes.c_char_p * count)(*[n.encode() for n in names])
        _call(_lib.wobble_character_set_joint_names, handle, encoded, count)
        return character

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.wobble_character_destroy(self._handle)
            self._handle = None


class Pose:
    """One instant of the skeleton: the joints' world matrices."""

    def __init__(self, world):
        self.world = world  # (J, 16) float32, column-major, as the C API takes them

    @classmethod
    def from_world(cls, character, world):
        return cls(_column_major(world, character.joint_count, "Pose.from_world: world"))


class Stack:
    """A deformer stack bound to a character ('lbs,dynamic', ...; settings as the CLI's
    --settings file: {'dynamic': {'frequency': 2}})."""

    def __init__(self, character, stack="lbs", settings=None, threads=1):
        self.character, self.spec = character, stack
        self._handle = _handle()
        _call(_lib.wobble_stack_create, character._handle, stack.encode(), _settings_text(settings), threads,
              ctypes.byref(self._handle))
        self._out = np.empty((character.vertex_count, 3), dtype=np.float32)
        self._pose_at, self._sampler_error = None, None
        self._sampler = _SAMPLER(self._sample)  # kept alive as long as the stack

    def _sample(self, time, world, joint_count, _user):
        """The C API's pose sampler: the host's pose_at(t) (a Pose), or a failure it reports."""
        try:
            matrices = self._pose_at(time).world
            if matrices.size != 16 * joint_count:
                raise Error(f"pose_at({time}) gave a pose of {matrices.size // 16} joints, the character has {joint_count}")
            ctypes.memmove(world, _pointer(matrices), matrices.nbytes)
            return 0
        except Exception as error:  # re-raised by the call that asked (ctypes cannot carry it)
            self._sampler_error = error
            return 2

    def _with_motion(self, pose_at, function, *arguments):
        """Calls function with pose_at(t) as the host's motion at other times (None: none)."""
        sampler = self._sampler if pose_at is not None else _NO_SAMPLER
        _call(_lib.wobble_stack_set_pose_sampler, self._handle, sampler, None)
        self._pose_at, self._sampler_error = pose_at, None
        try:
            _call(function, self._handle, *arguments)
        except Error:
            if self._sampler_error is not None:
                raise self._sampler_error from None
            raise
        finally:
            self._pose_at = None

    def evaluate(self, pose, time, pose_at=None):
        """Deformed positions (N, 3) float32 for the pose at `time` (s); effects that read the
        motion at other times ask pose_at(t) for a Pose (without it, the poses given so far)."""
        frame = _Frame(time, _pointer(pose.world), self.character.joint_count, None)
        self._with_motion(pose_at, _lib.wobble_stack_evaluate, ctypes.byref(frame), _pointer(self._out), 0, None, 0)
        return self._out.copy()

    def reset(self):
        """Forgets the history (the next frame starts afresh)."""
        _call(_lib.wobble_stack_reset, self._handle)

    def start_periodic(self, cycle_start, period, pose_at):
        """Seamless loops: the history in the periodic steady state of the cycle pose_at gives."""
        self._with_motion(pose_at, _lib.wobble_stack_start_periodic, float(cycle_start), float(period))

    def update(self, settings):
        """New settings: live values keep the history; returns the deformers that were rebound."""
        rebound = ctypes.c_char_p()
        _call(_lib.wobble_stack_update, self._handle, _settings_text(settings), ctypes.byref(rebound))
        return [name for name in rebound.value.decode().split(",") if name]

    @property
    def settings(self):
        text = ctypes.c_char_p()
        _call(_lib.wobble_stack_settings, self._handle, ctypes.byref(text))
        return json.loads(text.value)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.wobble_stack_destroy(self._handle)
            self._handle = None


def _settings_text(settings):
    if settings is None:
        return None
    try:
        return json.dumps(settings, allow_nan=False).encode()
    except ValueError:
        raise Error(f"settings: {_first_non_finite(settings)} is not a finite number") from None


def _first_non_finite(value, path="settings"):
    """Where in the settings the first NaN or infinity sits ('dynamic.damping')."""
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_non_finite(item, f"{path}.{key}" if path != "settings" else key)
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_non_finite(item, f"{path}[{index}]")
            if found:
                return found
    elif isinstance(value, float) and not np.isfinite(value):
        return f"{path}: {value}"
    return None
