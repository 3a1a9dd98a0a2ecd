#!/usr/bin/env bash
# Cross-compiles wobble::runtime and wobble::offline, their tests and the C example for ARM64 (Debian's
# g++-aarch64-linux-gnu) and runs them under qemu-user: the NEON and portable kernels against the
# scalar references. `make test` runs it (CTest runtime.arm64); results are informative for speed.
# Usage: scripts/test-arm64.sh [BUILD]   (default build-arm64; incremental, ccache-friendly)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-arm64}"
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "test-arm64: $tool not found (scripts/install-deps.sh installs g++-aarch64-linux-gnu and qemu-user)" >&2; exit 1; }
done
export CCACHE_BASEDIR="$root"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
    -DWOBBLE_RUNTIME_ONLY=ON -DWOBBLE_BUILD_SHARED=OFF -DWOBBLE_GTEST_SOURCE_DIR=/usr/src/googletest
fi
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target wobble_runtime_tests wobble_offline_tests wobble_example_c
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"; }
echo "test-arm64: $(file -b "$build/tests/wobble_runtime_tests" | cut -d, -f1-2)"
run "$build/tests/wobble_runtime_tests" --gtest_brief=1
run "$build/tests/wobble_offline_tests" --gtest_brief=1
run "$build/examples/c/wobble_example_c"
