#!/usr/bin/env bash
# The ablation table of docs/neural.md (PhysSkin++ IV-C, issue 20), from scratch, in one command:
#   scripts/neural_ablation.sh [BUILD] [OUT]          (defaults: build, runs/ablation)
# Trains each variant of configs/paper_recipe.json (the paper's recipe, CPU-sized) for STEPS steps as a
# data-parallel job of PROCESSES local ranks, JOBS variants at a time, measures every variant and
# its network untrained (the same configuration and seed with no optimizer step: `--steps 0`), the
# shipped model, its network untrained and the baselines on the validation split with `wobble
# fields metrics --json`, and prints the markdown tables (also written to OUT/table.md).
# Environment: STEPS (default 2000), PROCESSES (2), JOBS (1), BASELINE_STEPS (2000, the per-object
# fits), SHIPPED (models/physskin_small.pt), NICE (19). Finished variants (OUT/NAME/model.pt) and
# measurements (OUT/*.metrics.json) are kept: delete them to redo.
set -euo pipefail
source "$(dirname "$0")/neural_common.sh"
out="${2:-runs/ablation}"
steps="${STEPS:-2000}"
processes="${PROCESSES:-2}"
jobs="${JOBS:-1}"
mkdir -p "$out"

# name and the overrides of configs/paper_recipe.json (JSON merged into it: objects key by key).
variants=(
  'full={}'
  'config_all_losses={"losses": {"orthogonality_penalty": false}}'
  'no_smooth={"losses": {"smooth": false}}'
  'no_orth={"losses": {"orthogonality": false}}'
  'no_normalization={"losses": {"normalize": false}}'
  'no_oni={"network": {"oni": false}}'
  'no_config={"losses": {"config": false}}'
  'orthonormal_output={"network": {"orthonormal_output": true}}'
  'orthonormal_ritz={"network": {"orthonormal_output": true, "candidate_fields": 16}}'
)

# The validation split of the base configuration, as absolute paths.
mapfile -t shapes < <(python3 - configs/paper_recipe.json <<'EOF'
import json, os, sys
config = sys.argv[1]
data = json.load(open(config))["data"]
files = [os.path.join(os.path.dirname(config), f) for f in data.get("real_validation", [])]
if "corpus" in data:
    corpus = os.path.join(os.path.dirname(config), data["corpus"])
    files += [os.path.join(os.path.dirname(corpus), f) for f in json.load(open(corpus)).get("validation", [])]
for f in files:
    print(os.path.normpath(f))
EOF
)

# Runs "$@" in the background once fewer than JOBS of them run; `wait` collects them.
failures=0
in_background() {
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || failures=$((failures + 1)); done
  "$@" &
}
finish_background() {
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failures=$((failures + 1)); done
  if [ "$failures" -gt 0 ]; then echo "neural_ablation: $failures job(s) failed (see $out/*.log)" >&2; exit 1; fi
}

train() {  # name config
  echo "== training $1 ($steps steps, $processes ranks) -> $out/$1.log"
  "${wobble[@]}" fields train --processes "$processes" "$2" > "$out/$1.log" 2>&1
}

# model name [metrics options...]: the metrics JSON, written whole.
measure() {
  local model="$1" name="$2"
  shift 2
  echo "== measuring $name"
  "${wobble[@]}" fields metrics --model "$model" "${shapes[@]}" "$@" --json > "$out/$name.metrics.json.tmp" 2> "$out/$name.metrics.log"
  mv "$out/$name.metrics.json.tmp" "$out/$name.metrics.json"
}

for entry in "${variants[@]}"; do
  name="${entry%%=*}"
  overrides="${entry#*=}"
  config="$out/$name.json"
  python3 - configs/paper_recipe.json "$overrides" "$steps" "$name" "$config" <<'EOF'
import json, os, sys
base_file, overrides, steps, name, target = sys.argv[1:]
base = json.load(open(base_file))
def merge(a, b):
    for k, v in b.items():
        a[k] = merge(a.get(k, {}), v) if isinstance(v, dict) else v
    return a
config = merge(base, json.loads(overrides))
config["steps"] = int(steps)
config["output"] = name
# Paths in the base are relative to configs/: make them relative to the new file's folder.
here, there = os.path.dirname(os.path.abspath(base_file)), os.path.dirname(os.path.abspath(target))
for key in ("real_train", "real_validation"):
    if key in config["data"]:
        config["data"][key] = [os.path.relpath(os.path.join(here, f), there) for f in config["data"][key]]
if "corpus" in config["data"]:
    config["data"]["corpus"] = os.path.relpath(os.path.join(here, config["data"]["corpus"]), there)
json.dump(config, open(target, "w"), indent=1)
json.dump(dict(config, output=name + "_untrained"), open(target.replace(".json", "_untrained.json"), "w"), indent=1)
EOF
  [ -f "$out/$name/model.pt" ] || in_background train "$name" "$config"
done
finish_background

# Controls: each configuration's network as initialised from its seed, before any data or
# optimizer step (`--steps 0`), to tell what training adds to what the architecture and the output
# map give by themselves; "untrained" is the shipped configuration's (configs/small.json).
python3 - configs/small.json "$out/untrained.json" <<'EOF'
import json, sys
config = json.load(open(sys.argv[1]))
config["output"] = "untrained"
# No data is read at --steps 0; the corpus path (relative to configs/) would not resolve from OUT.
config["data"] = {k: v for k, v in config["data"].items() if k != "corpus"} | {"real_fraction": 0}
json.dump(config, open(sys.argv[2], "w"), indent=1)
EOF
controls=(untrained)
for entry in "${variants[@]}"; do controls+=("${entry%%=*}_untrained"); done
for name in "${controls[@]}"; do
  [ -f "$out/$name/model.pt" ] || "${wobble[@]}" fields train "$out/$name.json" --steps 0 --quiet > "$out/$name.log" 2>&1
done

for entry in "${variants[@]}" "${controls[@]}"; do
  name="${entry%%=*}"
  [ -f "$out/$name.metrics.json" ] || in_background measure "$out/$name/model.pt" "$name" --baseline-steps 0
done
[ -f "$out/shipped.metrics.json" ] || in_background measure "$shipped" shipped --baseline-steps 0

# The per-object baselines: Simplicits-style (weighted sum, reference orthogonality weight), and
# the shipped recipe's losses fitted to each shape (the per-object fit the shipped model is held to).
for baseline in per_object_baseline per_object_fit; do
  [ -f "$out/$baseline.metrics.json" ] ||
    in_background measure "$shipped" "$baseline" --baseline-steps "$baseline_steps" --config "configs/$baseline.json"
done
finish_background

args=("shipped model=$out/shipped.metrics.json")
for entry in "${variants[@]}"; do
  name="${entry%%=*}"
  args+=("$name=$out/$name.metrics.json" "$name, untrained=$out/${name}_untrained.metrics.json")
done
args+=("shipped network untrained=$out/untrained.metrics.json")
per_object="per-object MLP $baseline_steps steps"
args+=("Simplicits-style per-object MLP=$out/per_object_baseline.metrics.json:$per_object"
       "per-object fit, shipped recipe=$out/per_object_fit.metrics.json:$per_object"
       "skinning eigenmodes=$out/shipped.metrics.json:skinning eigenmodes"
       "quadratic polynomials=$out/shipped.metrics.json:quadratic polynomials")
python3 scripts/neural_table.py "${args[@]}" --per-shape | tee "$out/table.md"
