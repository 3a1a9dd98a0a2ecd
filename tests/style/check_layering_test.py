#!/usr/bin/env python3
"""scripts/check_layering.py on a hand-made tree (CTest style.library_layers_checker): a runtime
source that includes an offline header and a physics source that includes an io header it does not
depend on are both found, at their lines; includes within a library, of a dependency (directly or
through another library) and of non-wobble headers are not."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_layering.py"
LAYERS = {
    "runtime": {"folders": ["core", "deform"], "depends": []},
    "offline": {"folders": ["offline"], "depends": ["runtime"]},
    "io": {"folders": ["io"], "depends": ["runtime", "offline"]},
    "physics": {"folders": ["physics"], "depends": ["runtime"]},
}
FILES = {
    "src/core/fine.cpp": '#include <vector>\n#include <wobble/mesh.hpp>\n#include "deform/own.hpp"\n',
    "src/deform/wrong.cpp": '// a runtime file\n#include <wobble/lbs.hpp>\n#include <wobble/offline/bake.hpp>\n',
    "src/io/transitive.cpp": '#include <wobble/offline/bake.hpp>\n#include "core/fail.hpp"\n',
    "src/physics/wrong.cpp": '#include "core/fail.hpp"\n\n#include "io/gltf.hpp"\n',
    "include/wobble/io/reader.hpp": "#include <wobble/offline/baked_frames.hpp>\n",
    "include/wobble/mesh.hpp": "#include <Eigen/Core>\n",
}


def main():
    with tempfile.TemporaryDirectory() as root:
        for name, text in FILES.items():
            path = Path(root) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        (Path(root) / "layers.json").write_text(json.dumps(LAYERS))
        run = subprocess.run([sys.executable, str(SCRIPT), root, os.path.join(root, "layers.json")],
                             capture_output=True, text=True)
    lines = run.stdout.splitlines()
    problems = sorted(":".join(line.split(":")[:2]) for line in lines[:-1])
    expected = ["src/deform/wrong.cpp:3", "src/physics/wrong.cpp:3"]
    ok = run.returncode == 1 and problems == expected and "2 includes across the layers" in lines[-1]
    print(run.stdout)
    print("PASS" if ok else f"FAIL: exit {run.returncode}, found {problems}, expected {expected}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
