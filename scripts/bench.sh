#!/usr/bin/env bash
# Runs every benchmark binary (or those named: scripts/bench.sh build lbs dynamic) with
# repetitions in random interleaving, keeps JSON results under build/bench-results/, and prints
# medians and ratios (bench/report_all.py reprints them all later: CPU=1 for CPU-time medians).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for binary in "$build"/bench/wobble_bench_*; do names+=("${binary##*/wobble_bench_}"); done
fi
mkdir -p "$build/bench-results"
for name in "${names[@]}"; do
  json="$build/bench-results/$name.json"
  echo "== $name"
  "$build/bench/wobble_bench_$name" --benchmark_repetitions="${REPETITIONS:-7}" \
    --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
    --benchmark_out="$json" --benchmark_out_format=json ${FILTER:+--benchmark_filter="$FILTER"}
done
python3 bench/report_all.py "$build/bench-results" ${CPU:+--cpu}
