#!/usr/bin/env bash
# The physics fidelity table of docs/neural.md (issue 35), in one command:
#   scripts/neural_fidelity.sh [BUILD] [OUT]          (defaults: build, runs/fidelity)
# `wobble fields metrics --fidelity` on the validation split (bull, cow, dino, elk, femur, knot1):
# the shipped model with the baselines (skinning eigenmodes, quadratic polynomials, the per-object
# fit with the shipped recipe's losses), and the same network untrained
# (models/physskin_small_untrained.wfield); then the medians and per-shape errors as markdown
# (also written to OUT/table.md), and the time to a first step on a 13,000-vertex shape. The
# shipped model's rows also hold its candidate fields all together and the eigenmodes projected
# onto their span (`--candidates`: what its per-shape selection could reach at best).
# Environment: SHIPPED (models/physskin_small.pt), UNTRAINED (models/physskin_small_untrained.wfield),
# BASELINE_STEPS (2000; 0 leaves the per-object fit out), NICE (19), EXTRA_MODELS ("LABEL=FILE ...":
# more models to measure, e.g. experiments). Measurements (OUT/*.json) are kept: delete them to redo.
set -euo pipefail
source "$(dirname "$0")/neural_common.sh"
out="${2:-runs/fidelity}"
untrained="${UNTRAINED:-models/physskin_small_untrained.wfield}"
mkdir -p "$out"
shapes=()
for s in bull cow dino elk femur knot1; do shapes+=("../shared/assets/shapes/$s.off"); done

# name model [metrics options...]: the metrics JSON, written whole.
measure() {
  local name="$1" model="$2"
  shift 2
  [ -f "$out/$name.json" ] && return 0
  echo "== measuring $name ($model)" >&2
  "${wobble[@]}" fields metrics --fidelity --model "$model" "$@" --json > "$out/$name.json.tmp" 2> "$out/$name.log"
  mv "$out/$name.json.tmp" "$out/$name.json"
}

measure shipped "$shipped" "${shapes[@]}" --baseline-steps "$baseline_steps" --config configs/per_object_fit.json \
  --candidates
measure untrained "$untrained" "${shapes[@]}" --baseline-steps 0
args=("shipped network=$out/shipped.json" "same network untrained=$out/untrained.json"
  "shipped network's candidates, all=$out/shipped.json:neural candidates (all)"
  "eigenmodes in the shipped candidates' span=$out/shipped.json:eigenmodes in candidate span")
for extra in ${EXTRA_MODELS:-}; do
  measure "${extra%%=*}" "${extra#*=}" "${shapes[@]}" --baseline-steps 0
  args+=("${extra%%=*}=$out/${extra%%=*}.json")
done
[ "$baseline_steps" -gt 0 ] && args+=("per-object fit ($baseline_steps steps)=$out/shipped.json:per-object MLP $baseline_steps steps")
args+=("skinning eigenmodes=$out/shipped.json:skinning eigenmodes" "quadratic polynomials=$out/shipped.json:quadratic polynomials")
measure large "$shipped" ../shared/assets/shapes/mannequin-devil.off --baseline-steps 0
{
  /usr/bin/python3 scripts/neural_table.py "${args[@]}" --per-shape --fidelity
  echo
  echo "Time to a first step on mannequin-devil (12,977 vertices):"
  echo
  /usr/bin/python3 scripts/neural_table.py "shipped network=$out/large.json" "skinning eigenmodes=$out/large.json:skinning eigenmodes" --fidelity
} | tee "$out/table.md"
