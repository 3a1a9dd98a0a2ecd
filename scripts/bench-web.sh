#!/usr/bin/env bash
# The npm package against the native C API (issue 32): fx.update in headless Chromium on the
# package as installed from its tarball (bench/web_npm.mjs), wobble_stack_evaluate natively on one
# thread (wobble_bench_web_native), for clonk (1,814 vertices) and a 100,000-vertex skinned tube
# (bench/make_tube_glb.py), lbs,dynamic and lbs,dynamic,deltamush; prints the table
# (bench/report_web.py). Needs make build and make web.
#   scripts/bench-web.sh [BUILD]        (REPETITIONS=N for the native side, default 9)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
results="$build/bench-results"
mkdir -p "$results"
tube="$results/tube_100k.glb"
[ -f "$tube" ] || /usr/bin/python3 bench/make_tube_glb.py "$tube" 100000
files="$build/assets/clonk.glb:$tube"
WOBBLE_WEB_BENCH_FILES="$files" "$build/bench/wobble_bench_web_native" --benchmark_repetitions="${REPETITIONS:-9}" \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out="$results/web_native.json" --benchmark_out_format=json
node bench/web_npm.mjs "$results/web_wasm.json" "$build/assets/clonk.glb" "$tube"
/usr/bin/python3 bench/report_web.py "$results/web_native.json" "$results/web_wasm.json"
