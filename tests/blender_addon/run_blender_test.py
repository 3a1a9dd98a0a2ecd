"""CTest driver of the Blender add-on tests: runs headless Blender on a test script (addon_parity.py,
addon_parameters.py) with a scratch user folder (the add-on is installed there, never into the
user's own Blender), and fails unless the script ran to its end (it prints "NAME: OK").

    run_blender_test.py --blender 3_4|4_3 --build BUILD/blender --cli WOBBLE --character CHARACTER.glb \
        --script addon_parity.py --timeout SECONDS

3_4: the host's Blender (Debian 12's 3.4); the script installs wobble_blender_legacy.zip with
Blender's add-on operator. 4_3: Debian 13's Blender 4.3 (scripts/blender4.sh, in the tree that
scripts/install-blender4.sh makes: this waits for it); wobble_blender.zip is installed and
enabled first with Blender's own `blender --command extension install-file -r user_default -e`,
which must succeed without an error, and the script enables bl_ext.user_default.wobble_blender.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION_MODULE = "bl_ext.user_default.wobble_blender"


def blender_4(timeout):
    """scripts/blender4.sh, once the tree is there (install-blender4.sh --wait: its log if not)."""
    waited = subprocess.run([os.path.join(CHECKOUT, "scripts", "install-blender4.sh"), "--wait"], timeout=timeout)
    if waited.returncode != 0:
        raise SystemExit("run_blender_test: the Blender 4 tree is not installed (above)")
    return [os.path.join(CHECKOUT, "scripts", "blender4.sh")]


def install_extension(blender, zip_path, env):
    """Blender's own command; its output must be free of errors (an incompatible extension is
    installed, then refused with "Error: ... is incompatible")."""
    command = blender + ["--command", "extension", "install-file", "-r", "user_default", "-e", zip_path]
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    print(result.stdout)
    if result.returncode != 0 or "Error" in result.stdout or "Installed" not in result.stdout:
        raise SystemExit(f"run_blender_test: `{' '.join(command[1:])}` failed (exit code {result.returncode})")


def prepare(version, build, scratch):
    """The Blender command, the zip the script gets and the environment, for one version."""
    env = dict(os.environ, PYTHONPATH="")
    if version == "3_4":
        blender = shutil.which("blender")
        if blender is None:
            raise SystemExit("run_blender_test: blender is not installed: run scripts/install-deps.sh test (Debian's "
                             "blender package); this test does not skip")
        env.update(BLENDER_USER_SCRIPTS=os.path.join(scratch, "scripts"), BLENDER_USER_CONFIG=os.path.join(scratch, "config"),
                   WOBBLE_ADDON_HOME=os.path.join(scratch, "scripts"))
        return [blender], os.path.join(build, "wobble_blender_legacy.zip"), env
    blender = blender_4(timeout=900)
    zip_path = os.path.join(build, "wobble_blender.zip")
    env.update(BLENDER_USER_RESOURCES=scratch, WOBBLE_ADDON_HOME=os.path.join(scratch, "extensions"),
               WOBBLE_ADDON_MODULE=EXTENSION_MODULE)
    install_extension(blender, zip_path, env)
    return blender, zip_path, env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blender", choices=("3_4", "4_3"), required=True)
    for name in ("--build", "--cli", "--character", "--script"):
        parser.add_argument(name, required=True)
    parser.add_argument("--timeout", type=int, required=True, help="seconds Blender may run (CTest's limit is later)")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="wobble-blender-")
    try:
        blender, zip_path, env = prepare(args.blender, args.build, scratch)
        command = blender + ["-b", "-noaudio", "--factory-startup", "--python-exit-code", "1", "--python", args.script,
                             "--", zip_path, args.cli, args.character, scratch]
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
