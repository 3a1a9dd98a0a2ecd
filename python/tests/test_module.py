"""Tests of the wobble Python module with Debian's python3 and numpy (run by CTest:
PYTHONPATH=BUILD/python, WOBBLE_CLI and WOBBLE_BUNDLED_ASSETS set by cmake/python.cmake)."""
import os
import subprocess
import tempfile
import unittest

import numpy as np

from pc2_reader import read_pc2_raw

import wobble

CLONK = os.path.join(os.environ.get("WOBBLE_BUNDLED_ASSETS", "build/assets"), "clonk.glb")
CLI = os.environ.get("WOBBLE_CLI", "build/wobble")
DYNAMIC = {"frequency": 2.0, "damping": 0.4, "amplitude": 0.5, "drag": 0.2}


def lbs_by_hand(character, pose):
    """sum_j w_j S_j p, straight from the skin arrays (float64)."""
    offsets, joints, weights = character.skin
    p = np.c_[character.positions.astype(np.float64), np.ones(character.vertex_count)]
    out = np.zeros((character.vertex_count, 3))
    skinning = pose.skinning.astype(np.float64)
    for v in range(character.vertex_count):
        for k in range(offsets[v], offsets[v + 1]):
            out[v] += weights[k] * (skinning[joints[k]] @ p[v])[:3]
    return out


class CharacterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        wobble.set_log_level("error")
        cls.clonk = wobble.load(CLONK)

    def test_arrays_have_the_right_shapes_and_types(self):
        c = self.clonk
        self.assertEqual(c.positions.shape, (1814, 3))
        self.assertEqual(c.positions.dtype, np.float32)
        self.assertEqual(c.triangles.shape, (2514, 3))
        self.assertEqual(c.triangles.dtype, np.uint32)
        self.assertEqual(c.normals.shape, (1814, 3))
        self.assertEqual(c.uvs.shape, (1814, 2))
        self.assertEqual(c.inverse_bind.shape, (c.joint_count, 4, 4))
        self.assertEqual(len(c.joint_names), c.joint_count)
        self.assertEqual(c.parents.dtype, np.int32)
        self.assertTrue(all(p < j for j, p in enumerate(c.parents)))
        self.assertIn("Walk", c.clip_names)
        walk = c.clips[c.find_clip("Walk")]
        self.assertEqual(walk.name, "Walk")
        self.assertGreater(walk.duration, 0)
        self.assertAlmostEqual(c.size, float(np.linalg.norm(c.positions.max(0) - c.positions.min(0))), places=3)
        offsets, joints, weights = c.skin
        self.assertEqual(len(offsets), c.vertex_count + 1)
        sums = np.add.reduceat(weights.astype(np.float64), offsets[:-1])
        np.testing.assert_allclose(sums, 1.0, atol=1e-5)  # repaired on load
        self.assertTrue(any(kind for kind, _, _ in c.diagnostics))

    def test_arrays_are_read_only_views_of_the_character(self):
        c = self.clonk
        a, b = c.positions, c.positions
        self.assertTrue(np.shares_memory(a, b))  # the same C++ buffer, no copy
        self.assertFalse(a.flags.writeable)
        with self.assertRaises(ValueError):
            a[0, 0] = 1.0
        # The view keeps the character alive.
        view = wobble.load(CLONK).positions
        np.testing.assert_array_equal(view, c.positions)

    def test_inverse_bind_view_is_row_major_matrices(self):
        c = self.clonk
        rest = c.rest_pose()
        # Rest pose of a bound skin: world @ inverse_bind = skinning.
        np.testing.assert_allclose(rest.world @ c.inverse_bind, rest.skinning, atol=1e-4)
        self.assertTrue(np.allclose(rest.world[:, 3], [0, 0, 0, 1]))

    def test_lbs_matches_the_closed_form(self):
        c = self.clonk
        pose = c.pose("Walk", 0.35)
        out = wobble.Stack(c, "lbs").evaluate(pose, 0.35)
        self.assertEqual(out.shape, (c.vertex_count, 3))
        self.assertEqual(out.dtype, np.float32)
        np.testing.assert_allclose(out, lbs_by_hand(c, pose), atol=1e-5 * c.size)
        self.assertGreater(np.abs(out - c.positions).max(), 0.01 * c.size)  # the pose moved it

    def test_pose_from_world_reproduces_the_clip_pose(self):
        c = self.clonk
        pose = c.pose("Walk", 0.5)
        again = wobble.Pose.from_world(c, np.array(pose.world))
        np.testing.assert_allclose(again.skinning, pose.skinning, atol=1e-5 * c.size)
        q1, q2 = pose.local_rotations, again.local_rotations
        np.testing.assert_allclose(np.abs(np.sum(q1 * q2, axis=1)), 1.0, atol=1e-4)

    def test_character_from_arrays_skins_by_hand(self):
        # Two joints along x; vertices at x = 0..2, the second half bound to joint 1.
        positions = np.array([[x, y, 0] for x in (0.0, 1.0, 2.0) for y in (0.0, 1.0)], dtype=np.float32)
        triangles = np.array([[0, 2, 1], [1, 2, 3], [2, 4, 3], [3, 4, 5]], dtype=np.uint32)
        bind = np.array([np.eye(4), np.eye(4)], dtype=np.float32)
        bind[1, 0, 3] = 1.0  # joint 1 at x = 1
        offsets = np.array([0, 1, 2, 4, 6, 7, 8], dtype=np.uint32)
        joints = np.array([0, 0, 0, 1, 0, 1, 1, 1], dtype=np.uint32)
        weights = np.array([1, 1, 0.5, 0.5, 0.5, 0.5, 1, 1], dtype=np.float32)
        c = wobble.Character.from_arrays(positions, triangles, ["a", "b"], [-1, 0], bind, offsets, joints, weights)
        self.assertEqual(c.joint_names, ["a", "b"])
        np.testing.assert_allclose(c.inverse_bind[1] @ bind[1], np.eye(4), atol=1e-6)
        # Turn joint 1 by 90 degrees about z.
        world = bind.copy()
        world[1, :3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
        pose = wobble.Pose.from_world(c, world)
        out = wobble.Stack(c, "lbs").evaluate(pose, 0.0)
        np.testing.assert_allclose(out[4], [1, 1, 0], atol=1e-6)   # (2, 0) turned about (1, 0)
        np.testing.assert_allclose(out[5], [0, 1, 0], atol=1e-6)   # (2, 1)
        np.testing.assert_allclose(out[2], [1, 0, 0], atol=1e-6)   # on the joint: both agree
        np.testing.assert_allclose(out[3], [0.5, 0.5, 0], atol=1e-6)  # halfway between (1, 1) and (0, 0)


class BakeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        wobble.set_log_level("error")
        cls.clonk = wobble.load(CLONK)

    def test_bake_equals_the_cli(self):
        with tempfile.TemporaryDirectory() as scratch:
            pc2 = os.path.join(scratch, "cli.pc2")
            subprocess.run([CLI, "bake", CLONK, "--clip", "Walk", "--fps", "30", "--end", "1", "--deformer",
                            "lbs,dynamic", "--frequency", "2", "--damping", "0.4", "--amplitude", "0.5", "--drag",
                            "0.2", "--quiet", "-o", pc2], check=True)
            cli = read_pc2_raw(pc2)
            times, positions = wobble.bake(self.clonk, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=30, end=1.0)
            self.assertEqual(positions.shape, (31, self.clonk.vertex_count, 3))
            self.assertEqual(positions.dtype, np.float32)
            np.testing.assert_array_equal(times, np.arange(31) / 30)
            np.testing.assert_array_equal(positions, cli)  # the same computation: identical floats
            np.testing.assert_array_equal(wobble.read_pc2(pc2), cli)
            # The effect moved vertices beyond plain LBS (a vacuous comparison otherwise).
            _, lbs = wobble.bake(self.clonk, "Walk", "lbs", fps=30, end=1.0)
            self.assertGreater(np.abs(positions - lbs).max(), 1e-3 * self.clonk.size)
            # write_pc2 round trip, readable by the independent reader.
            again = os.path.join(scratch, "again.pc2")
            wobble.write_pc2(again, positions, 30.0)
            np.testing.assert_array_equal(read_pc2_raw(again), positions)

    def test_settings_as_json_text_equal_a_dict(self):
        _, a = wobble.bake(self.clonk, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=20, end=0.5)
        _, b = wobble.bake(self.clonk, "Walk", "lbs,dynamic", '{"dynamic": {"frequency": 2.0, "damping": 0.4, '
                           '"amplitude": 0.5, "drag": 0.2}}', fps=20, end=0.5)
        np.testing.assert_array_equal(a, b)

    def test_frame_by_frame_stack_equals_the_bake(self):
        c = self.clonk
        settings = {"dynamic": DYNAMIC, "deltamush": {"iterations": 4}}
        times, baked = wobble.bake(c, "Walk", "dlbs,dynamic,deltamush", settings, fps=24, end=0.75, threads=1)
        stack = wobble.Stack(c, "dlbs,dynamic,deltamush", settings)
        out = np.empty((c.vertex_count, 3), dtype=np.float32)
        for k, t in enumerate(times):
            result = stack.evaluate(c.pose("Walk", t), t, clip="Walk", out=out)
            self.assertIs(result, out)
            np.testing.assert_array_equal(out, baked[k])

    def test_interactive_poses_at_60_fps_equal_the_bake(self):
        # Poses given one at a time (no clip to sample, as in Blender) on the effect's 60 Hz grid
        # give what the bake computes by sampling the clip itself.
        c = self.clonk
        times, baked = wobble.bake(c, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=60, end=1.0)
        stack = wobble.Stack(c, "lbs,dynamic", {"dynamic": DYNAMIC})
        worst = 0.0
        np.testing.assert_array_equal(times, np.arange(61) / 60)  # exact frame times
        for k, t in enumerate(times):
            out = stack.evaluate(c.pose("Walk", t), t)
            worst = max(worst, float(np.abs(out - baked[k]).max()))
        self.assertLessEqual(worst, 1e-6 * c.size)

    def test_dynamic_state_api_equals_the_stack(self):
        c = self.clonk
        parameters = wobble.DynamicSkinningParameters(DYNAMIC)
        self.assertAlmostEqual(parameters.frequency, 2.0)
        self.assertEqual(parameters.max_angle, 60.0)  # the settings' unit, degrees
        state = wobble.DynamicSkinningState()
        state.initialize(c, parameters)
        self.assertTrue(state.initialized)
        self.assertAlmostEqual(state.character_size, c.size, places=3)
        lbs = wobble.Stack(c, "lbs")
        times, baked = wobble.bake(c, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=30, end=0.6)
        first = None
        for k, t in enumerate(times):
            pose = c.pose("Walk", t)
            positions = lbs.evaluate(pose, t)
            state.apply(parameters, pose, positions, t, clip="Walk")  # in place
            np.testing.assert_array_equal(positions, baked[k])
            if k == 5:
                first = positions.copy()
        self.assertEqual(state.filtered.shape, (c.joint_count, 3))
        # reset: the history restarts, as a fresh state would.
        state.reset()
        fresh = wobble.DynamicSkinningState()
        fresh.initialize(c, parameters)
        t = float(times[5])
        a = lbs.evaluate(c.pose("Walk", t), t)
        b = a.copy()
        state.apply(parameters, c.pose("Walk", t), a, t, clip="Walk")
        fresh.apply(parameters, c.pose("Walk", t), b, t, clip="Walk")
        np.testing.assert_array_equal(a, b)
        self.assertGreater(np.abs(a - first).max(), 0)  # history mattered before the reset

    def test_loop_bake_and_stack_start_periodic(self):
        # The Walk (2.4 s, no root motion) looped: two cycles repeat, and a Stack started in the
        # steady state by hand gives the bake's first cycle.
        c = self.clonk
        times, looped = wobble.bake(c, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=30, loop=True, end=4.8)
        self.assertEqual(len(times), 145)
        self.assertLessEqual(float(np.abs(looped[72:] - looped[:73]).max()), 1e-6 * c.size)
        self.assertEqual(len(wobble.bake(c, "Walk", "lbs", fps=30, loop=True)[0]), 73)  # one cycle, both ends
        stack = wobble.Stack(c, "lbs,dynamic", {"dynamic": DYNAMIC})
        stack.start_periodic(0.0, 2.4, clip="Walk")
        worst = max(float(np.abs(stack.evaluate(c.pose("Walk", t), t, clip="Walk") - looped[k]).max())
                    for k, t in enumerate(times[:73]))
        self.assertLessEqual(worst, 1e-6 * c.size)
        # Pre-roll: 0.5 s before 1.0 s equals the bake from 0.5 s, sliced; bad values name the argument.
        _, rolled = wobble.bake(c, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=30, start=1.0, end=1.5, pre_roll=0.5)
        _, earlier = wobble.bake(c, "Walk", "lbs,dynamic", {"dynamic": DYNAMIC}, fps=30, start=0.5, end=1.5)
        self.assertLessEqual(float(np.abs(rolled - earlier[15:]).max()), 1e-6 * c.size)
        with self.assertRaisesRegex(Exception, "pre_roll: '2abc'"):
            wobble.bake(c, "Walk", pre_roll="2abc")
        with self.assertRaisesRegex(Exception, "not a cycle"):
            wobble.bake(c, "BowJump", "lbs,dynamic", loop=True)

    def test_delta_mush_bind_and_evaluate(self):
        c = self.clonk
        mush = wobble.DeltaMush()
        mush.bind(c.positions, c.triangles, {"iterations": 5, "step": 0.5})
        self.assertTrue(mush.bound)
        rest = np.array(c.positions)
        mush.evaluate(rest)
        np.testing.assert_allclose(rest, c.positions, atol=1e-5 * c.size)  # exact at rest
        t = 0.4
        positions = wobble.Stack(c, "lbs").evaluate(c.pose("Walk", t), t)
        before = positions.copy()
        mush.evaluate(positions)
        stacked = wobble.Stack(c, "lbs,deltamush", {"deltamush": {"iterations": 5, "step": 0.5}})
        np.testing.assert_allclose(positions, stacked.evaluate(c.pose("Walk", t), t), atol=1e-4 * c.size)  # lbs,deltamush folds the sweeps into the skin: equal up to rounding the corner frames amplify
        self.assertGreater(np.abs(positions - before).max(), 1e-5 * c.size)


class DescriptionTest(unittest.TestCase):
    """The deformers' descriptions drive the module: listing, checking, live updates, keys."""

    @classmethod
    def setUpClass(cls):
        wobble.set_log_level("error")
        cls.clonk = wobble.load(CLONK)

    def test_deformers_are_described_as_by_the_cli(self):
        import json
        import subprocess
        described = wobble.deformers()
        cli = json.loads(subprocess.run([os.environ["WOBBLE_CLI"], "deformers", "--json"], check=True,
                                        capture_output=True, text=True).stdout)
        self.assertEqual(described, cli)
        dynamic = next(d for d in described if d["name"] == "dynamic")
        keys = [p["key"] for p in dynamic["parameters"]]
        self.assertIn("joints", keys)
        self.assertIn("skip_below", keys)
        frequency = next(p for p in dynamic["parameters"] if p["key"] == "frequency")
        self.assertEqual((frequency["unit"], frequency["default"], frequency["maximum"], frequency["lifetime"]),
                         ("Hz", 2.5, 30.0, "live"))
        # The generated attributes are the description's keys.
        parameters = wobble.DynamicSkinningParameters()
        for key in keys:
            self.assertTrue(hasattr(parameters, key), key)

    def test_update_keeps_the_history_and_keys_follow_clip_time(self):
        c = self.clonk
        fps, k = 30, 12
        times = np.arange(24) / fps

        def run(change_at=None, settings=None):
            stack = wobble.Stack(c, "lbs,dynamic", settings)
            out = []
            for i, t in enumerate(times):
                if i == change_at:
                    stack.update({"dynamic": {"amplitude": 0.05}})
                out.append(stack.evaluate(c.pose("Walk", t), t, clip="Walk"))
            return np.array(out)

        unchanged, updated = run(), run(change_at=k)
        np.testing.assert_array_equal(updated[:k], unchanged[:k])
        self.assertGreater(np.abs(updated[k + 3] - unchanged[k + 3]).max(), 1e-5 * c.size)
        # The same change as a step key at frame k's time: the same bytes as the live update.
        keyed = run(settings={"dynamic": {"amplitude": {"keys": [[0, 0.25], [float(times[k]), 0.05]],
                                                         "interpolation": "step"}}})
        np.testing.assert_array_equal(keyed, updated)
        _, baked = wobble.bake(c, "Walk", "lbs,dynamic", {"dynamic": {"amplitude": {"keys": [[0, 0.25], [float(times[k]), 0.05]],
                                                                                     "interpolation": "step"}}},
                               fps=fps, end=float(times[-1]))
        np.testing.assert_array_equal(baked, keyed)


    def test_update_names_the_rebound_deformers(self):
        c = self.clonk
        stack = wobble.Stack(c, "lbs,dynamic,deltamush")
        stack.evaluate(c.pose("Walk", 0.0), 0.0, clip="Walk")
        self.assertEqual(stack.update({"dynamic": {"amplitude": 0.5}, "deltamush": {"step": 0.3}}), [])
        self.assertEqual(stack.update({"dynamic": {"amplitude": 0.5}, "deltamush": {"step": 0.3, "iterations": 4}}),
                         ["deltamush"])
        self.assertEqual(stack.update({"dynamic": {"amplitude": 0.5}, "deltamush": {"step": 0.3, "iterations": 4}}), [])
        self.assertEqual(stack.settings["deltamush"]["iterations"], 4)


class ErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        wobble.set_log_level("error")
        cls.clonk = wobble.load(CLONK)

    def test_missing_file_names_the_file(self):
        with self.assertRaises(wobble.Error) as caught:
            wobble.load("/nonexistent/character.glb")
        self.assertIn("/nonexistent/character.glb", str(caught.exception))
        self.assertNotIn("\n", str(caught.exception))
        self.assertTrue(issubclass(wobble.Error, ValueError))

    def test_garbage_file(self):
        with tempfile.NamedTemporaryFile(suffix=".glb") as f:
            f.write(b"not a glb at all")
            f.flush()
            with self.assertRaises(wobble.Error) as caught:
                wobble.load(f.name)
            self.assertIn(f.name, str(caught.exception))

    def test_bad_stacks_and_settings(self):
        c = self.clonk
        with self.assertRaisesRegex(wobble.Error, "unknown deformer 'wobbly'"):
            wobble.Stack(c, "lbs,wobbly")
        with self.assertRaisesRegex(wobble.Error, "unknown parameter 'frequncy'"):
            wobble.Stack(c, "lbs,dynamic", {"dynamic": {"frequncy": 2}})
        with self.assertRaisesRegex(wobble.Error, r"dynamic.frequency: expected a number, got \"fast\""):
            wobble.Stack(c, "lbs,dynamic", {"dynamic": {"frequency": "fast"}})
        with self.assertRaisesRegex(wobble.Error, "clip 'Moonwalk'"):
            wobble.bake(c, "Moonwalk")
        with self.assertRaisesRegex(wobble.Error, "frame rate"):
            wobble.bake(c, "Walk", fps=0)
        with self.assertRaisesRegex(wobble.Error, "settings"):
            wobble.Stack(c, "lbs", {"dynamic": {1: 2}})
        with self.assertRaisesRegex(wobble.Error, r"deltamush.iterations: expected an integer, got \"many\""):
            wobble.DeltaMush().bind(c.positions, c.triangles, {"iterations": "many"})
        with self.assertRaisesRegex(wobble.Error, r"unknown parameter 'iteration' for deformer 'deltamush' \(did you mean 'iterations'\?\)"):
            wobble.DeltaMush().bind(c.positions, c.triangles, {"iteration": 3})
        with self.assertRaisesRegex(wobble.Error, "expected an integer, got 1.5"):
            wobble.Stack(c, "lbs,deltamush", {"deltamush": {"iterations": 1.5}})
        with self.assertRaisesRegex(wobble.Error, r"^settings: dynamic.frequency: nan is not a finite number$"):
            wobble.Stack(c, "lbs,dynamic", {"dynamic": {"frequency": float("nan")}})
        with self.assertRaisesRegex(wobble.Error, r"^settings: dynamic.amplitude.keys\[1\]\[1\]: inf is not a finite"):
            wobble.Stack(c, "lbs,dynamic", {"dynamic": {"amplitude": {"keys": [[0, 1], [1, float("inf")]]}}})
        with self.assertRaisesRegex(wobble.Error, r"31 is out of range \[0, 30\]"):
            wobble.DynamicSkinningParameters().frequency = 31

    def test_the_issues_bad_values_are_refused_on_one_line(self):
        """Hardened input (issue 15): each of these was once accepted as something else, hung or
        gave a message of the JSON library's own."""
        c = self.clonk
        n = c.vertex_count
        cases = [
            (r"deltamush.iterations: expected an integer, got 1.5",
             lambda: wobble.Stack(c, "lbs,deltamush", {"deltamush": {"iterations": 1.5}})),
            (r"ddm.max_influences: expected an integer, got true",
             lambda: wobble.Stack(c, "ddm", {"ddm": {"max_influences": True}})),
            (r"deltamush.mask\[0\]: -1 is out of range \[0, 1\]",
             lambda: wobble.Stack(c, "lbs,deltamush", {"deltamush": {"mask": [-1.0] + [0.5] * (n - 1)}})),
            (r"deltamush.mask\[1\]: 1.5 is out of range \[0, 1\]",
             lambda: wobble.Stack(c, "lbs,deltamush", {"deltamush": {"mask": [0.5, 1.5] + [0.5] * (n - 2)}})),
            (r"deltamush.mask\[0\]: 3.4e\+38 is out of range \[0, 1\]",
             lambda: wobble.Stack(c, "lbs,deltamush", {"deltamush": {"mask": [3.4e38] + [0.5] * (n - 1)}})),
            (r"dynamic.frequency: expected a number, got \"2abc\"",
             lambda: wobble.Stack(c, "lbs,dynamic", {"dynamic": {"frequency": "2abc"}})),
            (r"frame rate", lambda: wobble.bake(c, "Walk", fps=float("nan"))),
            (r"clonk.glb: the first frame's time must be finite", lambda: wobble.bake(c, "Walk", start=float("nan"))),
            (r"start and end times must be finite", lambda: wobble.bake(c, "Walk", end=float("nan"))),
            (r"too many", lambda: wobble.bake(c, "Walk", end=1e300)),
            (r"5000 worker threads requested: at most 1024", lambda: wobble.bake(c, "Walk", threads=5000)),
        ]
        for pattern, call in cases:
            with self.assertRaisesRegex(wobble.Error, pattern) as raised:
                call()
            self.assertNotIn("\n", str(raised.exception))

    def test_arrays_used_in_place_must_be_float32_rows(self):
        c = self.clonk
        state = wobble.DynamicSkinningState()
        parameters = wobble.DynamicSkinningParameters()
        pose = c.rest_pose()
        with self.assertRaisesRegex(wobble.Error, "before initialize"):
            state.apply(parameters, pose, np.zeros((c.vertex_count, 3), np.float32), 0.0)
        state.initialize(c, parameters)
        with self.assertRaisesRegex(wobble.Error, "float32"):
            state.apply(parameters, pose, np.zeros((c.vertex_count, 3)), 0.0)
        with self.assertRaisesRegex(wobble.Error, r"shape \(1814, 3\)"):
            state.apply(parameters, pose, np.zeros((10, 3), np.float32), 0.0)
        with self.assertRaisesRegex(wobble.Error, "C-contiguous"):
            state.apply(parameters, pose, np.zeros((3, c.vertex_count), np.float32).T, 0.0)
        with self.assertRaisesRegex(wobble.Error, "read-only"):
            state.apply(parameters, pose, c.positions, 0.0)
        with self.assertRaisesRegex(wobble.Error, "dynamic"):
            wobble.DynamicSkinningParameters({"frequency": 100})
        with self.assertRaisesRegex(wobble.Error, r"\(J, 4, 4\)|4, 4\)"):
            wobble.Pose.from_world(c, np.zeros((3, 4, 4)))
        with self.assertRaisesRegex(wobble.Error, "out of range"):
            wobble.Character.from_arrays(np.zeros((3, 3)), [[0, 1, 7]], ["a"], [-1], np.eye(4)[None],
                                         [0, 1, 2, 3], [0, 0, 0], [1, 1, 1])
        with self.assertRaisesRegex(wobble.Error, "parent"):
            wobble.Character.from_arrays(np.zeros((3, 3)), [[0, 1, 2]], ["a", "b"], [-1, 1], np.tile(np.eye(4), (2, 1, 1)),
                                         [0, 1, 2, 3], [0, 0, 0], [1, 1, 1])


if __name__ == "__main__":
    unittest.main()
