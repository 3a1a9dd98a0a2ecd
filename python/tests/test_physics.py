"""Tests of wobble.Simulation and wobble.RigSimulation (the PhysSkin++ runtime) against `wobble
simulate` (run by CTest: PYTHONPATH=BUILD/python, WOBBLE_CLI and WOBBLE_SHARED_ASSETS set by
cmake/python.cmake)."""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

from pc2_reader import read_pc2_raw

import wobble

CLI = os.environ.get("WOBBLE_CLI", "build/wobble")

# Small and quick: few handles, points and grid cells, a few frames.
SETTINGS = {"handles": 4, "points": 200, "sample_grid": 12, "field_grid": 10, "pin": "y>0.8", "floor": -1.1,
            "frames": 6, "fps": 30.0, "substeps": 2, "youngs": 2e4}
FLAGS = ["--handles", "4", "--points", "200", "--sample-grid", "12", "--field-grid", "10", "--pin", "y>0.8",
         "--floor", "-1.1", "--frames", "6", "--fps", "30", "--substeps", "2", "--youngs", "2e4"]


def write_bar(path, n=(3, 8, 3), size=(0.4, 1.6, 0.4)):
    """A closed box surface (a tall bar, units not normalised), each face an n-grid of quads split in two."""
    vertices, index, triangles = [], {}, []

    def vertex(p):
        key = tuple(round(c, 9) for c in p)
        if key not in index:
            index[key] = len(vertices)
            vertices.append(key)
        return index[key]

    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for side in (0, 1):
            def point(i, j):
                p = [0.0, 0.0, 0.0]
                p[axis] = side * size[axis]
                p[u] = i / n[u] * size[u]
                p[v] = j / n[v] * size[v]
                return vertex(p)
            for i in range(n[u]):
                for j in range(n[v]):
                    a, b, c, d = point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)
                    triangles += [(a, b, c), (a, c, d)] if side else [(a, c, b), (a, d, c)]
    with open(path, "w") as f:
        f.write(f"OFF\n{len(vertices)} {len(triangles)} 0\n")
        f.writelines(f"{x} {y} {z}\n" for x, y, z in vertices)
        f.writelines(f"3 {a} {b} {c}\n" for a, b, c in triangles)
    return len(vertices)


class BarCase(unittest.TestCase):
    """Tests on the bar shape, written once per class into a scratch folder."""
    LOG_LEVEL = "error"

    @classmethod
    def setUpClass(cls):
        wobble.set_log_level(cls.LOG_LEVEL)
        cls.scratch = tempfile.TemporaryDirectory()
        cls.shape = os.path.join(cls.scratch.name, "bar.off")
        cls.vertex_count = write_bar(cls.shape)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()


