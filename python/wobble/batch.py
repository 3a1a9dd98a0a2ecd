"""Many bakes from one manifest, on this machine or on a Dask cluster (docs/batch.md).

    import wobble
    report = wobble.batch.run("batch.json")                    # local processes
    from distributed import Client
    report = wobble.batch.run("batch.json", client=Client("tcp://HOST:8786"))

    python3 -m wobble.batch MANIFEST [--scheduler tcp://HOST:8786] [--force] [--report FILE] [--quiet]

The wobble command does the work, so that a local run, a Dask run and `wobble bake` agree byte
for byte: `wobble batch MANIFEST --plan` validates the manifest and says which jobs are up to
date; each other job becomes one Dask task that runs `wobble batch MANIFEST --job K` on a worker
(the bake, its log and its sidecar, as a local run writes them). A task whose process is killed
(its worker died) raises, and Dask runs it again, elsewhere when it can; a bake's output is
renamed into place whole, so a killed bake leaves no partial output. Workers must see the same
files as the client (a shared file system) and the wobble command: at the client's path, at
$WOBBLE_CLI, or on PATH.

The result is the report (also written with report=FILE): {"manifest", "wobble", "seconds",
"counts": {"done", "skipped", "failed"}, "jobs": [{"index", "name", "input", "output", "log",
"status", "seconds", "error"}, ...]}, the same as `wobble batch --report FILE` writes; on Dask each
job run also has "attempts" (1, or more when a worker died while it ran, or its try raised).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

from ._wobble import Error

RETRIES = 2  # runs of a task after its first one raised (a killed worker, a lost machine)


def find_wobble_command(explicit=None):
    """The wobble executable: `explicit`, $WOBBLE_CLI, the build's (BUILD/wobble next to
    BUILD/python/wobble/), or `wobble` on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (explicit, os.environ.get("WOBBLE_CLI"), os.path.join(here, os.pardir, os.pardir, "wobble")):
        if candidate and os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return os.path.abspath(candidate)
    found = shutil.which("wobble")
    if found:
        return found
    raise Error("batch: cannot find the wobble command (pass wobble_cli=, set WOBBLE_CLI, or put it on PATH)")


def run(manifest, client=None, *, jobs=None, force=False, report=None, quiet=False, wobble_cli=None,
        retries=RETRIES):
    """Runs the manifest's jobs: on the Dask cluster of `client` (a distributed.Client), or, when
    None, in `jobs` local processes (default: one per core). Jobs that are up to date are skipped
    unless `force`. Returns the report (a dict); raises wobble.Error for a bad manifest. A failed
    job is a report entry with status "failed" and its error, never an exception."""
    command = find_wobble_command(wobble_cli)
    manifest = os.path.abspath(os.fspath(manifest))
    if report:
        _check_writable(report)
    if client is None:
        return _run_locally(command, manifest, jobs, force, report, quiet)
    return _run_on_dask(client, command, manifest, force, report, quiet, retries)


