"""The add-on's two zips against what Blender documents, and in each tested Blender:

    test_extension_package.py --blender 3_4|4_3

- blender_manifest.toml against the extension manifest reference of the Blender manual
  (Extensions > Getting started > Manifest): the required fields and their types, the id rules,
  semantic versions, the 64-character taglines and permission reasons without end punctuation,
  the permission keys, the add-on tags, the platforms, wheel paths as the wheel file-name
  convention (PEP 427) wants them; the validator itself is checked on broken manifests;
- wobble_blender.zip: the manifest, __init__.py and libwobble_blender.so at the top of the
  archive, no wheel (the library serves every Python); wobble_blender_legacy.zip: one folder with
  bl_info (Blender 3.x), the same sources and the library;
- the library: it needs nothing but the C library and exports the C API alone, every function
  runtime.py binds among them;
- in that Blender (3_4: the host's 3.4, Python 3.11; 4_3: Debian 13's 4.3 by scripts/blender4.sh,
  Python 3.13): runtime.py from the unpacked extension loads the library with Blender's own
  Python and deforms a hand-computed case; 4_3 also validates the zip with Blender's own
  `blender --command extension validate`.

    WOBBLE_ADDON_DIR=blender/wobble_blender WOBBLE_BLENDER_ZIPS=build/blender \
    python3 test_extension_package.py --blender 3_4
"""
import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
import zipfile

ADDON_DIR = os.environ.get("WOBBLE_ADDON_DIR", "blender/wobble_blender")
ZIPS = os.environ.get("WOBBLE_BLENDER_ZIPS", "build/blender")
CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRARY = "libwobble_blender.so"
# What the library may need: the C library alone (cmake/blender.cmake links the C++ runtime in).
C_LIBRARY = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
# Blender version -> (its command, the Python it embeds).
BLENDERS = {"3_4": (["blender"], (3, 11)), "4_3": ([os.path.join(CHECKOUT, "scripts", "blender4.sh")], (3, 13))}
VERSION = None  # --blender

REQUIRED = {"schema_version": str, "id": str, "version": str, "name": str, "tagline": str, "maintainer": str,
            "type": str, "blender_version_min": str, "license": list}
OPTIONAL = {"blender_version_max": str, "website": str, "copyright": list, "tags": list, "platforms": list,
            "wheels": list, "permissions": dict, "build": dict}
PERMISSIONS = {"files", "network", "clipboard", "camera", "microphone"}
PLATFORMS = {"windows-x64", "windows-arm64", "macos-x64", "macos-arm64", "linux-x64"}
ADDON_TAGS = {"3D View", "Add Curve", "Add Mesh", "Animation", "Bake", "Camera", "Compositing", "Development",
              "Game Engine", "Geometry Nodes", "Grease Pencil", "Import-Export", "Lighting", "Material", "Mesh",
              "Modeling", "Node", "Object", "Paint", "Pipeline", "Physics", "Render", "Rigging", "Scene", "Sculpt",
              "Sequencer", "System", "Text Editor", "Tracking", "User Interface", "UV"}
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
BLENDER_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
TERSE_LENGTH = 64


def terse_problem(text):
    """A tagline or permission reason: at most 64 characters, one line, no trailing punctuation."""
    if not text or text != text.strip():
        return "must be non-empty without surrounding spaces"
    if len(text) > TERSE_LENGTH:
        return f"is {len(text)} characters, at most {TERSE_LENGTH}"
    if any(ord(c) < 32 for c in text):
        return "has control characters"
    if not (text[-1].isalnum() or text[-1] in ")]}"):
        return "must not end with punctuation"
    return None


def manifest_problems(manifest):
    """Everything wrong with an add-on manifest (an empty list: valid)."""
    problems = []
    for key, kind in REQUIRED.items():
        if key not in manifest:
            problems.append(f"missing '{key}'")
        elif not isinstance(manifest[key], kind):
            problems.append(f"'{key}' must be a {kind.__name__}")
    for key, value in manifest.items():
        if key not in REQUIRED and key not in OPTIONAL:
            problems.append(f"unknown key '{key}'")
        elif key in OPTIONAL and not isinstance(value, OPTIONAL[key]):
            problems.append(f"'{key}' must be a {OPTIONAL[key].__name__}")
    if problems:
        return problems
    identifier = manifest["id"]
    if not identifier.isidentifier() or "__" in identifier or identifier.startswith("_") or identifier.endswith("_"):
        problems.append(f"id '{identifier}' must be an identifier without leading, trailing or double underscores")
    for key in ("schema_version", "version"):
        if not SEMVER.match(manifest[key]):
            problems.append(f"'{key}' must be a semantic version (got '{manifest[key]}')")
    if manifest["type"] not in ("add-on", "theme"):
        problems.append(f"type must be 'add-on' or 'theme' (got '{manifest['type']}')")
    for key in ("blender_version_min", "blender_version_max"):
        if key in manifest and not BLENDER_VERSION.match(manifest[key]):
            problems.append(f"'{key}' must be three numbers, as 4.2.0 (got '{manifest[key]}')")
    if (problem := terse_problem(manifest["tagline"])) is not None:
        problems.append(f"tagline {problem}")
    for key in ("name", "maintainer"):
        if not manifest[key].strip():
            problems.append(f"'{key}' must not be empty")
    if not manifest["license"] or not all(isinstance(x, str) and x.startswith("SPDX:") for x in manifest["license"]):
        problems.append("license must be a non-empty list of 'SPDX:' identifiers")
    for tag in manifest.get("tags", []):
        if tag not in ADDON_TAGS:
            problems.append(f"tag '{tag}' is not an add-on tag")
    for platform in manifest.get("platforms", []):
        if platform not in PLATFORMS:
            problems.append(f"platform '{platform}' is not one of {sorted(PLATFORMS)}")
    for key, reason in manifest.get("permissions", {}).items():
        if key not in PERMISSIONS:
            problems.append(f"permission '{key}' is not one of {sorted(PERMISSIONS)}")
        elif not isinstance(reason, str) or (problem := terse_problem(reason)) is not None:
            problems.append(f"permission '{key}': the reason {problem or 'must be a string'}")
    for wheel in manifest.get("wheels", []):
        name = os.path.basename(wheel)
        if "\\" in wheel or '"' in wheel or not name.endswith(".whl") or not 5 <= len(name[:-4].split("-")) <= 6:
            problems.append(f"wheel '{wheel}' must be a forward-slash path to NAME-VERSION(-BUILD)-PY-ABI-PLATFORM.whl")
    return problems


