"""wobble.batch on a Dask cluster on 127.0.0.1 (distributed.LocalCluster, 2 worker processes):
outputs equal to single `wobble bake` runs, a broken input failing alone, resuming across Dask and
local runs, `wobble batch --scheduler`, and a worker process killed while it bakes.
Run by CTest (python.batch_dask) with PYTHONPATH=BUILD/python and WOBBLE_CLI set."""
import json
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import distributed
import psutil

import wobble

CLI = os.path.abspath(os.environ.get("WOBBLE_CLI", "build/wobble"))
CLONK = os.path.join(os.environ.get("WOBBLE_BUNDLED_ASSETS", "build/assets"), "clonk.glb")
SHARED = os.environ.get("WOBBLE_SHARED_ASSETS", "../shared/assets")
CHARACTERS = os.path.join(SHARED, "characters")
DEFAULT_SETTINGS = {"dynamic": {"amplitude": 0.4}}

# (manifest entry, the `wobble bake` flags that must give the same bytes, bake's settings)
CASES = [
    ({"input": CLONK, "clip": "Walk", "output": "out/clonk_walk.pc2"}, ["--clip", "Walk"], DEFAULT_SETTINGS),
    ({"input": CLONK, "clip": "Run", "deformer": "dqs", "output": "out/clonk_run.glb"},
     ["--clip", "Run", "--deformer", "dqs"], DEFAULT_SETTINGS),
    ({"input": CLONK, "clip": "JumpDive", "deformer": "lbs,dynamic", "settings": {"dynamic": {"drag": 0.2}},
      "output": "out/clonk_jump.pc2"},
     ["--clip", "JumpDive", "--deformer", "lbs,dynamic"], {"dynamic": {"amplitude": 0.4, "drag": 0.2}}),
    ({"input": CLONK, "clip": "Walk", "deformer": "dlbs,dynamic", "settings": "dyn.json",
      "output": "out/clonk_walk_dlbs.gltf"},
     ["--clip", "Walk", "--deformer", "dlbs,dynamic"], {"dynamic": {"amplitude": 0.4, "frequency": 3}}),
    ({"input": CLONK, "clip": "Swim", "deformer": "lbs,deltamush", "output": "out/clonk_mush/"},
     ["--clip", "Swim", "--deformer", "lbs,deltamush"], DEFAULT_SETTINGS),
    ({"input": CLONK, "clip": "Dig", "fps": 15, "start": 0.2, "output": "out/clonk_dig.pc2"},
     ["--clip", "Dig", "--fps", "15", "--start", "0.2"], DEFAULT_SETTINGS),
    ({"input": os.path.join(CHARACTERS, "wipf.glb"), "clip": 1, "deformer": "lbs,dynamic", "output": "out/wipf_1.glb"},
     ["--clip", "1", "--deformer", "lbs,dynamic"], DEFAULT_SETTINGS),
    ({"input": os.path.join(CHARACTERS, "wipf.glb"), "clip": 2, "deformer": "dqs", "output": "out/wipf_2.pc2"},
     ["--clip", "2", "--deformer", "dqs"], DEFAULT_SETTINGS),
    ({"input": os.path.join(CHARACTERS, "RiggedFigure", "RiggedFigure.gltf"), "output": "out/figure.pc2"}, [],
     DEFAULT_SETTINGS),
    ({"input": os.path.join(CHARACTERS, "RiggedFigure", "RiggedFigure.gltf"), "deformer": "lbs,ddm",
      "output": "out/figure_ddm.glb"}, ["--deformer", "lbs,ddm"], DEFAULT_SETTINGS),
    ({"input": os.path.join(CHARACTERS, "RiggedSimple", "RiggedSimple.gltf"), "deformer": "lbs,dynamic",
      "output": "out/simple/"}, ["--deformer", "lbs,dynamic"], DEFAULT_SETTINGS),
    ({"input": os.path.join(CHARACTERS, "velocity_skinning", "vs_bird.glb"), "deformer": "lbs,dynamic",
      "output": "out/bird.pc2"}, ["--deformer", "lbs,dynamic"], DEFAULT_SETTINGS),
    ({"input": "broken.glb", "output": "out/broken.pc2"}, [], DEFAULT_SETTINGS),
]
BROKEN = len(CASES) - 1


def write_manifest(folder):
    with open(os.path.join(folder, "broken.glb"), "w") as f:
        f.write("glTF this is not a binary glTF file")
    with open(os.path.join(folder, "dyn.json"), "w") as f:
        json.dump({"dynamic": {"frequency": 3}}, f)
    manifest = os.path.join(folder, "batch.json")
    with open(manifest, "w") as f:
        json.dump({"defaults": {"fps": 10, "end": 0.6, "settings": DEFAULT_SETTINGS},
                   "jobs": [entry for entry, _, _ in CASES]}, f)
    return manifest


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def output_bytes(path):
    """A file's bytes, or a folder's files' bytes by name (OBJ sequences); None when missing."""
    if os.path.isdir(path):
        return {name: read_bytes(os.path.join(path, name)) for name in sorted(os.listdir(path))}
    return read_bytes(path) if os.path.exists(path) else None


