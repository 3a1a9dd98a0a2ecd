#pragma once
// An assimp scene's materials as wobble's (assimp_materials.cpp): name, diffuse (or PBR base)
// colour and opacity, two-sidedness, and the diffuse texture when it is a PNG or JPEG, embedded or
// next to the model. Internal (the assimp conversion, assimp_conversion.cpp).
#include <filesystem>

#include <wobble/character.hpp>

struct aiScene;

namespace wobble {

// Appends one material per scene material to mesh.materials (and their images to mesh.images);
// textures it cannot use are reported as repairs.
void read_materials(const std::filesystem::path& path, const aiScene* scene, Mesh& mesh, Diagnostics& diagnostics);

}  // namespace wobble
