"""Batch throughput: 24 small bakes (the bundled clonk.glb, 12 clips x 2 stacks, 30 fps, the first
second) through `wobble batch --jobs 1`, `--jobs 2`, and a Dask LocalCluster of 2 worker
processes (one thread each) on 127.0.0.1, every run with --force so that each bakes all 24.

    PYTHONPATH=build/python nice -n 19 /usr/bin/python3 bench/batch_throughput.py [--repeats 5]

Prints, per mode, the median wall time and jobs per minute, the scaling ratios against --jobs 1
(measured in the same process, interleaved), and the overhead per job: wall time x slots / jobs
minus the mean time inside `wobble bake` (the report's seconds), i.e. what the batch machinery
costs each job beyond the bake itself.
"""
import argparse
import json
import logging
import os
import statistics
import tempfile
import time

import wobble

CLIPS = ["Walk", "Run", "Swim", "Dig", "Stand", "Scale", "Hangle", "Tumble", "JumpDive", "Push", "Eat", "KneelRoll"]
STACKS = [("lbs,dynamic", ".pc2"), ("dqs", ".glb")]


def write_manifest(folder, clonk, clips):
    jobs = [{"clip": clip, "deformer": stack, "output": f"out/{clip}_{stack.replace(',', '_')}{extension}"}
            for clip in clips for stack, extension in STACKS]
    manifest = os.path.join(folder, "batch.json")
    with open(manifest, "w") as f:
        json.dump({"defaults": {"input": clonk, "fps": 30, "end": 1.0}, "jobs": jobs}, f)
    return manifest, len(jobs)


def timed(run):
    start = time.monotonic()
    report = run()
    wall = time.monotonic() - start
    assert report["counts"]["done"] == len(report["jobs"]), report["counts"]
    return wall, statistics.mean(job["seconds"] for job in report["jobs"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cli", default=os.environ.get("WOBBLE_CLI", "build/wobble"))
    parser.add_argument("--clonk", default="build/assets/clonk.glb")
    args = parser.parse_args()
    wobble.set_log_level("error")
    clonk = os.path.abspath(args.clonk)

    import distributed

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
    client = distributed.Client(cluster)
    with tempfile.TemporaryDirectory(prefix="wobble-batch-bench-") as folder:
        manifest, count = write_manifest(folder, clonk, CLIPS)
        modes = {
            "jobs 1": (1, lambda: wobble.batch.run(manifest, jobs=1, force=True, quiet=True, wobble_cli=args.cli)),
            "jobs 2": (2, lambda: wobble.batch.run(manifest, jobs=2, force=True, quiet=True, wobble_cli=args.cli)),
            "dask 2 workers": (2, lambda: wobble.batch.run(manifest, client=client, force=True, quiet=True,
                                                           wobble_cli=args.cli)),
        }
        walls = {name: [] for name in modes}
        bakes = {name: [] for name in modes}
        for _ in range(args.repeats):  # interleaved, so that the machine's load hits every mode alike
            for name, (_, run) in modes.items():
                wall, bake = timed(run)
                walls[name].append(wall)
                bakes[name].append(bake)
    client.close()
    cluster.close()

    base = statistics.median(walls["jobs 1"])
    print(f"{count} jobs, {args.repeats} repeats, medians:")
    for name, (slots, _) in modes.items():
        wall = statistics.median(walls[name])
        bake = statistics.median(bakes[name])
        overhead = wall * slots / count - bake
        print(f"  {name:15s} {wall:6.2f} s  {count / wall * 60:6.1f} jobs/min  x{base / wall:4.2f} vs jobs 1  "
              f"bake {bake * 1000:5.0f} ms/job  overhead {overhead * 1000:5.0f} ms/job")


if __name__ == "__main__":
    main()
