"""The add-on's two zips against what Blender documents (no Blender 4.2 on these machines):

- blender_manifest.toml against the extension manifest reference of the Blender manual
  (Extensions > Getting started > Manifest): the required fields and their types, the id rules,
  semantic versions, the 64-character taglines and permission reasons without end punctuation,
  the permission keys, the add-on tags, the platforms, and wheel paths as the wheel file-name
  convention (PEP 427) wants them; the validator itself is checked on broken manifests;
- wobble_blender.zip: the manifest and __init__.py at the top of the archive, the listed wheel
  inside, a valid wheel (WHEEL tags matching the manifest's platforms, RECORD hashes right),
  whose module imports and loads a character once unpacked;
- wobble_blender_legacy.zip: one folder with bl_info (Blender 3.x) and the module inside it.

    WOBBLE_ADDON_DIR=blender/wobble_blender WOBBLE_BLENDER_ZIPS=build/blender \
    WOBBLE_CHARACTER=build/assets/clonk.glb python3 test_extension_package.py
"""
import ast
import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import unittest
import zipfile

ADDON_DIR = os.environ.get("WOBBLE_ADDON_DIR", "blender/wobble_blender")
ZIPS = os.environ.get("WOBBLE_BLENDER_ZIPS", "build/blender")
CHARACTER = os.environ.get("WOBBLE_CHARACTER", "build/assets/clonk.glb")

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
# Wheel platform tag -> Blender platform (the Linux ones a module built here can have).
WHEEL_PLATFORMS = {"linux_x86_64": "linux-x64", "linux_aarch64": "linux-arm64"}


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


class ManifestSchema(unittest.TestCase):
    def test_the_add_on_manifest_is_valid(self):
        manifest = source_manifest()
        self.assertEqual(manifest_problems(manifest), [])
        self.assertEqual(manifest["type"], "add-on")
        self.assertTrue(manifest["wheels"], "the compiled module ships as a wheel")

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
    def setUp(self):
        self.archive = read_zip("wobble_blender.zip")
        self.manifest = source_manifest()

    def test_manifest_and_add_on_at_the_top(self):
        names = self.archive.namelist()
        self.assertIn("blender_manifest.toml", names)
        self.assertIn("__init__.py", names)
        self.assertEqual(tomllib.loads(self.archive.read("blender_manifest.toml").decode()), self.manifest)
        self.assertFalse([n for n in names if n.endswith(".so")], "binary code only inside the wheel")

    def test_the_wheel_is_valid_and_imports(self):
        wheel_path = self.manifest["wheels"][0].removeprefix("./")
        wheel = zipfile.ZipFile(io.BytesIO(self.archive.read(wheel_path)))
        name, version, python, abi, platform = os.path.basename(wheel_path)[:-4].split("-")
        self.assertEqual((name, version), ("wobble", self.manifest["version"]))
        self.assertIn(WHEEL_PLATFORMS.get(platform), self.manifest["platforms"],
                      f"the wheel's platform {platform} is one the manifest names")
        info = f"{name}-{version}.dist-info"
        fields = dict(line.split(": ", 1) for line in wheel.read(f"{info}/WHEEL").decode().splitlines())
        self.assertEqual(fields["Wheel-Version"], "1.0")
        self.assertEqual(fields["Tag"], f"{python}-{abi}-{platform}")
        self.assertEqual(fields["Root-Is-Purelib"], "false")
        recorded = {}
        for line in wheel.read(f"{info}/RECORD").decode().splitlines():
            path, digest, size = line.rsplit(",", 2)
            recorded[path] = (digest, size)
        self.assertEqual(set(recorded), set(wheel.namelist()), "RECORD lists every file of the wheel")
        for path, (digest, size) in recorded.items():
            if path.endswith("RECORD"):
                continue
            data = wheel.read(path)
            expected = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            self.assertEqual((digest, int(size)), (expected, len(data)), path)
        with tempfile.TemporaryDirectory() as site:
            wheel.extractall(site)  # what installing a wheel whose root is platlib amounts to
            script = ("import sys, wobble; c = wobble.load(sys.argv[1]); "
                      "print(len(c.positions), 'vertices from', wobble.__file__)")
            result = subprocess.run([sys.executable, "-c", script, CHARACTER], env=dict(os.environ, PYTHONPATH=site),
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn(site, result.stdout)
            print(f"test_extension_package: the wheel's module: {result.stdout.strip()}")


class LegacyZip(unittest.TestCase):
    def test_one_folder_with_bl_info_and_the_module(self):
        archive = read_zip("wobble_blender_legacy.zip")
        names = archive.namelist()
        self.assertTrue(all(n.startswith("wobble_blender/") for n in names))
        tree = ast.parse(archive.read("wobble_blender/__init__.py"))
        bl_info = next(ast.literal_eval(node.value) for node in tree.body
                       if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "bl_info")
        self.assertGreaterEqual(bl_info["blender"], (3, 0, 0))
        self.assertEqual(bl_info["name"], source_manifest()["name"])
        self.assertTrue([n for n in names if re.match(r"wobble_blender/(wobble/_?)?wobble\.cpython-.*\.so$", n)],
                        "the compiled module inside the add-on folder")
        sources = sorted(n for n in os.listdir(ADDON_DIR) if n.endswith(".py"))
        self.assertEqual(sorted(n.split("/", 1)[1] for n in names if n.count("/") == 1 and n.endswith(".py")), sources,
                         "the same sources as the extension")


if __name__ == "__main__":
    unittest.main(verbosity=2)
