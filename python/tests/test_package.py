"""The package layout: `import wobble` is python/wobble/__init__.py re-exporting the compiled
wobble._wobble, and wobble.batch runs manifests (here with local processes; Dask in batch/)."""
import json
import os
import subprocess
import tempfile
import unittest

import wobble

CLI = os.environ.get("WOBBLE_CLI", "build/wobble")
CLONK = os.path.join(os.environ.get("WOBBLE_BUNDLED_ASSETS", "build/assets"), "clonk.glb")


class PackageTest(unittest.TestCase):
    def test_the_package_re_exports_the_compiled_module(self):
        self.assertEqual(os.path.basename(wobble.__file__), "__init__.py")
        self.assertTrue(wobble._wobble.__file__.endswith(".so"))
        self.assertIs(wobble.load, wobble._wobble.load)
        self.assertIs(wobble.Error, wobble._wobble.Error)
        self.assertEqual(wobble.Error.__module__, "wobble")  # messages say wobble.Error
        self.assertEqual(wobble.__version__, wobble._wobble.__version__)

    def test_batch_run_without_a_client_bakes_with_local_processes(self):
        with tempfile.TemporaryDirectory() as folder:
            manifest = os.path.join(folder, "batch.json")
            with open(manifest, "w") as f:
                json.dump({"defaults": {"input": CLONK, "fps": 10, "end": 0.3},
                           "jobs": [{"clip": "Walk", "output": "a.pc2"},
                                    {"clip": "Run", "deformer": "lbs,dynamic", "output": "b.pc2"}]}, f)
            report = wobble.batch.run(manifest, jobs=2, quiet=True, wobble_cli=CLI)
            self.assertEqual([job["status"] for job in report["jobs"]], ["done", "done"])
            self.assertEqual(report["counts"], {"done": 2, "skipped": 0, "failed": 0})
            subprocess.run([CLI, "bake", CLONK, "--clip", "Run", "--fps", "10", "--end", "0.3", "--deformer",
                            "lbs,dynamic", "-q", "-o", os.path.join(folder, "alone.pc2")], check=True)
            with open(os.path.join(folder, "b.pc2"), "rb") as a, open(os.path.join(folder, "alone.pc2"), "rb") as b:
                self.assertEqual(a.read(), b.read())
            self.assertEqual([job["status"] for job in wobble.batch.run(manifest, quiet=True)["jobs"]],
                             ["skipped", "skipped"])

    def test_batch_run_raises_wobble_error_for_a_bad_manifest(self):
        with tempfile.TemporaryDirectory() as folder:
            manifest = os.path.join(folder, "batch.json")
            with open(manifest, "w") as f:
                json.dump({"jobs": [{"input": CLONK, "output": "a.pc2", "fsp": 10}]}, f)
            with self.assertRaisesRegex(wobble.Error, r"jobs\[0\]: unknown key 'fsp' \(the closest valid key is 'fps'\)"):
                wobble.batch.run(manifest, quiet=True)


if __name__ == "__main__":
    unittest.main()