class SimulationTest(BarCase):

    def cli(self, *arguments):
        out = os.path.join(self.scratch.name, "cli.pc2")
        subprocess.run([CLI, "simulate", *arguments, "--quiet", "-o", out], check=True)
        return read_pc2_raw(out)

    def test_shape_equals_the_cli(self):
        cli = self.cli(self.shape, *FLAGS)
        sim = wobble.Simulation(self.shape, **SETTINGS)
        self.assertEqual((sim.object_count, sim.point_count, sim.handles), (1, self.vertex_count, [4]))
        self.assertEqual((sim.frames, sim.fps, sim.substeps, sim.frame), (6, 30.0, 2, 0))
        frames = sim.run()
        self.assertEqual(frames.shape, (6, self.vertex_count, 3))
        self.assertEqual(frames.dtype, np.float32)
        np.testing.assert_array_equal(frames, cli)  # the same computation: identical floats
        self.assertEqual(sim.frame, 5)
        self.assertAlmostEqual(sim.time, 5 / 30)
        # Frame 0 is the input shape (outputs in the file's frame); then it moves (gravity, pin).
        np.testing.assert_allclose(frames[0], wobble.load(self.shape).positions, atol=1e-6)
        self.assertGreater(np.abs(frames[-1] - frames[0]).max(), 1e-3)
        self.assertTrue(np.isfinite(frames).all())

    def test_frame_by_frame_equals_run(self):
        whole = wobble.Simulation(self.shape, **SETTINGS).run()
        by_key = {**SETTINGS, "youngs_modulus": SETTINGS["youngs"]}
        del by_key["youngs"]
        np.testing.assert_array_equal(wobble.Simulation(self.shape, **by_key).run(), whole)
        sim = wobble.Simulation(self.shape, **SETTINGS)
        steps = [sim.positions]
        for _ in range(5):
            sim.advance()
            steps.append(sim.positions)
        np.testing.assert_array_equal(np.stack(steps), whole)
        np.testing.assert_array_equal(sim.object_positions(0), steps[-1])
        self.assertEqual(sim.positions.shape, (self.vertex_count, 3))
        self.assertEqual(sim.positions.dtype, np.float32)
        # The subspace: W at the vertices, z of the body; triangles index the positions.
        W = sim.weights(0)
        self.assertEqual(W.shape, (self.vertex_count, 4))
        self.assertTrue(np.isfinite(W).all())
        self.assertEqual(sim.z(0).shape, (48,))
        self.assertGreater(np.abs(sim.z(0)).max(), 0)
        self.assertEqual(sim.triangles.dtype, np.uint32)
        self.assertEqual(int(sim.triangles.max()), self.vertex_count - 1)

    def test_settings_change_the_result(self):
        a = wobble.Simulation(self.shape, **SETTINGS).run(3)
        b = wobble.Simulation(self.shape, **{**SETTINGS, "gravity": None}).run(3)
        self.assertEqual(a.shape, (3, self.vertex_count, 3))
        self.assertGreater(np.abs(a[-1] - b[-1]).max(), 1e-4)
        # gravity=None is --no-gravity
        flags = FLAGS.copy()
        flags[flags.index("--frames") + 1] = "3"
        cli = self.cli(self.shape, *flags, "--no-gravity")
        np.testing.assert_array_equal(b, cli)

    def test_scene_equals_the_cli(self):
        scene = {
            "fps": 30, "frames": 4, "substeps": 2,
            "objects": [
                {"file": "bar.off", "handles": 4, "points": 150, "sample_grid": 10, "field_grid": 8,
                 "pin": "y>0.8", "material": {"youngs_modulus": 3e4}},
                {"file": "bar.off", "handles": 3, "points": 150, "sample_grid": 10, "field_grid": 8,
                 "position": [3, 0, 0], "velocity": [0, 1, 0]},
            ],
            "planes": [{"origin": [0, -1.2, 0], "normal": [0, 1, 0]}],
        }
        path = os.path.join(self.scratch.name, "scene.json")
        with open(path, "w") as f:
            json.dump(scene, f)
        cli = self.cli(path)
        from_file = wobble.Simulation.from_scene(path)
        self.assertEqual((from_file.object_count, from_file.handles), (2, [4, 3]))
        frames = from_file.run()
        self.assertEqual(frames.shape, (4, 2 * self.vertex_count, 3))
        np.testing.assert_array_equal(frames, cli)
        self.assertGreater(np.abs(frames[-1] - frames[0]).max(), 1e-3)  # not a comparison of rest shapes
        from_dict = wobble.Simulation.from_scene(scene, base=self.scratch.name)
        np.testing.assert_array_equal(from_dict.run(), cli)


RIGGED = os.path.join(os.environ.get("WOBBLE_SHARED_ASSETS", "../shared/assets"), "characters/RiggedSimple/RiggedSimple.gltf")
RIG_SETTINGS = {"handles": 4, "points": 200, "sample_grid": 12, "field_grid": 10, "fps": 30.0, "substeps": 2,
                "youngs": 2e4}
RIG_FLAGS = ["--handles", "4", "--points", "200", "--sample-grid", "12", "--field-grid", "10", "--fps", "30",
             "--substeps", "2", "--youngs", "2e4"]


