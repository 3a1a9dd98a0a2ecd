"""Packages the Blender add-on from one set of sources into two zips:

    package_addon.py ADDON_DIR LIBRARY OUT_DIR

LIBRARY is libwobble_blender.so, wobble's runtime with its C API (cmake/blender.cmake), which
the add-on loads with ctypes (runtime.py): one binary for every Python a Blender embeds, so no
wheel per Python version. Writes into OUT_DIR:

- wobble_blender.zip: a Blender 4.2+ extension (`blender --command extension install-file`, or
  "Install from Disk"): the add-on's files, blender_manifest.toml and the library at the top of
  the archive.
- wobble_blender_legacy.zip: a Blender 3.x add-on ("Install..."): one folder wobble_blender/
  with the same files (Blender 3.x reads bl_info in __init__.py) and the library.

Both are written with fixed timestamps (the same inputs give the same bytes) and atomically.
"""
import os
import sys
import zipfile

FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip can hold: reproducible archives
LIBRARY = "libwobble_blender.so"    # the name runtime.py loads


def fail(message):
    raise SystemExit(f"package_addon: {message}")


def addon_files(addon_dir):
    return [name for name in sorted(os.listdir(addon_dir))
            if os.path.isfile(os.path.join(addon_dir, name)) and not name.endswith(".pyc")]


def add(archive, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = mode << 16
    archive.writestr(info, data)


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


def read(path):
    with open(path, "rb") as file:
        return file.read()


def main():
    if len(sys.argv) != 4:
        fail("usage: package_addon.py ADDON_DIR LIBRARY OUT_DIR")
    addon_dir, library, out_dir = sys.argv[1:4]
    if not os.path.isfile(library):
        fail(f"{library}: no such file (build the target wobble_blender_native)")
    os.makedirs(out_dir, exist_ok=True)
    sources = addon_files(addon_dir)
    binary = read(library)

    def extension(archive):
        for name in sources:
            add(archive, name, read(os.path.join(addon_dir, name)))
        add(archive, LIBRARY, binary, 0o755)

    def legacy(archive):
        for name in sources:
            if name != "blender_manifest.toml":
                add(archive, f"wobble_blender/{name}", read(os.path.join(addon_dir, name)))
        add(archive, f"wobble_blender/{LIBRARY}", binary, 0o755)

    write_atomically(os.path.join(out_dir, "wobble_blender.zip"), extension)
    write_atomically(os.path.join(out_dir, "wobble_blender_legacy.zip"), legacy)


if __name__ == "__main__":
    main()