def bake_references(folder):
    """Each job as its own `wobble bake` command; the outputs by job index."""
    references = {}
    for i, (entry, flags, settings) in enumerate(CASES[:BROKEN]):
        settings_file = os.path.join(folder, f"settings{i}.json")
        with open(settings_file, "w") as f:
            json.dump(settings, f)
        suffix = "/" if entry["output"].endswith("/") else os.path.splitext(entry["output"])[1]
        output = os.path.join(folder, f"{i}{suffix}")
        defaults = ["--end", "0.6"] + ([] if "--fps" in flags else ["--fps", "10"])  # the manifest's, unless set
        subprocess.run([CLI, "bake", entry["input"], *defaults, *flags, "--settings",
                        settings_file, "-q", "-o", output], check=True)
        references[i] = output_bytes(output)
    return references


def statuses(report):
    return [job["status"] for job in report["jobs"]]


class DaskBatchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="wobble-dask-test-")
        os.makedirs(os.path.join(cls.scratch, "ref"))
        cls.references = bake_references(os.path.join(cls.scratch, "ref"))
        cls.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                               dashboard_address=None, silence_logs=logging.CRITICAL)
        cls.client = distributed.Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def fresh_manifest(self, name):
        folder = os.path.join(self.scratch, name)
        os.makedirs(folder)
        return write_manifest(folder)

    def assert_outputs_match_references(self, manifest, report):
        folder = os.path.dirname(manifest)
        self.assertEqual(statuses(report), ["done"] * BROKEN + ["failed"])
        for i, (entry, _, _) in enumerate(CASES[:BROKEN]):
            self.assertEqual(output_bytes(os.path.join(folder, entry["output"])), self.references[i], entry["output"])
        self.assertIn("broken.glb", report["jobs"][BROKEN]["error"])
        self.assertIsNone(output_bytes(os.path.join(folder, "out", "broken.pc2")))
        leftovers = [name for name in os.listdir(os.path.join(folder, "out")) if ".tmp-" in name]
        self.assertEqual(leftovers, [])

    def test_cli_scheduler_then_resume_across_dask_and_local_runs(self):
        manifest = self.fresh_manifest("cli")
        report_file = os.path.join(os.path.dirname(manifest), "report.json")
        done = subprocess.run([CLI, "batch", manifest, "--scheduler", self.cluster.scheduler_address, "--quiet",
                               "--report", report_file], capture_output=True, text=True)
        self.assertEqual(done.returncode, 1, done.stderr)  # the broken input
        self.assertIn("broken.glb", done.stderr)
        with open(report_file) as f:
            report = json.load(f)
        self.assert_outputs_match_references(manifest, report)
        self.assertEqual(report["counts"], {"done": BROKEN, "skipped": 0, "failed": 1})

        # Up to date for Dask and for a local run alike: the same sidecars.
        again = wobble.batch.run(manifest, client=self.client, quiet=True)
        self.assertEqual(statuses(again), ["skipped"] * BROKEN + ["failed"])
        local = wobble.batch.run(manifest, jobs=2, quiet=True)
        self.assertEqual(statuses(local), ["skipped"] * BROKEN + ["failed"])

        # A changed settings file: that job alone is redone, on the cluster.
        with open(os.path.join(os.path.dirname(manifest), "dyn.json"), "w") as f:
            json.dump({"dynamic": {"frequency": 4}}, f)
        changed = wobble.batch.run(manifest, client=self.client, quiet=True)
        expected = ["skipped"] * BROKEN + ["failed"]
        expected[3] = "done"
        self.assertEqual(statuses(changed), expected)

    def test_a_killed_worker_process_does_not_change_the_outputs(self):
        manifest = self.fresh_manifest("killed")
        killed = {}

        def kill_a_worker_while_it_bakes():
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not killed:
                for address, pid in self.client.run(os.getpid).items():
                    bakes = [p for p in psutil.Process(pid).children(recursive=True) if "bake" in p.cmdline()]
                    if bakes:
                        outputs = {word[len("--output="):] for bake in bakes for word in bake.cmdline()
                                   if word.startswith("--output=")}
                        killed.update(address=address, pid=pid, bakes=bakes, outputs=outputs)
                        os.kill(pid, signal.SIGKILL)
                        return
                time.sleep(0.02)

        killer = threading.Thread(target=kill_a_worker_while_it_bakes)
        killer.start()
        report = wobble.batch.run(manifest, client=self.client, quiet=True)
        killer.join()
        self.assertTrue(killed, "no worker was caught baking")
        self.assert_outputs_match_references(manifest, report)
        # The report says which jobs ran again: those whose bake the killed worker ran, and only those.
        killed_outputs = killed["outputs"]
        retried = {job["output"] for job in report["jobs"] if job.get("attempts", 1) > 1}
        self.assertTrue(killed_outputs)
        self.assertEqual(retried, killed_outputs)
        for job in report["jobs"]:
            if job["status"] != "skipped":
                self.assertEqual(job["attempts"], 2 if job["output"] in killed_outputs else 1, job)
        # The killed worker's bakes died with it (PR_SET_PDEATHSIG), none is left running.
        time.sleep(0.2)
        self.assertFalse([p.pid for p in killed["bakes"] if p.is_running() and p.status() != psutil.STATUS_ZOMBIE])


if __name__ == "__main__":
    unittest.main()
