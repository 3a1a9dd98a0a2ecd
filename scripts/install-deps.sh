#!/usr/bin/env bash
# Installs the Debian packages (and the npm tools) wobble needs, only those that are missing.
# Usage: scripts/install-deps.sh [core|test|all]   (default: test)
# Runs as root on a fresh Debian 12 machine; as another user it uses sudo when available.
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${1:-test}"

core_packages=(
  build-essential cmake ninja-build pkg-config git ccache xz-utils
  libeigen3-dev libtinygltf-dev libassimp-dev libcli11-dev nlohmann-json3-dev
  libfmt-dev libspdlog-dev libstb-dev libspectra-dev
  # the SIMD layer (header-only SIMD Everywhere: x86 intrinsics and NEON on any target)
  libsimde-dev
  # renderer, `wobble render`, wobble-viewer (headless EGL on Mesa, video through ffmpeg)
  libepoxy-dev libegl-dev libgl1-mesa-dri libglfw3-dev libimgui-dev ffmpeg
  # Python package; Dask's distributed scheduler for `wobble batch --scheduler` (docs/batch.md)
  pybind11-dev python3-dev python3-numpy python3-distributed
  # neural skinning fields (OpenBLAS: the reference BLAS is 4-5x slower; Gloo's headers for
  # LibTorch's c10d process group, data-parallel training)
  libtorch-dev libopenblas0-openmp libgloo-dev
)
test_packages=(
  libgtest-dev libbenchmark-dev assimp-testmodels assimp-utils nodejs npm
  blender xvfb xauth
  # the Blender 4 tree of the add-on's tests (scripts/install-blender4.sh: Debian 13 inside)
  debootstrap
  # the browser build of the viewer and its test
  emscripten chromium
  # the runtime's tests on ARM64: cross compiler, run under qemu-user
  g++-aarch64-linux-gnu qemu-user
  # the fuzz targets (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer; fuzz/README.md)
  clang-14 libclang-rt-14-dev
  # the house format (.clang-format, scripts/format.sh; make test's style.clang_format)
  clang-format-14
)

packages=("${core_packages[@]}")
case "$profile" in
  core) ;;
  test|all) packages+=("${test_packages[@]}") ;;
  *) echo "install-deps: unknown profile '$profile' (core, test, all)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  # A command may already exist from another source (e.g. a newer node): skip its package then.
  case "$p" in
    nodejs) command -v node >/dev/null 2>&1 && continue ;;
    npm) command -v npm >/dev/null 2>&1 && continue ;;
    cmake) command -v cmake >/dev/null 2>&1 && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The Khronos glTF validator, for the tests (npm, pinned by the lock file).
if [ "$profile" != core ] && [ ! -d tools/gltf-validator/node_modules/gltf-validator ]; then
  echo "install-deps: installing the glTF validator (npm)"
  (cd tools/gltf-validator && npm ci --no-audit --no-fund --loglevel=error)
fi

# playwright-core drives Debian's chromium in the web viewer's browser test (npm, pinned).
if [ "$profile" != core ] && [ ! -d tests/web/node_modules/playwright-core ]; then
  echo "install-deps: installing playwright-core (npm) for the browser test"
  (cd tests/web && npm ci --no-audit --no-fund --loglevel=error)
fi

# TinyUSDZ (WebAssembly) reads the USD output back in the USD test, in chromium (npm, pinned).
if [ "$profile" != core ] && [ ! -d tests/usd/node_modules/tinyusdz ]; then
  echo "install-deps: installing tinyusdz and playwright-core (npm) for the USD test"
  (cd tests/usd && npm ci --no-audit --no-fund --loglevel=error)
fi

# three, @types/three, typescript and playwright-core for the npm package's test (npm, pinned);
# the test's fresh project installs three from the npm cache this fills.
if [ "$profile" != core ] && [ ! -d tests/npm/node_modules/three ]; then
  echo "install-deps: installing three, typescript and playwright-core (npm) for the npm package's test"
  (cd tests/npm && npm ci --no-audit --no-fund --loglevel=error)
fi

# Blender 4.3 for the add-on's tests: Debian 13's, in a tree of its own (scripts/install-blender4.sh,
# about 4 minutes once). Started in the background so that it overlaps the build; the
# Blender 4 tests wait for it (install-blender4.sh --wait) and fail with its log if it failed.
if [ "$profile" != core ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo scripts/install-blender4.sh --background
fi
