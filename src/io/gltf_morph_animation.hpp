#pragma once
// A glTF's morph-target animation, read with the character around it (gltf_read.cpp): what a
// wobble bake to glTF carries its deformation in (gltf_write.cpp), for read_mesh_animation.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include <wobble/character.hpp>

namespace wobble {

struct MorphTargetAnimation {
  // [target][vertex]: the targets' POSITION offsets in read_gltf's vertex order and space (bind
  // space for a skinned mesh, world space for a static one); 0 where a primitive has none.
  std::vector<std::vector<Vec3f>> targets;
  std::vector<float> times;                 // the weights channel's keys, seconds
  std::vector<std::vector<float>> weights;  // [key][target]
  std::optional<std::size_t> clip;          // the character's clip from the same glTF animation (skinned)
};

// read_gltf, and the morph-target animation of the file's morphed mesh node into `animation`.
// Throws Error naming the file when no node has morph targets, more than one has, or their
// weights are driven by no animation channel or by several.
Character read_gltf_morph_animation(const std::filesystem::path& path, MorphTargetAnimation& animation);

}  // namespace wobble
