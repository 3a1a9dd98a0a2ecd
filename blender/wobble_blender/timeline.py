"""The effect as a function of the scene's time, equal to `wobble bake` of the frame range.

`wobble bake` measures the joints' motion every 1/60 s of animation time, whatever the frame
rate, and runs the effect's history from the first frame. Here the same: the rig is sampled at
the effect's own 60 Hz through Blender's evaluated scene (the frame set to the sub-frame of each
sample: the armature with its constraints, drivers and NLA, as Blender shows it), and the
history runs from the scene's first frame. Each frame's result is cached, so a frame shows the
same offsets however the timeline got there: played forwards, with frames dropped, scrubbed or
played backwards. Going back to a frame not cached yet replays the history from the first frame
(samples cached too: only the effect runs again).

Around the frame range the rig is seen as `wobble bake` sees its clip (Motion below): with
pre-roll hold the first frame's pose held forever before it, with pre-roll S the rig's own frames
from S s before the first frame, with Loop the frame range repeated forever (frame_end + 1 is
frame_start again) and the history started in its periodic steady state, so that playing over the
loop shows no seam.

Live tuning (settings_changed, after Stack.update). While the animation plays, a change of live
values keeps the history: the next frames continue the motion with the new values (as a step key
at that frame would, see keyframes.py); those frames are not cached, so that a frame visited
again shows the bake of the settings now in force. Paused, or after a change of a bind parameter
(the deformer was rebound), the results are forgotten and the displayed frame is computed from
the first frame with the new settings: what Bake would give there. The rig's samples are kept.
Samples and results are forgotten when an action is edited (forget_samples).
"""
import math

import bpy
import numpy as np

from .module import wobble

SAMPLE_RATE = 60.0  # Hz, wobble's kDynamicSampleRate


def time_key(t):
    """Cache key of a time: microseconds (frame and sample times are never closer)."""
    return round(t * 1e6)


class Motion:
    """The rig's time for an animation time, and where the history begins (as BakeMotion in C++)."""

    def __init__(self, scene, loop, pre_roll_seconds):
        fps = scene.render.fps / scene.render.fps_base
        self.start = scene.frame_start / fps
        self.loop = loop
        self.period = (scene.frame_end - scene.frame_start + 1) / fps
        self.history_start = self.start if loop or pre_roll_seconds is None else self.start - pre_roll_seconds
        self.key = (self.start, self.period, loop, self.history_start)

    def rig_time(self, t):
        if self.loop:
            phase = (t - self.start) % self.period
            return self.start + (0.0 if phase > self.period - 1e-9 else phase)
        return max(t, self.history_start)  # before the history begins: its first pose, held


class Timeline:
    def __init__(self, bridge, stack, base, loop=False, pre_roll_seconds=None):
        self.bridge, self.stack, self.base = bridge, stack, base
        self.loop, self.pre_roll_seconds = loop, pre_roll_seconds  # pre-roll None: hold
        self.motion = None
        self.samples = {}   # time key -> (world matrices (J, 4, 4) float32, mesh world matrix (4, 4))
        self.results = {}   # time key -> object-space offsets (N, 3) float32
        self.last_time = None  # the time the stack's history has reached
        self.first_time = None
        self.tuned = False   # the history has run with settings changed on the way: its results are not the bake's
        self.latest = None   # (time key, offsets) of the history's last time while tuned
        self.scene_evaluations = 0  # frame_set calls made to sample the rig (for tests and profiles)
        self._sampling = False

    def forget_samples(self):
        self.samples.clear()
        self._forget_results()

    def _forget_results(self):
        self.results.clear()
        self.last_time = None
        self.tuned, self.latest = False, None

    def settings_changed(self, keep_history):
        """The stack's settings changed (Stack.update): keep the history (live tuning while
        playing) or compute afresh from the first frame."""
        if keep_history and self.last_time is not None:
            key = time_key(self.last_time)
            shown = self.results.get(key) if not self.tuned else (self.latest[1] if self.latest else None)
            self.latest = (key, shown) if shown is not None else None
            self.tuned = True
            self.results.clear()
        else:
            self._forget_results()

    def offsets(self, scene, depsgraph, time):
        """Object-space offsets at `time` (s), computed once per time."""
        key = time_key(time)
        cached = self.results.get(key)
        if cached is None and self.latest is not None and self.latest[0] == key:
            cached = self.latest[1]
        if cached is not None:
            return cached
        fps = scene.render.fps / scene.render.fps_base
        motion = Motion(scene, self.loop, self.pre_roll_seconds)
        if self.motion is None or motion.key != self.motion.key:  # the frame range or fps changed
            self.forget_samples()
            self.motion = motion
        # The sample at the displayed time comes from the depsgraph Blender just evaluated.
        if motion.rig_time(time) == time and key not in self.samples:
            self.samples[key] = self._read(depsgraph)
        frame_now, subframe_now = scene.frame_current, scene.frame_subframe
        try:
            if self.last_time is None or time < self.last_time or time < motion.history_start:
                self._start_history(scene, min(motion.history_start, time), fps)
            for t in self._times_up_to(time, fps):
                offsets = self._run(scene, t, fps)
        finally:
            if self._sampling:  # put the scene back on the displayed frame
                self._sampling = False
                self._frame_set(scene, frame_now, subframe_now)
        return offsets

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

    def _start_history(self, scene, first, fps):
        self.stack.reset()
        self.first_time, self.last_time = first, None
        self.tuned, self.latest = False, None
        if self.motion.loop and first == self.motion.start:
            self.stack.start_periodic(self.motion.start, self.motion.period, pose_at=self._pose_at(scene, fps))

    def _pose_at(self, scene, fps):
        return lambda s: wobble.Pose.from_world(self.bridge.character, self._sample(scene, s, fps)[0])

    def _run(self, scene, t, fps):
        world, mesh_world = self._sample(scene, t, fps)
        pose = wobble.Pose.from_world(self.bridge.character, world)
        final = self.stack.evaluate(pose, t, pose_at=self._pose_at(scene, fps)).astype(np.float64)
        base = self.base.evaluate(pose, t).astype(np.float64)
        # World-space offsets back into the mesh's space (its world matrix's linear part).
        offsets = np.einsum('ij,kj->ik', final - base, inverse_3x3(mesh_world[:3, :3])).astype(np.float32)
        if self.tuned:
            self.latest = (time_key(t), offsets)
        else:
            self.results[time_key(t)] = offsets
        self.last_time = t
        return offsets

    def _sample(self, scene, t, fps):
        t = self.motion.rig_time(t)
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
