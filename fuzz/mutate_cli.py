#!/usr/bin/python3
"""A mutation campaign against the built `wobble` command, as the one that filed issue 15.

    fuzz/mutate_cli.py WOBBLE [--runs N] [--seed S] [--json OUT.json]

Runs `wobble info`, `bake`, `bake --settings` and `simulate` over mutated glTF/GLB, DirectX .x,
FBX, OFF/OBJ, settings and scene files, and over bad flag values, and sorts every run into:

  crash          killed by a signal, or an exit code other than 0 and 1
  hang           still running after --timeout seconds (default 30)
  memory         more than --memory-mib resident (default 2048), or std::bad_alloc in the output
  silent accept  a value that is wrong by construction (a bad flag value, a settings or scene
                 value of the wrong type or range) and exit code 0
  raw error      a library's own message reached the user ([json.exception...], std::..., what())
  nameless error exit code 1 with a message that names neither the file nor the flag nor the
                 settings or scene file
  ok             everything else (a clean error naming what is wrong, or a good result)

Same --seed, same mutations: run it on two builds to compare them. Needs Debian's
assimp-testmodels and the shared assets (../shared/assets).
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "assets"
MODELS = Path("/usr/share/assimp/models")
CATEGORIES = ["crash", "hang", "memory", "silent accept", "raw error", "nameless error", "ok"]
RAW = re.compile(r"\[json\.exception|std::|basic_string|vector::|_M_range|what\(\):|terminate called")
NUMBER = re.compile(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?")
BAD_NUMBERS = [b"99999", b"-1", b"0", b"2147483648", b"4294967295", b"9007199254740992", b"1e308", b"-1e308",
               b"nan", b"1.5", b"1e400", b"-2147483649"]


def run(command, timeout, memory_mib):
    """(category of the process outcome, exit code, output)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return "hang", None, output.decode(errors="replace")
    text = output.decode(errors="replace")
    if process.returncode < 0 or process.returncode not in (0, 1):
        return "crash", process.returncode, text
    if "bad_alloc" in text:
        return "memory", process.returncode, text
    return None, process.returncode, text