def source_manifest():
    with open(os.path.join(ADDON_DIR, "blender_manifest.toml"), "rb") as file:
        return tomllib.load(file)


def addon_sources():
    return sorted(n for n in os.listdir(ADDON_DIR) if n.endswith(".py"))


class ManifestSchema(unittest.TestCase):
    def test_the_add_on_manifest_is_valid(self):
        manifest = source_manifest()
        self.assertEqual(manifest_problems(manifest), [])
        self.assertEqual(manifest["type"], "add-on")
        self.assertNotIn("wheels", manifest, "no wheel: the library loads in any Python")
        self.assertEqual(manifest["platforms"], ["linux-x64"], "the library is built for Linux x86-64")

    def test_the_validator_refuses_broken_manifests(self):
        good = source_manifest()
        broken = {
            "missing id": {k: v for k, v in good.items() if k != "id"},
            "double underscore id": dict(good, id="wobble__blender"),
            "tagline with a full stop": dict(good, tagline="Secondary motion."),
            "tagline too long": dict(good, tagline="x" * 65),
            "unknown permission": dict(good, permissions={"disk": "Writes files"}),
            "reason with a full stop": dict(good, permissions={"files": "Writes files."}),
            "version not semantic": dict(good, version="1.0"),
            "blender version of two numbers": dict(good, blender_version_min="4.2"),
            "unknown tag": dict(good, tags=["Wobble"]),
            "unknown platform": dict(good, platforms=["linux-x86_64"]),
            "wheel without tags": dict(good, wheels=["./wheels/wobble.whl"]),
            "licence without SPDX": dict(good, license=["MIT"]),
            "unknown key": dict(good, homepage="x"),
        }
        for what, manifest in broken.items():
            with self.subTest(what):
                self.assertNotEqual(manifest_problems(manifest), [], what)


def read_zip(name):
    path = os.path.join(ZIPS, name)
    if not os.path.exists(path):
        raise AssertionError(f"{path} is missing: build it with make blender-addon")
    return zipfile.ZipFile(path)


class ExtensionZip(unittest.TestCase):
    def test_manifest_add_on_and_library_at_the_top(self):
        archive = read_zip("wobble_blender.zip")
        names = archive.namelist()
        self.assertIn("blender_manifest.toml", names)
        self.assertEqual(tomllib.loads(archive.read("blender_manifest.toml").decode()), source_manifest())
        self.assertEqual(sorted(n for n in names if n.endswith(".py")), addon_sources())
        self.assertEqual([n for n in names if n.endswith((".so", ".whl"))], [LIBRARY], "one binary, no wheel")
        self.assertEqual((archive.getinfo(LIBRARY).external_attr >> 16) & 0o777, 0o755, "the library is executable")


class LegacyZip(unittest.TestCase):
    def test_one_folder_with_bl_info_the_sources_and_the_library(self):
        archive = read_zip("wobble_blender_legacy.zip")
        names = archive.namelist()
        self.assertTrue(all(n.startswith("wobble_blender/") for n in names))
        tree = ast.parse(archive.read("wobble_blender/__init__.py"))
        bl_info = next(ast.literal_eval(node.value) for node in tree.body
                       if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "bl_info")
        self.assertGreaterEqual(bl_info["blender"], (3, 0, 0))
        self.assertEqual(bl_info["name"], source_manifest()["name"])
        self.assertIn(f"wobble_blender/{LIBRARY}", names)
        self.assertNotIn("wobble_blender/blender_manifest.toml", names)
        self.assertEqual(sorted(n.split("/", 1)[1] for n in names if n.endswith(".py")), addon_sources(),
                         "the same sources as the extension")


