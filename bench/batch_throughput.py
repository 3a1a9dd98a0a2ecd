"""Batch throughput: 24 small bakes (the bundled clonk.glb, 12 clips x 2 stacks, 30 fps, the first
second) through `wobble batch --jobs 1`, `--jobs 2`, and a Dask LocalCluster of 2 worker
processes (one thread each) on 127.0.0.1, every run with --force so that each bakes all 24.

    PYTHONPATH=build/python nice -n 19 /usr/bin/python3 bench/batch_throughput.py [--repeats 5]

Prints, per mode, the median wall time and jobs per minute, the scaling ratios against --jobs 1
(measured in the same process, interleaved), the overhead per job in wall time (wall time x slots
/ jobs minus the mean time inside `wobble bake`, the report's seconds), and the CPU time per job
of everything the mode ran (this process with the in-process Dask scheduler and client, its child
processes, and the Dask nannies and workers with their children): the CPU figure does not depend
on how busy a shared machine is, and its difference between modes is what Dask costs per job.
"""
import argparse
import json
import logging
import os
import statistics
import tempfile
import time

import psutil

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


def cpu_seconds(processes):
    """User and system time of this process, its finished children, and `processes` (with theirs)."""
    own = os.times()
    total = own.user + own.system + own.children_user + own.children_system
    for process in processes:
        times = process.cpu_times()
        total += times.user + times.system + times.children_user + times.children_system
    return total


def timed(run, processes):
    start, start_cpu = time.monotonic(), cpu_seconds(processes)
    report = run()
    wall, cpu = time.monotonic() - start, cpu_seconds(processes) - start_cpu
    assert report["counts"]["done"] == len(report["jobs"]), report["counts"]
    return wall, cpu, statistics.mean(job["seconds"] for job in report["jobs"])


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
    workers = [psutil.Process(pid) for pid in client.run(os.getpid).values()]
    dask_processes = workers + [worker.parent() for worker in workers]  # and their nannies
    with tempfile.TemporaryDirectory(prefix="wobble-batch-bench-") as folder:
        manifest, count = write_manifest(folder, clonk, CLIPS)
        modes = {
            "jobs 1": (1, lambda: wobble.batch.run(manifest, jobs=1, force=True, quiet=True, wobble_cli=args.cli)),
            "jobs 2": (2, lambda: wobble.batch.run(manifest, jobs=2, force=True, quiet=True, wobble_cli=args.cli)),
            "dask 2 workers": (2, lambda: wobble.batch.run(manifest, client=client, force=True, quiet=True,
                                                           wobble_cli=args.cli)),
        }
        walls, cpus, bakes = ({name: [] for name in modes} for _ in range(3))
        for _ in range(args.repeats):  # interleaved, so that the machine's load hits every mode alike
            for name, (_, run) in modes.items():
                wall, cpu, bake = timed(run, dask_processes if name.startswith("dask") else [])
                walls[name].append(wall)
                cpus[name].append(cpu)
                bakes[name].append(bake)
    client.close()
    cluster.close()

    base = statistics.median(walls["jobs 1"])
    print(f"{count} jobs, {args.repeats} repeats, medians (load average {os.getloadavg()[0]:.1f}):")
    for name, (slots, _) in modes.items():
        wall = statistics.median(walls[name])
        bake = statistics.median(bakes[name])
        overhead = wall * slots / count - bake
        cpu = statistics.median(cpus[name]) / count
        print(f"  {name:15s} {wall:6.2f} s  {count / wall * 60:6.1f} jobs/min  x{base / wall:4.2f} vs jobs 1  "
              f"bake {bake * 1000:5.0f} ms/job  wall overhead {overhead * 1000:5.0f} ms/job  "
              f"CPU {cpu * 1000:5.0f} ms/job")


if __name__ == "__main__":
    main()
