#pragma once
// Per-vertex scalar fields for the renderer's heat map.
#include <cstdint>
#include <vector>

namespace wobble {
struct Rig;
struct Skin;
class DynamicSkinningState;
}  // namespace wobble

namespace wobble::render {

// The skin weight of joint j at each vertex (0 where j has no influence).
std::vector<float> skin_weight_field(const Skin& skin, std::uint32_t joint);
// beta_ij: the summed weight of joint j and all its descendants at each vertex.
std::vector<float> hierarchical_weight_field(const Rig& rig, const Skin& skin, std::uint32_t joint);
// The Dynamic Skinning bend weights gamma_i of an initialised state.
std::vector<float> bend_weight_field(const DynamicSkinningState& state);

}  // namespace wobble::render
