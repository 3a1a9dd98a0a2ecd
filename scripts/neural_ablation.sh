#!/usr/bin/env bash
# The ablation table of docs/neural.md (PhysSkin++ IV-C, issue 20), from scratch, in one command:
#   scripts/neural_ablation.sh [BUILD] [OUT]          (defaults: build, runs/ablation)
# Trains each variant of configs/paper_recipe.json (the paper's recipe, CPU-sized) for STEPS steps as a
# data-parallel job of PROCESSES local ranks, measures every variant and the baselines on the
# validation split with `wobble fields metrics --json`, and prints the markdown tables.
# Environment: STEPS (default 1000), PROCESSES (2), BASELINE_STEPS (2000, the per-object fits),
# NICE (19). Finished variants (OUT/NAME/model.pt) are not trained again: delete them to redo.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${2:-runs/ablation}"
steps="${STEPS:-1000}"
processes="${PROCESSES:-2}"
baseline_steps="${BASELINE_STEPS:-2000}"
wobble=(nice -n "${NICE:-19}" "$build/wobble")
export OMP_NUM_THREADS=1
mkdir -p "$out"

# name and the overrides of configs/paper_recipe.json (JSON merged into it: objects key by key).
variants=(
  'full={}'
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
EOF
  if [ ! -f "$out/$name/model.pt" ]; then
    echo "== training $name ($steps steps, $processes ranks) -> $out/$name.log"
    "${wobble[@]}" fields train --processes "$processes" "$config" > "$out/$name.log" 2>&1
  fi
  if [ ! -f "$out/$name.metrics.json" ]; then
    "${wobble[@]}" fields metrics --model "$out/$name/model.pt" "${shapes[@]}" --baseline-steps 0 --json > "$out/$name.metrics.json.tmp"
    mv "$out/$name.metrics.json.tmp" "$out/$name.metrics.json"
  fi
done

# The per-object baselines: Simplicits-style (weighted sum, reference orthogonality weight), and
# the shipped recipe's losses fitted to each shape (the per-object fit the shipped model is held to).
for baseline in per_object_baseline per_object_fit; do
  if [ ! -f "$out/$baseline.metrics.json" ]; then
    echo "== $baseline ($baseline_steps steps per shape)"
    "${wobble[@]}" fields metrics --model "$out/full/model.pt" "${shapes[@]}" --baseline-steps "$baseline_steps" \
      --config "configs/$baseline.json" --json > "$out/$baseline.metrics.json.tmp"
    mv "$out/$baseline.metrics.json.tmp" "$out/$baseline.metrics.json"
  fi
done

args=()
for entry in "${variants[@]}"; do name="${entry%%=*}"; args+=("$name=$out/$name.metrics.json"); done
per_object="per-object MLP $baseline_steps steps"
args+=("Simplicits-style per-object MLP=$out/per_object_baseline.metrics.json:$per_object"
       "per-object fit, shipped recipe=$out/per_object_fit.metrics.json:$per_object"
       "skinning eigenmodes=$out/full.metrics.json:skinning eigenmodes"
       "quadratic polynomials=$out/full.metrics.json:quadratic polynomials")
python3 scripts/neural_table.py "${args[@]}" --per-shape | tee "$out/table.md"
