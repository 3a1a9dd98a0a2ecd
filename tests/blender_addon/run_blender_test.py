"""CTest driver of the Blender add-on tests: runs headless Blender on a test script (addon_parity.py,
addon_parameters.py) with a scratch user folder (the add-on is installed there from the zip, never
into the user's own Blender), and fails unless the script ran to its end (it prints "NAME: OK").

    run_blender_test.py --zip ADDON.zip --cli WOBBLE --character CHARACTER.glb --script addon_parity.py
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    for name in ("--zip", "--cli", "--character", "--script"):
        parser.add_argument(name, required=True)
    parser.add_argument("--timeout", type=int, required=True, help="seconds Blender may run (CTest's limit is later)")
    args = parser.parse_args()
    blender = shutil.which("blender")
    if blender is None:
        print("blender is not installed: run scripts/install-deps.sh test (Debian's blender package); "
              "this test does not skip")
        return 1
    scratch = tempfile.mkdtemp(prefix="wobble-blender-")
    try:
        env = dict(os.environ, BLENDER_USER_SCRIPTS=os.path.join(scratch, "scripts"),
                   BLENDER_USER_CONFIG=os.path.join(scratch, "config"), PYTHONPATH="")
        command = [blender, "-b", "-noaudio", "--factory-startup", "--python-exit-code", "1", "--python", args.script,
                   "--", args.zip, args.cli, args.character, scratch]
        try:
            result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    timeout=args.timeout)
        except subprocess.TimeoutExpired as timeout:
            print(timeout.output or "")
            print(f"run_blender_test: blender ran past {args.timeout} s and was stopped")
            return 1
        print(result.stdout)
        name = os.path.splitext(os.path.basename(args.script))[0]
        if result.returncode != 0 or f"{name}: OK" not in result.stdout:
            print(f"run_blender_test: blender exited with {result.returncode}")
            return 1
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
