"""The Python batch's report on a full disk and in a read-only folder (issue 36), as the C++
batch's (tests/test_disk_faults.cpp): the report's name and the system's reason, the previous
report intact, no temporary left; a read-only folder refused before any job. Each case runs in a
private mount namespace with a small tmpfs of its own (needs root and unshare; skipped otherwise)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import wobble.batch

# Run inside the namespace: mounts the tmpfs, fills it, writes (or checks) the report.
SCRIPT = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
import wobble.batch
folder, mode = sys.argv[2], sys.argv[3]
report = os.path.join(folder, "report.json")
try:
    if mode == "full":
        with open(report, "w") as f:
            f.write("the previous report")
        filler = os.open(os.path.join(folder, "filler"), os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(filler, b"\0" * 4096) > 0:
                pass
        except OSError:
            os.close(filler)
        wobble.batch._write_json_atomically(report, {"jobs": ["x" * 100] * 1000})
    else:
        wobble.batch._check_writable(report)
    print("no error")
except wobble.batch.Error as error:
    print(f"error: {error}")
print("files:", sorted(os.listdir(folder)))
if mode == "full":
    print("previous:", open(report).read())
"""


def run_in_tmpfs(mode, read_only=False):
    folder = tempfile.mkdtemp(prefix="wobble-report-faults-")
    try:
        package = os.path.dirname(os.path.dirname(os.path.abspath(wobble.batch.__file__)))
        options = "size=64k" + (",ro" if read_only else "")
        command = (f"mount -t tmpfs -o {options} tmpfs '{folder}' && "
                   f"'{sys.executable}' -c \"$SCRIPT\" '{package}' '{folder}' {mode}")
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", command],
                              capture_output=True, text=True, env=dict(os.environ, SCRIPT=SCRIPT))
        return folder, done
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"), "needs root and unshare for a private tmpfs")
class BatchReportFaultsTest(unittest.TestCase):
    def test_a_full_disk_names_the_report_and_keeps_the_previous_one(self):
        folder, done = run_in_tmpfs("full")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = os.path.join(folder, "report.json")
        self.assertIn(f"error: {report}: cannot write: No space left on device\n", done.stdout)
        self.assertIn("files: ['filler', 'report.json']\n", done.stdout)
        self.assertIn("previous: the previous report", done.stdout)

    def test_a_read_only_folder_is_refused_before_any_job(self):
        folder, done = run_in_tmpfs("check", read_only=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"error: {os.path.join(folder, 'report.json')}: cannot write: folder {folder} is not writable "
                      "(Read-only file system)", done.stdout)


if __name__ == "__main__":
    unittest.main()
