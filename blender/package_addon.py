"""Packages the Blender add-on from one set of sources into two zips:

    package_addon.py ADDON_DIR MODULE OUT_DIR

MODULE is the compiled module (wobble.cpython-311-*.so) or the package folder that holds it
(wobble/ with __init__.py and _wobble.cpython-311-*.so). Writes into OUT_DIR:

- wobble_blender.zip: a Blender 4.2+ extension ("Install from Disk"): the add-on's files and
  blender_manifest.toml at the top of the archive, and the compiled module as a wheel (the
  platform's way to ship binary Python code) under wheels/, named as the manifest's `wheels`
  entry says. Blender installs the wheel into its Python; the add-on imports the top-level
  `wobble` it provides.
- wobble_blender_legacy.zip: a Blender 3.x add-on ("Install..."): one folder wobble_blender/
  with the same files (Blender 3.x reads bl_info in __init__.py) and the compiled module inside
  it, imported as wobble_blender.wobble.

Both are written with fixed timestamps (the same inputs give the same bytes) and atomically.
"""
import base64
import hashlib
import io
import os
import re
import sys
import tomllib
import zipfile

FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold: reproducible archives
# wobble.cpython-311-x86_64-linux-gnu.so -> wheel tags cp311, cp311, linux_x86_64
EXTENSION_SUFFIX = re.compile(r"\.cpython-(\d)(\d+)-(x86_64|aarch64)-linux-gnu\.so$")


def fail(message):
    raise SystemExit(f"package_addon: {message}")


def addon_files(addon_dir):
    return [name for name in sorted(os.listdir(addon_dir))
            if os.path.isfile(os.path.join(addon_dir, name)) and not name.endswith(".pyc")]


def module_files(module):
    """(archive name, path) of the compiled module: one .so, or a package folder's files."""
    if os.path.isdir(module):
        package = os.path.basename(os.path.normpath(module))
        return [(f"{package}/{name}", os.path.join(module, name)) for name in sorted(os.listdir(module))
                if os.path.isfile(os.path.join(module, name)) and not name.endswith(".pyc")]
    return [(os.path.basename(module), module)]


def wheel_tag(files):
    for name, _ in files:
        found = EXTENSION_SUFFIX.search(name)
        if found:
            major, minor, machine = found.groups()
            return f"cp{major}{minor}-cp{major}{minor}-linux_{machine}"
    fail(f"no compiled CPython module among {[name for name, _ in files]}")


def add(archive, name, data):
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel_bytes(files, version, tag, summary):
    """A wheel (binary distribution format 1.0) holding the module, with its dist-info."""
    info = f"wobble-{version}.dist-info"
    contents = [(name, open(path, "rb").read()) for name, path in files]
    contents.append((f"{info}/METADATA", f"Metadata-Version: 2.1\nName: wobble\nVersion: {version}\n"
                                         f"Summary: {summary}\nLicense: MIT\n".encode()))
    contents.append((f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: wobble package_addon.py\n"
                                      f"Root-Is-Purelib: false\nTag: {tag}\n".encode()))
    record = "\n".join([record_line(name, data) for name, data in contents] + [f"{info}/RECORD,,"]) + "\n"
    contents.append((f"{info}/RECORD", record.encode()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in contents:
            add(archive, name, data)
    return buffer.getvalue()


def write_atomically(path, build):
    temporary = path + ".tmp"
    try:
        with zipfile.ZipFile(temporary, "w") as archive:
            build(archive)
        os.replace(temporary, path)  # never a half-written zip
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    print(f"package_addon: wrote {path}")


def package_files(package_dir):
    """The package's Python files and compiled module (no caches)."""
    for name in sorted(os.listdir(package_dir)):
        path = os.path.join(package_dir, name)
        if os.path.isfile(path) and (name.endswith(".py") or name.endswith(".so")):
            yield path, name


def main():
    if len(sys.argv) != 4:
        fail("usage: package_addon.py ADDON_DIR MODULE OUT_DIR")
    addon_dir, module, out_dir = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(addon_dir, "blender_manifest.toml"), "rb") as file:
        manifest = tomllib.load(file)
    files = module_files(module)
    wheel_name = f"wobble-{manifest['version']}-{wheel_tag(files)}.whl"
    wanted = [os.path.basename(w) for w in manifest.get("wheels", [])]
    if wanted != [wheel_name]:
        fail(f"blender_manifest.toml lists the wheels {wanted}; the module packs as {wheel_name}: update `wheels`")
    wheel = wheel_bytes(files, manifest["version"], wheel_tag(files), manifest["tagline"])
    sources = addon_files(addon_dir)

    def extension(archive):
        for name in sources:
            add(archive, name, open(os.path.join(addon_dir, name), "rb").read())
        add(archive, manifest["wheels"][0].removeprefix("./"), wheel)

    def legacy(archive):
        for name in sources:
            if name != "blender_manifest.toml":
                add(archive, f"wobble_blender/{name}", open(os.path.join(addon_dir, name), "rb").read())
        for name, path in files:
            add(archive, f"wobble_blender/{name}", open(path, "rb").read())

    write_atomically(os.path.join(out_dir, "wobble_blender.zip"), extension)
    write_atomically(os.path.join(out_dir, "wobble_blender_legacy.zip"), legacy)


if __name__ == "__main__":
    main()