class Campaign:
    def __init__(self, wobble, work, rng, timeout, memory_mib):
        self.wobble, self.work, self.rng = wobble, work, rng
        self.timeout, self.memory_mib = timeout, memory_mib
        self.counts = {c: 0 for c in CATEGORIES}
        self.by_part = {}  # part (files, flags, settings, scenes) -> category -> count
        self.part = ""
        self.examples = {c: [] for c in CATEGORIES}
        self.runs = 0

    def record(self, category, what, command, output):
        self.counts[category] += 1
        self.by_part.setdefault(self.part, {c: 0 for c in CATEGORIES})[category] += 1
        self.runs += 1
        if self.runs % 50 == 0:  # progress, on stderr: the summary on stdout stays the result
            print(f"mutate_cli.py: {self.runs} runs ({self.part})", file=sys.stderr, flush=True)
        if category != "ok" and len(self.examples[category]) < 12:
            self.examples[category].append({"what": what, "command": " ".join(map(str, command))[:300],
                                            "output": output.strip()[-300:]})

    def check(self, command, what, names, bad_by_construction):
        """Runs and sorts one command. `names`: texts one of which an error must contain."""
        # Peak memory of this child alone: run it under /usr/bin/time -f %M (KiB) when available.
        timed = ["/usr/bin/time", "-f", "WOBBLE_MAXRSS_KIB %M"] if Path("/usr/bin/time").exists() else []
        category, code, output = run(timed + command, self.timeout, self.memory_mib)
        match = re.search(r"WOBBLE_MAXRSS_KIB (\d+)", output)
        if match:
            output = output.replace(match.group(0), "")
            if int(match.group(1)) > self.memory_mib * 1024 and category is None:
                category = "memory"
        if timed and code is not None and code > 1 and "Command terminated by signal" in output:
            category = "crash"
        output = "\n".join(l for l in output.splitlines() if not l.startswith("Command exited with non-zero status"))
        if category is None:
            lines = [l for l in output.splitlines() if "error" in l]
            if code == 0:
                category = "silent accept" if bad_by_construction else "ok"
            elif RAW.search(output):
                category = "raw error"
            elif not any(any(n in l for n in names) for l in lines):
                category = "nameless error"
            else:
                category = "ok"
        self.record(category, what, command, output)

    # ------------------------------------------------------------------ mutations

    def mutate_numbers(self, data, count):
        spans = [m.span() for m in NUMBER.finditer(data)]
        if not spans:
            return data
        for _ in range(count):
            start, end = self.rng.choice(spans)
            data = data[:start] + self.rng.choice(BAD_NUMBERS) + data[end:]
            spans = [m.span() for m in NUMBER.finditer(data)]
        return data

    def flip_bytes(self, data, count):
        data = bytearray(data)
        for _ in range(count):
            i = self.rng.randrange(len(data))
            data[i] = self.rng.randrange(256)
        return bytes(data)

    def mutated_gltf_json(self, document):
        """A glTF JSON with one count, index, offset, length or URI made wrong."""
        document = json.loads(json.dumps(document))
        choices = []
        for kind in ("accessors", "bufferViews", "buffers", "nodes", "meshes", "skins", "animations", "images"):
            for i, item in enumerate(document.get(kind, [])):
                for key, value in item.items():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        choices.append((kind, i, key))
        kind, i, key = self.rng.choice(choices)
        document[kind][i][key] = self.rng.choice([2**31, 2**31 - 1, 2**32 - 1, 2**53, -1, 99999, 0, 1.5])
        if self.rng.random() < 0.2 and document.get("buffers"):
            document["buffers"][0]["uri"] = self.rng.choice([".", "%00%zz", "../../../../dev/zero", "/etc/passwd", "x/"])
        return document

    # ------------------------------------------------------------------ campaigns

    def files(self, runs):
        sources = []
        rigged = SHARED / "characters" / "RiggedSimple" / "RiggedSimple.gltf"
        document = json.loads(rigged.read_text())
        for name in ("BCN_Epileptic.X", "Testwuson.X", "test.x"):
            if (MODELS / "X" / name).exists():
                sources.append(("x", (MODELS / "X" / name).read_bytes()))
        for name in ("huesitos.fbx", "box.fbx", "animation_with_skeleton.fbx"):
            if (MODELS / "FBX" / name).exists():
                sources.append(("fbx", (MODELS / "FBX" / name).read_bytes()))
        for name in ("cactus.off", "bones.off"):
            if (SHARED / "shapes" / name).exists():
                sources.append(("off", (SHARED / "shapes" / name).read_bytes()))
        for name in ("spider.obj", "box.obj"):
            if (MODELS / "OBJ" / name).exists():
                sources.append(("obj", (MODELS / "OBJ" / name).read_bytes()))
        wipf = (SHARED / "characters" / "wipf.glb").read_bytes()
        for n in range(runs):
            kind = self.rng.choice(["gltf", "glb"] + [k for k, _ in sources])
            folder = self.work / f"file{n}"
            folder.mkdir()
            if kind == "gltf":
                shutil.copy(rigged.parent / "RiggedSimple0.bin", folder)
                data = json.dumps(self.mutated_gltf_json(document)).encode()
            elif kind == "glb":
                data = self.flip_bytes(wipf, self.rng.randint(1, 8)) if self.rng.random() < 0.5 else \
                    self.mutate_numbers(wipf, 2)
            else:
                data = self.rng.choice([d for k, d in sources if k == kind])
                data = self.flip_bytes(data, 4) if kind == "fbx" else self.mutate_numbers(data, self.rng.randint(1, 3))
            path = folder / f"input.{kind}"
            path.write_bytes(data)
            command = [self.wobble] + (["info", str(path)] if self.rng.random() < 0.6 else
                                       ["bake", str(path), "--clip", "0", "--end", "0.2", "-q", "-o",
                                        str(folder / "out.pc2")])
            self.check(command, f"mutated {kind}", [str(path), path.name], False)
            shutil.rmtree(folder)

    def flags(self, runs):
        wipf = str(SHARED / "characters" / "wipf.glb")
        bar = str(SHARED / "shapes" / "cactus.off")
        bad_reals = ["2abc", "1/0", "nan", "inf", "-inf", "0x10", "1e400", "", " 1", "1,5", "--"]
        bad_integers = ["-1", "1.5", "1e3", "0x10", "4294967296", "99999999999", "", "2abc", "nan"]
        bad_switches = ["maybe", "2", "TRUEISH", "-1"]
        # Each value is wrong for every flag of its row (--start -5 and --end 0 are fine; --floor -1
        # and --gravity -1 too).
        table = [
            ("bake", ["--fps"], bad_reals + ["0", "-5", "1e300"]),
            ("bake", ["--start"], bad_reals + ["1e300"]),
            ("bake", ["--end"], bad_reals + ["-5", "1e300"]),
            ("bake", ["--threads"], bad_integers + ["0", "99999"]),
            ("bake", ["--quiet="], bad_switches),
            ("measure", ["--fps"], bad_reals + ["0"]),
            ("simulate", ["--fps", "--youngs", "--poisson", "--density", "--pin-blend"], bad_reals + ["-1", "1e308"]),
            ("simulate", ["--gravity", "--floor"], bad_reals + ["1e308"]),
            ("simulate", ["--handles", "--points", "--frames", "--substeps", "--sample-grid", "--field-grid"],
             bad_integers + ["0"]),
            ("info", ["--json="], bad_switches),
        ]
        for n in range(runs):
            command, options, values = self.rng.choice(table)
            flag = self.rng.choice(options)
            value = self.rng.choice(values)
            out = self.work / f"flag{n}.pc2"
            if command == "simulate":
                args = ["simulate", bar, "--frames", "2", "--handles", "4", "--points", "100", "--sample-grid", "8",
                        "--field-grid", "6", "-q", "-o", str(out)]
            elif command == "info":
                args = ["info", wipf]
            else:
                args = [command, wipf, "--clip", "0"] + (["-q", "-o", str(out)] if command == "bake" else [])
            # Options given twice are refused by CLI11 whatever the value: replace the default.
            if flag.rstrip("=") in args:
                i = args.index(flag.rstrip("="))
                del args[i:i + 2]
            args += [flag + value] if flag.endswith("=") else [flag, value]
            self.check([self.wobble] + args, f"{command} {flag}{'' if flag.endswith('=') else ' '}{value!r}",
                       [flag.rstrip("=")], True)
            if out.exists():
                out.unlink()

    def settings(self, runs):
        wipf = str(SHARED / "characters" / "wipf.glb")
        # Valid as it stands (a test run below checks that it bakes): each run then spoils one value.
        # The ddm section is not in the stack; it is checked all the same (and ignored, with a warning).
        good = {
            "dynamic": {"frequency": 2.5, "damping": 0.3, "amplitude": 0.25, "drag": 0.08, "max_angle": 60},
            "deltamush": {"iterations": 5, "step": 0.5, "smoothing": "length", "pin_boundary": True},
            "ddm": {"max_influences": 4, "iterations": 3},
        }
        targeted = [("deltamush", "iterations", 1.5), ("ddm", "max_influences", True), ("deltamush", "mask", [-1] * 643),
                    ("deltamush", "mask", [1.5] * 643), ("deltamush", "mask", [3.4e38] * 643)]
        # Which keys are integers (1.5 is wrong only for those): from the deformers' own descriptions.
        described = json.loads(subprocess.run([self.wobble, "deformers", "--json"], capture_output=True, text=True,
                                              check=True).stdout)
        self.parameter_types = {(d["name"], p["key"]): p["type"] for d in described for p in d["parameters"]}
        check = self.work / "good_settings.json"
        check.write_text(json.dumps(good))
        baked = subprocess.run([self.wobble, "bake", wipf, "--clip", "0", "--end", "0.1", "--deformer",
                                "lbs,dynamic,deltamush", "--settings", str(check), "-q", "-o", str(self.work / "good.pc2")],
                               capture_output=True, text=True)
        if baked.returncode != 0:
            sys.exit("mutate_cli.py: the unmutated settings do not bake: " + baked.stdout + baked.stderr)
        for n in range(runs):
            document = json.loads(json.dumps(good))
            if n < len(targeted):
                section, key, value = targeted[n]
            else:
                section = self.rng.choice(list(document))
                key = self.rng.choice(list(document[section]))
                old = document[section][key]
                if isinstance(old, bool):
                    value = self.rng.choice([2, "yes", None, [True]])
                elif isinstance(old, (int, float)):
                    integer = self.parameter_types.get((section, key)) == "integer"
                    value = self.rng.choice([True, "2", None, [1], {"a": 1}] + ([1.5] if integer else []))
                elif isinstance(old, str):
                    value = self.rng.choice([5, True, None, [old]])
                else:
                    value = self.rng.choice([5, "x", True, [1]])
            document[section][key] = value
            settings = self.work / f"settings{n}.json"
            settings.write_text(json.dumps(document))
            command = [self.wobble, "bake", wipf, "--clip", "0", "--end", "0.1", "--deformer", "lbs,dynamic,deltamush",
                       "--settings", str(settings), "-q", "-o", str(self.work / f"settings{n}.pc2")]
            self.check(command, f"settings {section}.{key} = {json.dumps(value)[:40]}", [settings.name], True)

    def scenes(self, runs):
        shape = SHARED / "shapes" / "cactus.off"
        shutil.copy(shape, self.work / "shape.off")
        good = {"fps": 30, "frames": 2, "gravity": [0, -9.81, 0],
                "objects": [{"file": "shape.off", "handles": 4, "points": 100, "sample_grid": 8, "field_grid": 6,
                             "material": {"youngs_modulus": 1e5}, "position": [0, 0, 0], "acceleration": [0, 0, 0]}],
                "planes": [{"origin": [0, -1.5, 0], "normal": [0, 1, 0], "half_size": [0, 0]}]}
        paths = [("fps",), ("frames",), ("gravity", 1), ("objects", 0, "handles"), ("objects", 0, "points"),
                 ("objects", 0, "material", "youngs_modulus"), ("objects", 0, "position", 0),
                 ("objects", 0, "acceleration", 2), ("planes", 0, "origin", 1), ("planes", 0, "half_size", 1),
                 ("planes", 0, "normal", 1)]
        for n in range(runs):
            document = json.loads(json.dumps(good))
            path = self.rng.choice(paths)
            node = document
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = self.rng.choice([True, "1", None, [1], -1e308, 1e308, -5, 1.5])
            scene = self.work / f"scene{n}.json"
            scene.write_text(json.dumps(document))
            command = [self.wobble, "simulate", str(scene), "-q", "-o", str(self.work / f"scene{n}.pc2")]
            bad = not acceptable_scene_value(path, node[path[-1]])
            self.check(command, f"scene {'.'.join(map(str, path))} = {json.dumps(node[path[-1]])}", [scene.name], bad)


