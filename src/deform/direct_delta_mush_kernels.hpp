#pragma once
// Direct Delta Mush's run-time loop: SIMD variants (direct_delta_mush_kernels.cpp, compiled once
// per instruction set: eight vertices at a time, the per-vertex blend of joint matrices with the
// packed (fixed-width, float) bind data, then the rotation fits of all eight in structure-of-
// arrays form, scaled Newton polar iteration, det +1) and the scalar reference
// (direct_delta_mush.cpp), chosen through src/simd/isa.hpp.
#include <cstddef>
#include <cstdint>

#include <wobble/direct_delta_mush.hpp>
#include <wobble/math.hpp>

#include "simd/isa.hpp"

namespace wobble::ddm {

constexpr int kOmega = 10;  // numbers per Omega: A xx xy xz yy yz zz, b x y z, c

// Views of DirectDeltaMush's bind data (see direct_delta_mush.hpp for the meaning).
struct BindView {
  DdmVariant variant = DdmVariant::V0;
  std::size_t width = 0;
  const Vec3f* rest = nullptr;
  const std::uint16_t* joints = nullptr;  // [vertex][slot]
  const float* omega = nullptr;           // v0: [vertex][slot][10]
  const float* psi = nullptr;             // [vertex][slot]
  const float* centre = nullptr;          // [vertex][3]
  const float* covariance = nullptr;      // v1: [vertex][6]
  const std::uint8_t* linear_fallback = nullptr;
  const float* joint_quaternions = nullptr;  // v3: per joint (x, y, z, w), unit
  const float* lever = nullptr;              // v3: [group of 8 vertices][x, y, z][lane]: u - p
};

// The fallback for a vertex with a degenerate neighbourhood: its rest position x moved by the
// psi-weighted blend of its joints' matrices, as linear blend skinning (empty slots skipped).
// Always inlined, so that each caller keeps its own instruction set (the kernels' FMA).
[[gnu::always_inline]] inline Vec3f blend_linearly(const Mat4f* skinning, const std::uint16_t* joints, const float* psi,
                                                   std::size_t width, const Vec3f& x) {
  Vec3f sum = Vec3f::Zero();
  for (std::size_t s = 0; s < width; ++s) {
    if (psi[s] == 0.0f) continue;
    const Mat4f& m = skinning[joints[s]];
    sum += psi[s] * (m.topLeftCorner<3, 3>() * x + m.topRightCorner<3, 1>());
  }
  return sum;
}

struct Table {
  // v0, v1, v2 (every variant in the reference): positions (and rotations when not null) of
  // vertices [begin, end) from the skinning matrices (column-major 4x4 each). Matrices the Newton
  // iteration cannot fit (singular, reflecting) go to nearest_rotation(); vertices with a
  // degenerate neighbourhood blend linearly.
  void (*evaluate)(const BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end, Vec3f* positions,
                   Mat3f* rotations);
  // v3 only (no rotation fit) over vertices [begin, end), begin a multiple of 8 (the callers'
  // chunks are): the psi blend of the matrices applied to p, plus u - p turned by the normalised
  // blend of the joints' quaternions. Vertices with the linear-blend fallback are left for the
  // caller to write afterwards (their entries may hold anything).
  void (*evaluate_v3)(const BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end,
                      Vec3f* positions);
  // The nearest rotations (det +1) of any number of matrices (the SIMD variants: eight at a time
  // with the kernels' Newton iteration, nearest_rotation() for the lanes it cannot fit).
  void (*nearest_rotations)(const Mat3f* m, Mat3f* r, std::size_t count);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::ddm
