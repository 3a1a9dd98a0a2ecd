// Web build: Debian ships tinygltf as a shared library for the host; here its implementation is
// compiled once, in this translation unit only. stb_image's implementation comes from
// src/io/image.cpp, which compiles it under Emscripten.
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
