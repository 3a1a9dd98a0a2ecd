#pragma once
// A decomposition as a character any engine plays with plain skinning: under one root, a joint
// per free bone (bind pose: at the bone's centre, unrotated), the weights as its skin, and the
// per-frame bone transforms as one clip of translation and rotation keys (LINEAR).
#include <span>
#include <string>

#include <wobble/character.hpp>
#include <wobble/offline/skinning_decomposition.hpp>

namespace wobble {

// `times`: one per frame of the decomposition (seconds). The mesh is `rest` (its positions are
// the bind pose). Throws Error when the counts disagree or the decomposition has fixed bones.
Character decomposed_character(const Mesh& rest, const Decomposition& result, std::span<const float> times,
                               const std::string& clip_name);

// A rotation matrix as the unit quaternion on the same hemisphere as `previous` (so that keys
// interpolated component-wise, as some players do, take the short way).
Quatf continuous_rotation(const Eigen::Matrix3d& rotation, const Quatf& previous);

}  // namespace wobble