def bound_functions():
    """The C functions runtime.py binds (its _SIGNATURES, wobble_last_error, wobble_version)."""
    with open(os.path.join(ADDON_DIR, "runtime.py")) as file:
        text = file.read()
    return set(re.findall(r'"(wobble_[a-z_]+)": \(', text)) | set(re.findall(r"_lib\.(wobble_[a-z_]+)", text))


class NativeLibrary(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="wobble-extension-")
        self.library = os.path.join(self.scratch, LIBRARY)
        with open(self.library, "wb") as file:
            file.write(read_zip("wobble_blender.zip").read(LIBRARY))

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def test_it_needs_only_the_c_library(self):
        dynamic = subprocess.run(["readelf", "-d", self.library], check=True, capture_output=True, text=True).stdout
        needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic))
        self.assertTrue(needed, dynamic)
        self.assertLessEqual(needed, C_LIBRARY, "no libstdc++, no libpython: any Blender's Python can load it")

    def test_it_exports_the_c_api_alone(self):
        symbols = subprocess.run(["nm", "-D", "--defined-only", self.library], check=True, capture_output=True,
                                 text=True).stdout
        exported = {line.split()[-1] for line in symbols.splitlines() if line.split()[1:2] != ["A"]}
        self.assertTrue(all(name.startswith("wobble_") for name in exported), sorted(exported - {"wobble_"})[:10])
        bound = bound_functions()
        self.assertGreater(len(bound), 10)
        self.assertLessEqual(bound, exported, "every function runtime.py binds")


# Run by the Blender under test with its own Python: runtime.py from the unpacked extension, on a
# triangle skinned to two joints (v0 to the root, v1 to the child, v2 half each), the child moved
# by (0, 0, 2): LBS gives v0, v1 + (0, 0, 2), v2 + (0, 0, 1).
IN_BLENDER = """
import importlib.util, sys
import numpy as np
folder, want = sys.argv[-2], tuple(int(x) for x in sys.argv[-1].split("."))
assert sys.version_info[:2] == want, f"Blender's Python is {sys.version_info[:2]}, expected {want}"
spec = importlib.util.spec_from_file_location("wobble_runtime", folder + "/runtime.py")
wobble = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wobble)
assert wobble.__file__.startswith(folder)
descriptions = {d["name"]: d for d in wobble.deformers()}
mush = {p["key"]: p for p in descriptions["deltamush"]["parameters"]}
print("choices", mush["blender_version"]["choices"])
rest = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=np.float32)
character = wobble.Character.from_arrays(rest, [[0, 1, 2]], ["root", "child"], [-1, 0], np.stack([np.eye(4)] * 2),
                                         [0, 1, 2, 4], [0, 1, 0, 1], [1, 1, 0.5, 0.5])
moved = np.eye(4)
moved[:3, 3] = (0, 0, 2)
stack = wobble.Stack(character, "lbs")
got = stack.evaluate(wobble.Pose.from_world(character, np.stack([np.eye(4), moved])), 0.0)
expected = rest + np.array([[0, 0, 0], [0, 0, 2], [0, 0, 1]], dtype=np.float32)
assert np.abs(got - expected).max() < 1e-6, got
print("native in Blender: OK", sys.version.split()[0], wobble.__version__)
"""


class InBlender(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="wobble-extension-")
        read_zip("wobble_blender.zip").extractall(self.scratch)
        self.blender, self.python = BLENDERS[VERSION]

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def run_blender(self, arguments):
        result = subprocess.run(self.blender + arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                timeout=300, cwd=self.scratch)
        print(result.stdout[-3000:])
        return result

    def test_the_library_loads_and_deforms_in_blenders_python(self):
        result = self.run_blender(["-b", "-noaudio", "--factory-startup", "--python-exit-code", "1", "--python-expr",
                                   IN_BLENDER, "--", self.scratch, ".".join(map(str, self.python))])
        self.assertEqual(result.returncode, 0)
        self.assertIn("native in Blender: OK", result.stdout)
        self.assertIn("choices ['3.4', '4.3']", result.stdout)

    def test_blenders_own_validation_accepts_the_zip(self):
        if VERSION != "4_3":
            self.skipTest("Blender 3.4 has no extensions")
        result = self.run_blender(["--command", "extension", "validate", os.path.join(os.path.abspath(ZIPS),
                                                                                      "wobble_blender.zip")])
        self.assertEqual(result.returncode, 0)
        self.assertIn("Success", result.stdout)
        self.assertNotIn("rror", result.stdout)


def main():
    global VERSION
    parser = argparse.ArgumentParser()
    parser.add_argument("--blender", choices=sorted(BLENDERS), required=True)
    args, rest = parser.parse_known_args()
    VERSION = args.blender
    if VERSION == "4_3":  # the tree scripts/install-deps.sh test installs in the background
        waited = subprocess.run([os.path.join(CHECKOUT, "scripts", "install-blender4.sh"), "--wait"], timeout=900)
        if waited.returncode != 0:
            raise SystemExit("test_extension_package: the Blender 4 tree is not installed (above)")
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
