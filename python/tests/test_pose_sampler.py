"""Stack.evaluate with a host's pose sampler (pose_at), the path the Blender add-on takes to
sample its rig at the effect's 60 Hz: it must give what the clip itself gives (run by CTest with
the module of this build)."""
import os
import unittest

import numpy as np

import wobble

CLONK = os.path.join(os.environ.get("WOBBLE_BUNDLED_ASSETS", "build/assets"), "clonk.glb")
SETTINGS = {"dynamic": {"frequency": 2.0, "damping": 0.4, "amplitude": 0.5, "drag": 0.2}}


class PoseSamplerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.character = wobble.load(CLONK)

    def test_a_host_sampler_equals_the_clip_at_24_fps(self):
        c = self.character
        by_clip = wobble.Stack(c, "lbs,dynamic", SETTINGS)
        by_host = wobble.Stack(c, "lbs,dynamic", SETTINGS)
        asked = []

        def pose_at(t):
            asked.append(t)
            return c.pose("Walk", t)

        for frame in range(0, 25):
            t = frame / 24
            pose = c.pose("Walk", t)
            expected = by_clip.evaluate(pose, t, clip="Walk")
            np.testing.assert_array_equal(by_host.evaluate(pose, t, pose_at=pose_at), expected)
        # Between frames 1/24 s apart it sampled the 60 Hz grid (2.5 samples per frame).
        self.assertTrue(any(abs(t * 60 - round(t * 60)) < 1e-9 and abs(t * 24 - round(t * 24)) > 1e-6 for t in asked))

    def test_a_wrong_sampler_is_refused(self):
        c = self.character
        stack = wobble.Stack(c, "lbs,dynamic", SETTINGS)
        pose = c.pose("Walk", 0.0)
        stack.evaluate(pose, 0.0, pose_at=lambda t: c.pose("Walk", t))
        with self.assertRaises(wobble.Error):
            stack.evaluate(pose, 0.1, clip="Walk", pose_at=lambda t: pose)
        with self.assertRaises(wobble.Error):
            stack.evaluate(pose, 0.1, pose_at=42)


if __name__ == "__main__":
    unittest.main()
