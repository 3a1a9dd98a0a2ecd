#!/usr/bin/env bash
# `make test`'s check of the installed package (CTest consumer.installed_package):
#   1. installs the runtime component of BUILD into a temporary prefix and checks that its link
#      interface names no file-format, GL or torch library and that the shared library has a SONAME;
#   2. builds tests/consumer against the prefix (find_package, wobble::runtime) and runs it; its
#      frames must be the bytes of the same program built in the main build (REFERENCE);
#   3. builds the C example against the prefix twice, by its CMake package and by pkg-config, and runs it.
# Usage: tests/consumer/run.sh BUILD REFERENCE
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
reference="$2"
work="$build/consumer-test"   # inside the build folder: stable paths keep ccache effective
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
export CCACHE_BASEDIR="$root"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

cmake --install "$build" --prefix "$prefix" --component runtime >/dev/null
targets="$prefix/lib/cmake/wobble/wobble-runtime-targets.cmake"
if grep -Eion "assimp|tinygltf|stb|spdlog|fmt::|nlohmann|opengl|epoxy|egl|glfw|torch" "$targets"; then
  echo "consumer: wobble::runtime's installed link interface names the libraries above" >&2
  exit 1
fi
soname="$(readelf -d "$prefix/lib/libwobble_runtime.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')"
[ -n "$soname" ] && [ -e "$prefix/lib/$soname" ] || { echo "consumer: libwobble_runtime.so has no SONAME link ($soname)" >&2; exit 1; }
[ -f "$prefix/lib/libwobble_runtime.a" ] || { echo "consumer: no static libwobble_runtime.a installed" >&2; exit 1; }
echo "consumer: installed runtime ($soname, static and shared, $(ls "$prefix/include/wobble" | wc -l) headers)"

configure() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null; }
configure "$root/tests/consumer" "$work/consumer"
cmake --build "$work/consumer" >/dev/null
"$work/consumer/wobble_consumer" "$work/installed.bin"
"$reference" "$work/main-build.bin" >/dev/null
cmp "$work/installed.bin" "$work/main-build.bin"
echo "consumer: the installed package's frames are the main build's, byte for byte"

configure "$root/examples/c" "$work/example"
cmake --build "$work/example" >/dev/null
"$work/example/wobble_example_c"
cc -std=c11 -Wall -Wextra -Werror -pedantic "$root/examples/c/deform_tube.c" -o "$work/deform_tube" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs wobble-runtime) -lm
LD_LIBRARY_PATH="$prefix/lib" "$work/deform_tube" >/dev/null
echo "consumer: the C example also builds with pkg-config (wobble-runtime.pc)"
