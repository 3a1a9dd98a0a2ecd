#!/usr/bin/env bash
# Builds wobble-viewer for the browser (WebAssembly + WebGL 2, Emscripten) into BUILD/site:
# index.html, wobble-viewer.js, wobble-viewer.wasm and wobble-viewer.data (the bundled characters,
# the .wfield neural fields and a few shapes for the physics mode), then the npm package
# @wobble-fx/three into web/npm/dist (scripts/build-npm-package.sh).
# Usage: scripts/build-web.sh [BUILD]   (default build-web; git-ignored). Incremental: a second
# run that changes nothing only checks timestamps.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build-web}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
mkdir -p "$build"
export NODE_PATH=/usr/share/nodejs   # Emscripten's tools need Debian's node modules
command -v emcmake >/dev/null || { echo "build-web: emcmake not found (install the Debian package emscripten: scripts/install-deps.sh)" >&2; exit 1; }

# 1. Dear ImGui 1.86 sources: Debian's source package (the -dev package holds x86 binaries only).
#    apt works on private lists and caches under BUILD/apt, so the machine's apt state is untouched.
imgui="$build/imgui"
if [ ! -f "$imgui/imgui.cpp" ]; then
  echo "build-web: fetching Dear ImGui sources (Debian source package imgui)"
  apt_dir="$build/apt"
  mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/download"
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$apt_dir/sources.list.d/debian-src.sources"
  apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
               -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  apt-get "${apt_options[@]}" -qq update
  (cd "$apt_dir/download" && apt-get "${apt_options[@]}" -qq source --download-only imgui)
  tarball="$(ls "$apt_dir"/download/imgui_*.orig.tar.* | head -n 1)"
  rm -rf "$imgui.tmp" && mkdir -p "$imgui.tmp"
  tar -xf "$tarball" -C "$imgui.tmp" --strip-components=1
  rm -rf "$imgui" && mv "$imgui.tmp" "$imgui"
  rm -rf "$apt_dir"
fi

# 2. Header-only dependencies from the Debian -dev packages, without the rest of /usr/include
#    (host C library headers must not shadow Emscripten's).
include="$build/include"
mkdir -p "$include"
for d in fmt spdlog nlohmann stb simde Spectra; do ln -sfn "/usr/include/$d" "$include/$d"; done
ln -sfn /usr/include/eigen3/unsupported "$include/unsupported"   # Eigen's vectorised erf (the neural fields)
ln -sfn /usr/include/eigen3/Eigen "$include/Eigen"
ln -sfn /usr/include/tiny_gltf.h "$include/tiny_gltf.h"   # its stb includes resolve through include/stb

# 3. Bundled characters, preloaded into the page's virtual file system.
mkdir -p "$build/assets"
for packed in "$root"/assets/*.xz; do
  unpacked="$build/assets/$(basename "${packed%.xz}")"
  [ "$unpacked" -nt "$packed" ] || "$root/scripts/unpack-asset.sh" "$packed" "$unpacked"
done

# 3b. The physics mode's neural fields (torch-free .wfield) and a few shapes for its menu and for
#     ?physics&shape=NAME (OFF text; the server may compress them on the wire).
mkdir -p "$build/models" "$build/shapes"
# install -C copies only what changed (unchanged files keep their time: no relink), writable.
for model in "$root"/models/*.wfield; do install -C -m 644 "$model" "$build/models/"; done
shapes="${WOBBLE_SHARED_SHAPES:-$root/../shared/assets/shapes}"
for shape in elephant cow spool hand; do
  if [ -f "$shapes/$shape.off" ]; then install -C -m 644 "$shapes/$shape.off" "$build/shapes/"
  else echo "build-web: $shapes/$shape.off not found: the page's shape menu will lack it" >&2; fi
done

# 4. Configure once, then build incrementally with Ninja.
if [ ! -f "$build/cmake/build.ninja" ]; then
  emcmake cmake -S "$root/web" -B "$build/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DWOBBLE_ROOT="$root" -DWOBBLE_WEB_DEPS="$build" -DWOBBLE_WEB_SITE="$build/site"
fi
cmake --build "$build/cmake" -j "${JOBS:-$(nproc)}"
echo "build-web: $build/site (serve it statically, e.g. python3 -m http.server -d $build/site)"

# 5. The npm package @wobble-fx/three (web/npm/dist, ready for npm pack; its CMake build in BUILD/npm).
"$root/scripts/build-npm-package.sh" "$build"
