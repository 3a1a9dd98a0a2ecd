#!/usr/bin/env bash
# Builds the npm package @wobble-fx/three (web/npm): wobble's runtime and C API compiled with
# Emscripten to WebAssembly with SIMD, into web/npm/dist (wobble-wasm.js, an ES module, and
# wobble-wasm.wasm), so that web/npm is ready for `npm pack`. scripts/build-web.sh (make web) runs it.
# Usage: scripts/build-npm-package.sh [BUILD]   (default build-web; its npm/ subfolder holds the
# CMake build; git-ignored). Incremental: a second run that changes nothing only checks timestamps.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build-web}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
export NODE_PATH=/usr/share/nodejs   # Emscripten's tools need Debian's node modules
command -v emcmake >/dev/null || { echo "build-npm-package: emcmake not found (install the Debian package emscripten: scripts/install-deps.sh)" >&2; exit 1; }
package="$root/web/npm"
mkdir -p "$build/npm" "$package/dist"
if [ ! -f "$build/npm/build.ninja" ]; then
  # The runtime's header-only dependencies, found where Debian puts them (find_path and
  # find_package do not search the host under Emscripten's toolchain).
  emcmake cmake -S "$package" -B "$build/npm" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DWOBBLE_ROOT="$root" -DWOBBLE_PACKAGE_DIST="$package/dist" \
    -DEigen3_DIR=/usr/share/eigen3/cmake -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=BOTH \
    -DWOBBLE_NLOHMANN_INCLUDE_DIR=/usr/include -DWOBBLE_FMT_INCLUDE_DIR=/usr/include \
    -DWOBBLE_SIMDE_INCLUDE_DIR=/usr/include
fi
cmake --build "$build/npm" -j "${JOBS:-$(nproc)}" --target wobble-wasm
install -C -m 644 "$root/LICENSE" "$package/dist/LICENSE"
echo "build-npm-package: $package is ready for npm pack ($(du -h "$package/dist/wobble-wasm.wasm" | cut -f1) of WebAssembly)"
