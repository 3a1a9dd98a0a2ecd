#pragma once
// A rigged character's own skin weights as a skinning field: the per-vertex weights are spread
// to the nodes of a regular grid (normalised frame) by inverse-distance weighting of the nearest
// vertices, renormalised to sum to one, and interpolated trilinearly (fields::GridField), so that W and
// grad W exist at any point. One column per rig joint (columns of joints without weights are zero).
#include <memory>

#include <wobble/character.hpp>
#include <wobble/fields/sampling.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::physics {

struct RigWeightsOptions {
  int grid_resolution = 24;  // cells along the longest side of [-1, 1]^3
  int neighbours = 6;        // vertices blended per grid node
};

// Throws Error naming the character's source if it has no skin.
std::shared_ptr<fields::GridField> rig_weights_field(const Character& character,
                                                     const fields::Normalization& normalization,
                                                     const RigWeightsOptions& options = {});

}  // namespace wobble::physics