class RigSimulationTest(unittest.TestCase):
    """wobble.RigSimulation against `wobble simulate --rig CHARACTER --clip CLIP`."""

    @classmethod
    def setUpClass(cls):
        wobble.set_log_level("error")
        cls.scratch = tempfile.TemporaryDirectory()
        cls.character = wobble.load(RIGGED)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def cli(self, *arguments):
        out = os.path.join(self.scratch.name, "rig.pc2")
        subprocess.run([CLI, "simulate", "--rig", RIGGED, *arguments, "--quiet", "-o", out], check=True)
        return read_pc2_raw(out)

    def test_clip_equals_the_cli(self):
        cli = self.cli("--clip", "0", *RIG_FLAGS)
        sim = wobble.RigSimulation(self.character, 0, **RIG_SETTINGS)
        clip = self.character.clip_names[0]
        self.assertEqual((sim.frame, sim.clip, sim.fps, sim.substeps, sim.handles), (0, clip, 30.0, 2, 4))
        frames = sim.run()
        self.assertEqual(frames.shape, (sim.frames, self.character.positions.shape[0], 3))
        np.testing.assert_array_equal(frames, cli)  # the same computation: identical floats
        self.assertEqual(sim.frame, sim.frames - 1)
        # Secondary motion on top of the rig: LBS of the same frames differs, but not by much.
        _, lbs = wobble.bake(self.character, clip, "lbs", fps=30.0)
        count = min(len(lbs), len(frames))
        offset = np.abs(frames[:count] - lbs[:count]).max() / self.character.size
        self.assertGreater(offset, 1e-6)
        self.assertLess(offset, 0.5)
        self.assertGreater(np.abs(sim.z).max(), 0)
        self.assertLess(sim.complementarity, 1e-4)  # constrained eigenmodes: complementary up to the solver

    def test_frame_by_frame_and_options(self):
        whole = wobble.RigSimulation(RIGGED, self.character.clip_names[0], **RIG_SETTINGS).run(5)  # by name and path
        sim = wobble.RigSimulation(self.character, 0, **RIG_SETTINGS)
        start = sim.time  # the clip's first key
        steps = [sim.positions]
        for _ in range(4):
            sim.advance()
            steps.append(sim.positions)
        np.testing.assert_array_equal(np.stack(steps), whole)
        self.assertAlmostEqual(sim.time - start, 4 / 30, places=6)
        no_inertia = wobble.RigSimulation(self.character, 0, rig_inertia=False, **RIG_SETTINGS).run(5)
        self.assertGreater(np.abs(no_inertia - whole).max(), 0)
        np.testing.assert_array_equal(no_inertia, self.cli("--clip", "0", "--rig-inertia", "false", *RIG_FLAGS)[:5])

    def test_bad_input(self):
        wobble.set_log_level("off")
        for mention, args, kwargs in (("NoSuchClip", (self.character, "NoSuchClip"), {}),
                                      ("wobble.Character or a file", (42,), {}),
                                      ("missing.glb", (os.path.join(self.scratch.name, "missing.glb"),), {}),
                                      ("fps", (self.character,), {"fps": 0.0}),
                                      ("substeps", (self.character,), {"substeps": 0})):
            with self.assertRaises(wobble.Error) as raised:
                wobble.RigSimulation(*args, **kwargs)
            self.assertIn(mention, str(raised.exception))
        sim = wobble.RigSimulation(self.character, 0, **RIG_SETTINGS)
        with self.assertRaises(wobble.Error):
            sim.advance(-1)


