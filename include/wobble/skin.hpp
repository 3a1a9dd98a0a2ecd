#pragma once
// Skin: the joint influences of each vertex. Any number per vertex (compressed rows), and a
// fixed-width structure-of-arrays copy for hot loops.
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace wobble {

class Diagnostics;

struct Influence {
  std::uint32_t joint;
  float weight;
};

struct Skin {
  // Influences of vertex v are entries [offsets[v], offsets[v+1]) of joints/weights.
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> joints;
  std::vector<float> weights;

  std::size_t vertex_count() const { return offsets.size() - 1; }
  bool empty() const { return joints.empty(); }
  std::size_t max_influences() const;
  std::span<const std::uint32_t> joints_of(std::size_t v) const {
    return {joints.data() + offsets[v], joints.data() + offsets[v + 1]};
  }
  std::span<const float> weights_of(std::size_t v) const {
    return {weights.data() + offsets[v], weights.data() + offsets[v + 1]};
  }
  // Appends the next vertex's influences (zero weights dropped, equal joints merged).
  void add_vertex(std::span<const Influence> influences);
  // Makes every vertex's weights sum to one. Repairs, each reported once in `diagnostics`:
  // negative or non-finite weights are dropped; sums off by more than 1e-3 are normalised;
  // a vertex with no weight left is bound to `fallback_joint` with weight 1.
  // Throws Error naming `source` for joints >= joint_count.
  void normalize(std::size_t joint_count, std::uint32_t fallback_joint, Diagnostics& diagnostics,
                 const std::filesystem::path& source);
};

// Fixed-width layout: `width` slots per vertex, joints and weights in two flat arrays
// (vertex-major). Unused slots have weight 0 and joint 0. Vertices whose influences exceed the
// width keep the largest ones, renormalised.
struct PackedSkin {
  std::uint32_t width = 0;
  std::vector<std::uint16_t> joints;
  std::vector<float> weights;

  std::size_t vertex_count() const { return width ? weights.size() / width : 0; }
  // width 0: the skin's maximum influence count (at least 1).
  static PackedSkin from(const Skin& skin, std::uint32_t width = 0);
};

}  // namespace wobble
