"""Packages the Blender add-on: the add-on's files plus the compiled wobble module, in one zip.

    package_addon.py ADDON_DIR MODULE.so OUT.zip

The zip holds one folder, wobble_blender/, as Blender's "Install..." (3.x add-ons) and
"Install from Disk" (4.2+ extensions, read from blender_manifest.toml) expect.
"""
import os
import sys
import zipfile


def main():
    addon_dir, module, out = sys.argv[1:4]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    temporary = out + ".tmp"
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(os.listdir(addon_dir)):
            path = os.path.join(addon_dir, name)
            if os.path.isfile(path) and not name.endswith(".pyc"):
                archive.write(path, "wobble_blender/" + name)
        archive.write(module, "wobble_blender/" + os.path.basename(module))
    os.replace(temporary, out)  # never a half-written zip
    print(f"package_addon: wrote {out}")


if __name__ == "__main__":
    main()
