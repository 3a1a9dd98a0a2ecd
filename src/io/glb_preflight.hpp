#pragma once
// What tinygltf (Debian's 2.8) does not check before it indexes, checked first so that a hostile
// GLB gets an error naming the file and the element instead of a library exception.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace wobble {

// A GLB's JSON chunk: every buffers[i].byteLength must be at least 1 (glTF 2.0's minimum).
// tinygltf copies the BIN chunk into a buffer of byteLength bytes through `data.at(0)`, which
// throws std::out_of_range ("vector::_M_range_check") for 0. Anything this cannot parse is left
// to tinygltf, which reports it.
void check_glb_before_tinygltf(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes);

}  // namespace wobble