def _error_line(stderr):
    lines = [line for line in stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else "wobble failed without a message"
    return last[len("wobble: error: "):] if last.startswith("wobble: error: ") else last


def _run_locally(command, manifest, jobs, force, report, quiet):
    with tempfile.TemporaryDirectory(prefix="wobble-batch-") as scratch:
        path = os.path.abspath(report) if report else os.path.join(scratch, "report.json")
        arguments = [command, "batch", manifest, "--report", path]
        arguments += ["--jobs", str(jobs)] if jobs else []
        arguments += ["--force"] if force else []
        arguments += ["--quiet"] if quiet else []
        done = subprocess.run(arguments, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if not quiet:
            sys.stderr.write(done.stderr)
        if not os.path.exists(path):  # the manifest was refused: nothing ran
            raise Error(_error_line(done.stderr))
        with open(path) as f:
            return json.load(f)


def _plan(command, manifest, force):
    arguments = [command, "batch", manifest, "--plan"] + (["--force"] if force else [])
    done = subprocess.run(arguments, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0:
        raise Error(_error_line(done.stderr))
    return json.loads(done.stdout)


def run_job_on_worker(command, manifest, index, force, topic=None):
    """The Dask task: job `index` of the manifest, run by the wobble command on this worker.
    Returns its report entry; raises when the wobble process was killed, so that Dask retries.
    With a topic, each try first says on the scheduler that it started (the report's attempts)."""
    if topic:
        import distributed
        distributed.get_worker().log_event(topic, {"index": index})
    if not os.access(command, os.X_OK):  # not at the client's path on this machine
        command = os.environ.get("WOBBLE_CLI") or shutil.which("wobble") or command
    arguments = [command, "batch", manifest, "--job", str(index), "--quiet"] + (["--force"] if force else [])
    done = subprocess.run(arguments, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode < 0:
        raise RuntimeError(f"wobble batch --job {index} was killed by signal {-done.returncode}")
    lines = done.stdout.strip().splitlines()
    if not lines:
        raise RuntimeError(f"wobble batch --job {index}: {_error_line(done.stderr)}")
    return json.loads(lines[-1])


def _run_on_dask(client, command, manifest, force, report, quiet, retries):
    import distributed

    _send_task_by_value()
    started = time.monotonic()
    plan = _plan(command, manifest, force)
    entries = {entry["index"]: entry for entry in plan["jobs"]}
    pending = [index for index, entry in entries.items() if entry["status"] == "pending"]
    progress = _Progress(len(entries), len(entries) - len(pending), quiet)
    batch = uuid.uuid4().hex[:8]
    topic = f"wobble-batch-{batch}"
    futures = {
        client.submit(run_job_on_worker, command, manifest, index, force, topic, key=f"{topic}-job-{index}",
                      retries=retries, pure=False): index
        for index in pending
    }
    running = dict(futures)
    progress.draw(len(running))
    for future in distributed.as_completed(futures):
        index = running.pop(future)
        try:
            entry = future.result()
        except Exception as error:  # every try of the task failed (KilledWorker, a lost machine)
            entry = dict(entries[index], status="failed", error=f"{type(error).__name__}: {error}")
        entries[index] = entry
        progress.job_finished(entry, len(running))
    attempts = _attempts(client, topic)
    for index in futures.values():
        entries[index]["attempts"] = attempts.get(index, 0)
        progress.job_retried(entries[index])
    result = _report(plan, entries, time.monotonic() - started)
    if report:
        _write_json_atomically(report, result)
    progress.finish(result)
    return result


def _attempts(client, topic):
    """How many tries of each job started, from the events the tries logged on the scheduler: 1,
    or more when a worker died while it ran the job, or a try raised and was retried."""
    counts = {}
    for _, event in client.get_events(topic):
        counts[event["index"]] = counts.get(event["index"], 0) + 1
    return counts


def _send_task_by_value():
    """Workers then need no PYTHONPATH to the wobble package: the task's code travels with it."""
    module = sys.modules[run_job_on_worker.__module__]
    if module.__name__ != "__main__":  # __main__ is sent by value anyway
        import cloudpickle

        cloudpickle.register_pickle_by_value(module)


def _report(plan, entries, seconds):
    jobs = [entries[index] for index in sorted(entries)]
    counts = {status: sum(1 for job in jobs if job["status"] == status) for status in ("done", "skipped", "failed")}
    return {"manifest": plan["manifest"], "wobble": plan["wobble"], "seconds": seconds, "counts": counts, "jobs": jobs}


def _check_writable(path):
    """Refuses a report the folder cannot take before any job runs, as `wobble batch` does."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise Error(f"{path}: cannot write: folder {folder} is not writable ({error.strerror})") from None


def _write_json_atomically(path, value):
    """As the C++ AtomicOutput: a temporary sibling, renamed into place whole; a failure names the
    file and the system's reason, and leaves the previous file and no temporary."""
    path = os.path.abspath(path)
    temporary = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.tmp-{os.getpid()}")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "w") as f:
            json.dump(value, f, indent=2)
            f.write("\n")
        os.replace(temporary, path)
    except OSError as error:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise Error(f"{path}: cannot write: {error.strerror}") from None


class _Progress:
    """The same lines as `wobble batch` prints: one per finished job, a bar on a terminal."""

    def __init__(self, total, skipped, quiet):
        self.total, self.skipped, self.done, self.failed = total, skipped, 0, 0
        self.quiet = quiet
        self.bar = not quiet and sys.stderr.isatty()
        self.start = time.monotonic()

    def draw(self, running):
        if not self.bar:
            return
        finished = self.done + self.skipped + self.failed
        filled = 30 * finished // max(self.total, 1)
        baked = self.done + self.failed
        left = f"~{(time.monotonic() - self.start) / baked * (self.total - finished):.0f} s left" if baked else "time left: -"
        sys.stderr.write(f"\r\033[Kbatch [{'#' * filled}{' ' * (30 - filled)}] {self.done + self.skipped}/{self.total} "
                         f"done, {self.failed} failed, {running} queued or running, {left}")
        sys.stderr.flush()

    def job_finished(self, entry, running):
        failed = entry["status"] == "failed"
        self.failed += failed
        self.done += entry["status"] == "done"
        self.skipped += entry["status"] == "skipped"
        if failed or not self.quiet:
            if self.bar:
                sys.stderr.write("\r\033[K")
            if failed:
                sys.stderr.write(f"batch: failed jobs[{entry['index']}] {entry['name']}: {entry['error']}\n")
            elif entry["status"] == "done":
                sys.stderr.write(f"batch: done   jobs[{entry['index']}] {entry['name']} ({entry['seconds']:.1f} s)\n")
        self.draw(running)

    def job_retried(self, entry):
        if entry.get("attempts", 1) > 1 and not self.quiet:
            if self.bar:
                sys.stderr.write("\r\033[K")
            sys.stderr.write(f"batch: jobs[{entry['index']}] {entry['name']} ran {entry['attempts']} times "
                             "(a worker died while it ran, or a try was killed)\n")

    def finish(self, report):
        if self.bar:
            sys.stderr.write("\r\033[K")
        if not self.quiet:
            counts = report["counts"]
            sys.stderr.write(f"batch: {self.total} jobs in {report['seconds']:.1f} s: {counts['done']} done, "
                             f"{counts['skipped']} skipped (up to date), {counts['failed']} failed\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m wobble.batch",
                                     description="many bakes from a manifest, locally or on a Dask cluster")
    parser.add_argument("manifest", help="JSON or CSV manifest (docs/batch.md)")
    parser.add_argument("--scheduler", help="the Dask scheduler's address, tcp://HOST:8786 (default: run locally)")
    parser.add_argument("--jobs", type=int, help="local bakes at a time (default: one per core)")
    parser.add_argument("--force", action="store_true", help="redo every job, also those that are up to date")
    parser.add_argument("--report", help="write the JSON report here")
    parser.add_argument("--quiet", action="store_true", help="failed jobs only")
    parser.add_argument("--wobble", help="the wobble command (default: $WOBBLE_CLI, the build's, or on PATH)")
    args = parser.parse_args(argv)
    client = None
    try:
        if args.scheduler:
            client = _connect(args.scheduler)
        result = run(args.manifest, client, jobs=args.jobs, force=args.force, report=args.report, quiet=args.quiet,
                     wobble_cli=args.wobble)
    except Error as error:
        print(f"wobble: error: {error}", file=sys.stderr)
        return 1
    finally:
        if client is not None:
            client.close()
    return 1 if result["counts"]["failed"] else 0


def _connect(address):
    try:
        import distributed
    except ImportError:
        raise Error("--scheduler: Dask's distributed package is missing (Debian: python3-distributed)") from None
    try:
        return distributed.Client(address, timeout=30)
    except (OSError, TimeoutError, ValueError) as error:
        raise Error(f"--scheduler {address}: cannot reach the Dask scheduler ({error})") from None


if __name__ == "__main__":
    sys.exit(main())
