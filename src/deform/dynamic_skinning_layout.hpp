#pragma once
// Dynamic Skinning's pairs as the bend kernel reads them (dynamic_skinning_layout.cpp): built once
// at initialize, then read-only. Internal: DynamicSkinningState holds it opaquely.
//
// Vertices are cut into chunks of kChunk; within a chunk they are visited in the depth-first order
// of their main joint, so that the vertices of a joint's subtree are mostly contiguous. A chunk's
// pairs are grouped by joint (ascending), then by vertex: a dense segment covers a contiguous run
// of the chunk's vertices from `first` (beta 0 in the gaps, no gathers), a sparse one lists them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/dynamic_skinning.hpp>

namespace wobble::dynamic_kernels {

inline constexpr std::size_t kChunk = 1024;  // vertices per chunk (local indices fit 16 bits)

struct Segment {
  std::uint32_t joint, begin, end, pairs;
  std::uint16_t first;
  std::uint8_t dense;
};

struct PairLayout {
  std::vector<std::uint32_t> chunk_segments{0};  // segments of chunk c: [chunk_segments[c], [c+1])
  std::vector<Segment> segments;
  std::vector<std::uint16_t> chunk_order;    // per chunk: the vertices (local index) in kernel order
  std::vector<std::uint8_t> chunk_identity;  // per chunk: kernel order is the mesh order
  std::vector<std::uint16_t> pair_vertex;    // the vertex's position in its chunk's kernel order
  std::vector<float> pair_beta, pair_gamma;
  std::size_t stored_pairs = 0, dense_pairs = 0;
};

// A flexible origin's radius restriction (DynamicSkinningParameters::joints): the joint's beta
// falls to 0 at `radius` from `centre` (bind space).
struct RestrictedOrigin {
  float radius;
  Vec3f centre;
};

// The pairs (vertex, joint) with beta gamma != 0: beta from the hierarchical weights (times the
// restriction's falloff where the joint has one), gamma the vertex's bend weight.
PairLayout pair_layout(const Rig& rig, const Mesh& mesh, const Skin& skin, const HierarchicalWeights& weights,
                       std::span<const float> gamma, std::span<const std::optional<RestrictedOrigin>> restricted);

}  // namespace wobble::dynamic_kernels
