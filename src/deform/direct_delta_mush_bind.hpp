#pragma once
// Direct Delta Mush's precomputation (direct_delta_mush_bind.cpp): from a checked rest mesh and
// skin, the per-vertex arrays the run-time kernels read (direct_delta_mush_kernels.hpp). Internal.
#include <cstdint>
#include <span>
#include <vector>

#include <wobble/direct_delta_mush.hpp>

namespace wobble::ddm {

struct BindArrays {
  std::size_t width = 1;                      // influences per vertex (the largest kept)
  std::vector<std::uint16_t> joints;          // [vertex][slot]
  std::vector<float> psi;                     // [vertex][slot]
  std::vector<float> omega;                   // v0: [vertex][slot][10], centred on p
  std::vector<float> centre;                  // [vertex][3]: p
  std::vector<float> covariance;              // v1: [vertex][6]
  std::vector<float> lever;                   // v3: [group of 8 vertices][x, y, z][lane]: u - p
  std::vector<std::uint8_t> linear_fallback;  // per vertex
};

// The inputs are checked (DirectDeltaMush::bind): indices in range, positions finite.
BindArrays bind_arrays(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const Skin& skin,
                       std::size_t joint_count, const DirectDeltaMushSettings& settings);

}  // namespace wobble::ddm
