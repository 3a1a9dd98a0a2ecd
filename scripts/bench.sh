#!/usr/bin/env bash
# Runs the benchmarks with repetitions and prints medians and ratios (bench/report.py).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
mkdir -p "$build/bench-results"
json="$build/bench-results/lbs.json"
"$build/bench/wobble_bench" --benchmark_repetitions="${REPETITIONS:-7}" \
  --benchmark_report_aggregates_only=true --benchmark_out="$json" --benchmark_out_format=json
python3 bench/report.py "$json"
