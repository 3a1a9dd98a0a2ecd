#pragma once
// Any byte string as an assimp scene, for fuzzing wobble's conversion of what assimp returns
// (src/io/assimp_scene.hpp) without assimp's own parsers, whose crashes the isolated importer
// survives but a fuzzer would stop at. The bytes are read in order; when they run out, the rest
// is zeros. Counts are bounded (a few nodes, meshes of up to 600 vertices), indices are not: faces,
// bone weights, node mesh references and names may point anywhere, as a broken file could make
// them. encode_scene writes a real scene (from assimp's test models) in the same order, which
// gives the fuzzer seeds that already have skeletons, skins and clips.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct aiScene;

namespace wobble::fuzz {

std::unique_ptr<aiScene> decode_scene(const std::uint8_t* data, std::size_t size);
std::vector<std::uint8_t> encode_scene(const aiScene& scene);

}  // namespace wobble::fuzz