class NeuralSubspaceTest(BarCase):
    """Simulation(subspace="neural") against `wobble simulate --subspace neural`: both evaluate the
    shipped .wfield model without LibTorch, whatever the module's build (wobble.has_neural: whether
    it also reads LibTorch .pt models)."""

    def test_neural_equals_the_cli(self):
        out = os.path.join(self.scratch.name, "neural.pc2")
        subprocess.run([CLI, "simulate", self.shape, *FLAGS, "--subspace", "neural", "--quiet", "-o", out], check=True)
        sim = wobble.Simulation(self.shape, subspace="neural", **SETTINGS)
        frames = sim.run()
        np.testing.assert_array_equal(frames, read_pc2_raw(out))
        eigen = wobble.Simulation(self.shape, **SETTINGS).run()
        self.assertGreater(np.abs(frames - eigen).max(), 1e-6)  # a different subspace, not eigenmodes again
        with self.assertRaises(wobble.Error) as raised:
            wobble.Simulation(self.shape, subspace="neural", neural_model=os.path.join(self.scratch.name, "no.wfield"),
                              **SETTINGS)
        self.assertIn("no.wfield", str(raised.exception))

    def test_rig_neural_equals_the_cli(self):
        out = os.path.join(self.scratch.name, "rig_neural.pc2")
        subprocess.run([CLI, "simulate", "--rig", RIGGED, "--clip", "0", *RIG_FLAGS, "--subspace", "neural", "--quiet",
                        "-o", out], check=True)
        sim = wobble.RigSimulation(RIGGED, 0, subspace="neural", **RIG_SETTINGS)
        np.testing.assert_array_equal(sim.run(), read_pc2_raw(out))
        self.assertGreaterEqual(sim.complementarity, 0.0)

    def test_unknown_subspace(self):
        with self.assertRaises(wobble.Error) as raised:
            wobble.Simulation(self.shape, subspace="magic", **SETTINGS)
        self.assertIn("magic", str(raised.exception))
        with self.assertRaises(wobble.Error) as raised:
            wobble.RigSimulation(RIGGED, 0, subspace="magic", **RIG_SETTINGS)
        self.assertIn("magic", str(raised.exception))
        with self.assertRaises(wobble.Error) as raised:  # a model file without subspace='neural'
            wobble.Simulation(self.shape, neural_model="model.pt", **SETTINGS)
        self.assertIn("model.pt", str(raised.exception))


class SimulationErrorTest(BarCase):
    LOG_LEVEL = "off"

    def assert_error(self, mention, function, *args, **kwargs):
        with self.assertRaises(wobble.Error) as raised:
            function(*args, **kwargs)
        self.assertIn(mention, str(raised.exception))
        self.assertNotIn("\n", str(raised.exception))
        self.assertIsInstance(raised.exception, ValueError)

    def test_bad_input(self):
        small = {"handles": 3, "points": 100, "sample_grid": 8, "field_grid": 8}
        self.assert_error("missing.off", wobble.Simulation, os.path.join(self.scratch.name, "missing.off"))
        self.assert_error("from_scene", wobble.Simulation, os.path.join(self.scratch.name, "scene.json"))
        self.assert_error("pin", wobble.Simulation, self.shape, pin="y >", **small)
        self.assert_error("rubber", wobble.Simulation, self.shape, model="rubber", **small)
        self.assert_error("oisson", wobble.Simulation, self.shape, poisson=0.7, **small)
        self.assert_error("frames: 0 is out of range [1, 10000000]", wobble.Simulation, self.shape, frames=0, **small)
        # The bad values (hardened input): refused with what is wrong, before the solver.
        self.assert_error("pin_blend: -1 is out of range [0, 10]", wobble.Simulation, self.shape, pin_blend=-1, **small)
        self.assert_error("floor height inf", wobble.Simulation, self.shape, floor=float("inf"), **small)
        self.assert_error("gravity", wobble.Simulation, self.shape, gravity=1e308, **small)
        self.assert_error("fps", wobble.Simulation, self.shape, fps=float("nan"), **small)
        self.assert_error("handles: 100000 is out of range [1, 256]", wobble.Simulation, self.shape,
                          **{**small, "handles": 100000})
        self.assert_error("points: 0 is out of range [10, 1000000]", wobble.Simulation, self.shape,
                          **{**small, "points": 0})
        self.assert_error("gravity", wobble.Simulation, self.shape, gravity=[0, 1], **small)
        # The keywords are docs/physics-parameters.md's keys (or the CLI's flag spellings).
        self.assert_error("Simulation: stiffness: unknown keyword", wobble.Simulation, self.shape, stiffness=3, **small)
        self.assert_error("contact_radius: unknown keyword", wobble.Simulation, self.shape, contact_radius=0.1, **small)
        self.assert_error("objects", wobble.Simulation.from_scene, {"fps": 30})
        self.assert_error("expected a SCENE.json path", wobble.Simulation.from_scene, 42)
        broken = os.path.join(self.scratch.name, "broken.json")
        with open(broken, "w") as f:
            f.write("{not json")
        self.assert_error("broken.json", wobble.Simulation.from_scene, broken)
        sim = wobble.Simulation(self.shape, **small)
        self.assert_error("object 1", sim.weights, 1)
        self.assert_error("frames", sim.advance, -1)
        self.assert_error("frames", sim.run, 0)


if __name__ == "__main__":
    unittest.main()
