"""Packages the Blender add-on: the add-on's files plus the wobble Python package, in one zip.

    package_addon.py ADDON_DIR PACKAGE_DIR OUT.zip

The zip holds one folder, wobble_blender/, as Blender's "Install..." (3.x add-ons) and
"Install from Disk" (4.2+ extensions, read from blender_manifest.toml) expect. The package
(BUILD/python/wobble: __init__.py, batch.py and the compiled _wobble*.so) goes in as
wobble_blender/wobble/, so the add-on's `from . import wobble` imports it.
"""
import os
import sys
import zipfile


def package_files(package_dir):
    """The package's Python files and compiled module (no caches)."""
    for name in sorted(os.listdir(package_dir)):
        path = os.path.join(package_dir, name)
        if os.path.isfile(path) and (name.endswith(".py") or name.endswith(".so")):
            yield path, name


def main():
    addon_dir, package_dir, out = sys.argv[1:4]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    temporary = out + ".tmp"
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(os.listdir(addon_dir)):
            path = os.path.join(addon_dir, name)
            if os.path.isfile(path) and not name.endswith(".pyc"):
                archive.write(path, "wobble_blender/" + name)
        for path, name in package_files(package_dir):
            archive.write(path, "wobble_blender/wobble/" + name)
    os.replace(temporary, out)  # never a half-written zip
    print(f"package_addon: wrote {out}")


if __name__ == "__main__":
    main()
