"""The effect as a function of the scene's time, equal to `wobble bake` of the frame range.

`wobble bake` measures the joints' motion every 1/60 s of animation time, whatever the frame
rate, and runs the effect's history from the first frame. Here the same: the rig is sampled at
the effect's own 60 Hz through Blender's evaluated scene (the frame set to the sub-frame of each
sample: the armature with its constraints, drivers and NLA, as Blender shows it), and the
history runs from the scene's first frame. Each frame's result is cached, so a frame shows the
same offsets however the timeline got there: played forwards, with frames dropped, scrubbed or
played backwards. Going back to a frame not cached yet replays the history from the first frame
(samples cached too: only the effect runs again).

Samples and results are forgotten when the settings change (a new Timeline) or when an action
is edited (forget_samples).
"""
import math

import bpy
import numpy as np

from .module import wobble

SAMPLE_RATE = 60.0  # Hz, wobble's kDynamicSampleRate


def time_key(t):
    """Cache key of a time: microseconds (frame and sample times are never closer)."""
    return round(t * 1e6)


class Timeline:
    def __init__(self, bridge, stack, base):
        self.bridge, self.stack, self.base = bridge, stack, base
        self.samples = {}   # time key -> (world matrices (J, 4, 4) float32, mesh world matrix (4, 4))
        self.results = {}   # time key -> object-space offsets (N, 3) float32
        self.last_time = None  # the time the stack's history has reached
        self.first_time = None
        self.scene_evaluations = 0  # frame_set calls made to sample the rig (for tests and profiles)
        self._sampling = False

    def forget_samples(self):
        self.samples.clear()
        self.results.clear()
        self.last_time = None

    def offsets(self, scene, depsgraph, time):
        """Object-space offsets at `time` (s), computed once per time."""
        key = time_key(time)
        cached = self.results.get(key)
        if cached is not None:
            return cached
        fps = scene.render.fps / scene.render.fps_base
        # The sample at the displayed time comes from the depsgraph Blender just evaluated.
        if key not in self.samples:
            self.samples[key] = self._read(depsgraph)
        first = scene.frame_start / fps
        if self.last_time is None or time < self.last_time or time < first:
            self.stack.reset()
            self.first_time = min(first, time)
            self.last_time = None
        frame_now, subframe_now = scene.frame_current, scene.frame_subframe
        try:
            for t in self._times_up_to(time, fps):
                self._run(scene, t, fps)
        finally:
            if self._sampling:  # put the scene back on the displayed frame
                self._sampling = False
                self._frame_set(scene, frame_now, subframe_now)
        return self.results[key]

    def _times_up_to(self, time, fps):
        """The history's next times up to `time`: every scene frame in between (the history never
        skips more than a frame, so it never restarts), then `time` itself; from the first frame
        when the history is fresh."""
        fresh = self.last_time is None
        after = self.first_time if fresh else self.last_time
        times = [after] if fresh else []
        frame = math.floor(after * fps + 1e-9) + 1
        while frame / fps < time - 1e-9:
            times.append(frame / fps)
            frame += 1
        if not times or abs(times[-1] - time) > 1e-9:
            times.append(time)
        return times

    def _run(self, scene, t, fps):
        world, mesh_world = self._sample(scene, t, fps)
        pose = wobble.Pose.from_world(self.bridge.character, world)

        def pose_at(s):
            return wobble.Pose.from_world(self.bridge.character, self._sample(scene, s, fps)[0])

        final = self.stack.evaluate(pose, t, pose_at=pose_at).astype(np.float64)
        base = self.base.evaluate(pose, t).astype(np.float64)
        # World-space offsets back into the mesh's space (its world matrix's linear part).
        offsets = np.einsum('ij,kj->ik', final - base, inverse_3x3(mesh_world[:3, :3])).astype(np.float32)
        self.results[time_key(t)] = offsets
        self.last_time = t

    def _sample(self, scene, t, fps):
        key = time_key(t)
        sample = self.samples.get(key)
        if sample is None:
            frame = t * fps
            whole = math.floor(frame + 1e-9)
            self._sampling = True
            self._frame_set(scene, whole, max(0.0, frame - whole))
            sample = self.samples[key] = self._read(bpy.context.evaluated_depsgraph_get())
        return sample

    def _read(self, depsgraph):
        world, mesh_world = self.bridge.world_matrices(depsgraph)
        return world.astype(np.float32), mesh_world

    def _frame_set(self, scene, frame, subframe):
        from . import playback
        self.scene_evaluations += 1
        with playback.handler_paused():
            scene.frame_set(int(frame), subframe=float(subframe))


def inverse_3x3(m):
    """Inverse by cross products. numpy's linalg.inv and `@` go through LAPACK/BLAS, which with
    Debian's OpenMP OpenBLAS spin up threads: 20 ms per frame on a busy machine, for a 3x3."""
    rows = np.array([np.cross(m[1], m[2]), np.cross(m[2], m[0]), np.cross(m[0], m[1])])
    return rows.T / (m[0] * rows[0]).sum()
