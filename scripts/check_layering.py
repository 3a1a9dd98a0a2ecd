#!/usr/bin/env python3
"""Each library includes only its own headers and those of the libraries it depends on.

Usage: check_layering.py ROOT LAYERS.json
LAYERS.json (written by tests/CMakeLists.txt from the build's declarations): {library: {"folders":
[src/ folders], "depends": [libraries it links]}}. A library's public headers are
include/wobble/LIBRARY/ (the runtime's: include/wobble/*.hpp and wobble.h); its private headers are
its folders under src/. Every #include of a wobble header in a library's sources and public headers
must belong to the library itself or to one it depends on (directly or through another). Prints
each violation as FILE:LINE: what is included and why not; exits 1 when there is any.
"""
import json
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def closure(layers, library):
    seen, todo = set(), [library]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(layers[name]["depends"])
    return seen


def owner_of_public(path, layers):
    """The library whose public header `wobble/...` is, or None for a non-wobble header."""
    parts = path.split("/")
    if parts[0] != "wobble":
        return None
    if len(parts) == 2:
        return "offline" if parts[1] == "wobble_offline.h" else "runtime"
    return parts[1] if parts[1] in layers else None


def owner_of_private(path, folder_owner):
    return folder_owner.get(path.split("/")[0]) if "/" in path else None


def files_of(root, layers, library):
    folders = [root / "src" / f for f in layers[library]["folders"]]
    if library == "runtime":
        folders.append(root / "include" / "wobble")
    else:
        folders.append(root / "include" / "wobble" / library)
    for folder in folders:
        for path in sorted(folder.glob("*")):
            if path.suffix in (".cpp", ".hpp", ".h"):
                yield path


def main():
    root, layers = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
    folder_owner = {f: name for name, layer in layers.items() for f in layer["folders"]}
    problems = 0
    for library in sorted(layers):
        allowed = closure(layers, library)
        for path in files_of(root, layers, library):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                bracket, included = match.groups()
                owner = owner_of_public(included, layers) if bracket == "<" else owner_of_private(included, folder_owner)
                if owner and owner not in allowed:
                    print(f"{path.relative_to(root)}:{number}: wobble::{library} includes {included} of wobble::{owner}, "
                          f"which it does not depend on (it may use: {', '.join(sorted(allowed))})")
                    problems += 1
    checked = sum(1 for library in layers for _ in files_of(root, layers, library))
    print(f"check_layering: {checked} files of {len(layers)} libraries, {problems} includes across the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