def acceptable_scene_value(path, value):
    """Whether SCENE.json may hold `value` at `path` (the scene.hpp keys and the physics input limits)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or abs(value) > 1e4:
        return False
    key = path[-1] if isinstance(path[-1], str) else path[-2]
    if path[0] == "planes" and path[2] == "half_size":
        return value >= 0
    if key in ("frames", "handles", "points"):
        return isinstance(value, int) and value > 0 and (key != "points" or value >= 10) and (key != "handles" or value <= 256)
    if key in ("fps", "youngs_modulus"):
        return value > 0
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wobble")
    parser.add_argument("--runs", type=int, default=2150, help="runs in all (default 2150)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--memory-mib", type=int, default=2048)
    parser.add_argument("--json", help="write counts and examples here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="wobble-mutate-"))
    try:
        campaign = Campaign(str(Path(args.wobble).resolve()), work, random.Random(args.seed), args.timeout, args.memory_mib)
        share = args.runs // 4
        for part, runs in (("files", args.runs - 3 * share), ("flags", share), ("settings", share), ("scenes", share)):
            campaign.part = part
            getattr(campaign, part)(runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{campaign.runs} runs of {args.wobble}")
    parts = list(campaign.by_part)
    print(f"  {'':15} {'all':>6}" + "".join(f" {p:>9}" for p in parts))
    for category in CATEGORIES:
        print(f"  {category:15} {campaign.counts[category]:>6}" +
              "".join(f" {campaign.by_part[p][category]:>9}" for p in parts))
    for category in CATEGORIES[:-1]:
        for example in campaign.examples[category][:3]:
            print(f"  [{category}] {example['what']}: {example['output'][-160:]}")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": campaign.runs, "counts": campaign.counts,
                                               "by_part": campaign.by_part, "examples": campaign.examples}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
