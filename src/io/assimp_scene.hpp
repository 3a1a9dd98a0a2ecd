#pragma once
// The conversion of an assimp scene into a Character (src/io/assimp_conversion.cpp), apart from
// assimp's file parsing so that it can be tested and fuzzed on any scene. It checks every index
// and count it uses (faces, bone weights, mesh and material references, null entries), so that
// even a scene that assimp's validation would not have passed converts or fails by name.
#include <filesystem>

#include <wobble/character.hpp>

struct aiMesh;
struct aiScene;

namespace wobble {

Character character_from_assimp(const aiScene& scene, const std::filesystem::path& path);
// A mesh wobble can use: it has triangles (after Triangulate and SortByPType, a mesh holds one
// primitive type).
bool is_triangle_mesh(const aiMesh* mesh);

}  // namespace wobble
