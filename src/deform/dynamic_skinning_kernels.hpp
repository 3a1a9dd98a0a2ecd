#pragma once
// Dynamic Skinning's bend kernel: the offsets of (vertex, joint) pairs added to base-skinned
// positions, one chunk of vertices at a time. SIMD variants in dynamic_skinning_kernels.cpp
// (compiled once per instruction set); the scalar reference and the per-pair math below.
//
// A joint's row of the kernel's joint table (kJointStride floats): the joint's position q (0-2),
// G = filtered angular offset / mesh size (3-5), the unit axis n of G (6-8), 1 / |G| (9) and the
// linear-drag push (10-12; zero when the joint has none).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <wobble/math.hpp>

#include "simd/isa.hpp"

namespace wobble::dynamic_kernels {

constexpr std::size_t kJointStride = 16;  // floats per joint in the joint table

// sin and cos of h for |h| <= pi/2 (Taylor to degree 11 and 12: error below 6e-8).
template <typename T>
inline void sin_cos_half(T h, T& s, T& c) {
  const T h2 = h * h;
  s = h * (T(1) + h2 * (T(-1.0 / 6) + h2 * (T(1.0 / 120) +
                                            h2 * (T(-1.0 / 5040) + h2 * (T(1.0 / 362880) + h2 * T(-1.0 / 39916800))))));
  c = T(1) + h2 * (T(-0.5) + h2 * (T(1.0 / 24) +
                                   h2 * (T(-1.0 / 720) +
                                         h2 * (T(1.0 / 40320) + h2 * (T(-1.0 / 3628800) + h2 * T(1.0 / 479001600))))));
}

// One (vertex, joint) pair, scalar. j: the joint's row of the table. Returns the offset.
// kExactTrig: std::sin/cos instead of the kernels' polynomials (the tests' reference).
template <bool kExactTrig>
inline Vec3f pair_offset(const float* j, float px, float py, float pz, float beta, float gamma, float inv_max_angle2) {
  const float ux = px - j[0], uy = py - j[1], uz = pz - j[2];
  // c = G x u
  const float cx = j[4] * uz - j[5] * uy, cy = j[5] * ux - j[3] * uz, cz = j[3] * uy - j[4] * ux;
  const float s = std::sqrt(cx * cx + cy * cy + cz * cz);
  const float raw = -gamma * s;
  const float theta = raw / std::sqrt(1.0f + raw * raw * inv_max_angle2);
  float sin_t, cos_t_minus_1;
  if constexpr (kExactTrig) {
    sin_t = std::sin(theta);
    cos_t_minus_1 = std::cos(theta) - 1.0f;
  } else {
    float sh, ch;
    sin_cos_half(0.5f * theta, sh, ch);
    sin_t = 2 * sh * ch;
    cos_t_minus_1 = -2 * sh * sh;
  }
  const float w = j[6] * ux + j[7] * uy + j[8] * uz;  // n . u
  const float perp_x = ux - j[6] * w, perp_y = uy - j[7] * w, perp_z = uz - j[8] * w;
  const float k = sin_t * j[9];  // sin(theta) / |G|: n x u = c / |G|
  const float bg = beta * gamma;
  return Vec3f(beta * (cos_t_minus_1 * perp_x + k * cx) + bg * j[10],
               beta * (cos_t_minus_1 * perp_y + k * cy) + bg * j[11],
               beta * (cos_t_minus_1 * perp_z + k * cz) + bg * j[12]);
}

// Sparse segments: pairs [begin, end) of one joint (vertex[k]: the chunk-local vertex, beta[k],
// gamma[k]); positions px, py, pz and offsets dx, dy, dz are the chunk's arrays.
inline void pairs_scalar(const float* joint, const std::uint16_t* vertex, const float* beta, const float* gamma,
                         std::size_t begin, std::size_t end, const float* px, const float* py, const float* pz,
                         float* dx, float* dy, float* dz, float inv_max_angle2) {
  for (std::size_t k = begin; k < end; ++k) {
    const std::uint16_t v = vertex[k];
    const Vec3f d = pair_offset<false>(joint, px[v], py[v], pz[v], beta[k], gamma[k], inv_max_angle2);
    dx[v] += d.x();
    dy[v] += d.y();
    dz[v] += d.z();
  }
}

// Dense segments: the pairs of one joint over a contiguous run of the chunk's vertices starting at
// first_vertex (beta 0 in the gaps), so that positions and offsets are read without gathers.
inline void dense_scalar(const float* joint, std::size_t first_vertex, const float* beta, const float* gamma,
                         std::size_t begin, std::size_t end, const float* px, const float* py, const float* pz,
                         float* dx, float* dy, float* dz, float inv_max_angle2) {
  for (std::size_t k = begin; k < end; ++k) {
    const std::size_t v = first_vertex + (k - begin);
    if (beta[k] == 0) continue;
    const Vec3f d = pair_offset<false>(joint, px[v], py[v], pz[v], beta[k], gamma[k], inv_max_angle2);
    dx[v] += d.x();
    dy[v] += d.y();
    dz[v] += d.z();
  }
}

struct Table {
  void (*pairs)(const float* joint, const std::uint16_t* vertex, const float* beta, const float* gamma,
                std::size_t begin, std::size_t end, const float* px, const float* py, const float* pz, float* dx,
                float* dy, float* dz, float inv_max_angle2);
  void (*dense)(const float* joint, std::size_t first_vertex, const float* beta, const float* gamma, std::size_t begin,
                std::size_t end, const float* px, const float* py, const float* pz, float* dx, float* dy, float* dz,
                float inv_max_angle2);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::dynamic_kernels
