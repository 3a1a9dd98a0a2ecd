"""wobble.bake(..., helper_bones=N): the saved file has the character's joints and N helpers, and
plain LBS of it (computed here in numpy) plays the stack's bake back at the error HelperBones
reports; the file is the one `wobble bake --helper-bones` writes; bad keywords are errors."""
import os
import subprocess
import tempfile
import unittest

import numpy as np

import wobble

CLONK = os.path.join(os.environ.get("WOBBLE_BUNDLED_ASSETS", "build/assets"), "clonk.glb")
CLI = os.environ.get("WOBBLE_CLI", "build/wobble")
RANGE = {"fps": 20, "start": 0.0, "end": 0.5, "threads": 2}


def lbs_frames(character, clip, times):
    """Plain LBS of a character's skin, posed by its clip at each time: (F, N, 3) float64."""
    offsets, joints, weights = character.skin
    rows = np.repeat(np.arange(character.vertex_count), np.diff(offsets))
    rest = np.c_[character.positions.astype(np.float64), np.ones(character.vertex_count)][rows]
    frames = []
    for t in times:
        skinning = character.pose(clip, t).skinning.astype(np.float64)[joints]
        moved = weights[:, None] * np.einsum("kij,kj->ki", skinning, rest)[:, :3]
        frame = np.zeros((character.vertex_count, 3))
        np.add.at(frame, rows, moved)
        frames.append(frame)
    return np.array(frames)


def rms(a, b):
    return float(np.sqrt(np.mean(np.sum((a - b) ** 2, axis=-1))))


class HelperBonesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        wobble.set_log_level("error")
        cls.clonk = wobble.load(CLONK)
        cls.times, cls.frames, cls.helpers = wobble.bake(
            cls.clonk, "Walk", "lbs,dynamic", **RANGE, helper_bones=3, helper_influences=4,
            helper_settings={"iterations": 10})
        cls.folder = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.folder.name, "helpers.glb")
        cls.helpers.save(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_the_file_has_the_joints_and_three_helpers(self):
        played = wobble.load(self.path)
        joints = self.clonk.joint_count
        self.assertEqual(self.helpers.helpers, 3)
        self.assertEqual(played.joint_count, joints + 3)
        self.assertEqual(played.joint_names[:joints], self.clonk.joint_names)
        self.assertEqual(played.joint_names[joints:], ["wobble_helper_0", "wobble_helper_1", "wobble_helper_2"])
        self.assertTrue(all(0 <= p < joints for p in played.parents[joints:]))  # children of the character's joints
        self.assertEqual(played.clip_names, ["Walk"])
        self.assertEqual(self.helpers.character.joint_count, joints + 3)

    def test_plain_skinning_of_the_file_plays_the_stack_back_as_reported(self):
        played = lbs_frames(wobble.load(self.path), "Walk", self.times)
        error = rms(played, self.frames)
        self.assertAlmostEqual(error, self.helpers.rmse, delta=1e-4 * error)
        secondary = rms(lbs_frames(self.clonk, "Walk", self.times), self.frames)
        self.assertAlmostEqual(secondary, self.helpers.secondary_rms, delta=1e-4 * secondary)
        self.assertLess(error, 0.7 * secondary)  # the helpers carry a good part of the secondary motion

    def test_the_file_is_the_clis(self):
        cli_path = os.path.join(self.folder.name, "cli.glb")
        subprocess.run([CLI, "bake", CLONK, "--clip", "Walk", "--deformer", "lbs,dynamic", "--fps", "20", "--start", "0",
                        "--end", "0.5", "--helper-bones", "3", "--helper-influences", "4", "--helper-iterations", "10",
                        "-q", "-o", cli_path], check=True)
        with open(cli_path, "rb") as cli, open(self.path, "rb") as module:
            self.assertEqual(cli.read(), module.read())

    def test_bad_keywords_are_errors_naming_them(self):
        cases = [({"helper_bones": 0}, "helper_bones: 0 is out of range"),
                 ({"helper_bones": 2, "helper_influences": 9}, "helper_influences: 9 is out of range"),
                 ({"helper_bones": 2.5}, "helper_bones"),
                 ({"helper_influences": 2}, "helper_influences: only with helper_bones"),
                 ({"helper_bones": 2, "helper_settings": {"iteration": 5}}, "unknown parameter 'iteration'"),
                 ({"helper_bones": 2, "helper_settings": {"bones": 5}}, "give 'bones' as helper_bones"),
                 ({"helper_bones": 5000}, "helper_bones: 5000 is out of range")]
        for keywords, expected in cases:
            with self.subTest(keywords=keywords):
                with self.assertRaises(wobble.Error) as caught:
                    wobble.bake(self.clonk, "Walk", "lbs,dynamic", **RANGE, **keywords)
                self.assertIn(expected, str(caught.exception))

    def test_without_helper_bones_the_bake_is_two_arrays(self):
        result = wobble.bake(self.clonk, "Walk", "lbs,dynamic", **RANGE)
        self.assertEqual(len(result), 2)
        np.testing.assert_array_equal(result[1], self.frames)


if __name__ == "__main__":
    unittest.main()
