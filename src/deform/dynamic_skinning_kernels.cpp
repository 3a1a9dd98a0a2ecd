// Dynamic Skinning's bend kernel on the SIMD layer, compiled once per instruction set: eight
// (vertex, joint) pairs at a time, the math of pair_offset with the polynomial sine and cosine.
#include "deform/dynamic_skinning_kernels.hpp"

#include "simd/simd.hpp"

namespace wobble::dynamic_kernels::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

// The joint's row broadcast to eight lanes.
struct JointLanes {
  f32x8 qx, qy, qz, gx, gy, gz, nx, ny, nz, inv_g, lx, ly, lz, k2;
};

WOBBLE_SIMD_INLINE JointLanes broadcast(const float* joint, float inv_max_angle2) {
  auto s = [&](int k) { return f32x8::splat(joint[k]); };
  return {s(0), s(1), s(2), s(3),  s(4),  s(5),  s(6),
          s(7), s(8), s(9), s(10), s(11), s(12), f32x8::splat(inv_max_angle2)};
}

struct Offsets8 {
  f32x8 x, y, z;
};

// Offsets of eight pairs (positions p, weights b = beta, g = gamma), the math of pair_offset.
// kLinear: the joint also has a linear-drag push.
template <bool kLinear>
WOBBLE_SIMD_INLINE Offsets8 offsets8(const JointLanes& j, f32x8 px, f32x8 py, f32x8 pz, f32x8 b, f32x8 g) {
  const f32x8 one = f32x8::splat(1.0f);
  const f32x8 ux = px - j.qx, uy = py - j.qy, uz = pz - j.qz;
  const f32x8 cx = fms(j.gy, uz, j.gz * uy), cy = fms(j.gz, ux, j.gx * uz), cz = fms(j.gx, uy, j.gy * ux);
  const f32x8 s2 = fma(cx, cx, fma(cy, cy, cz * cz));  // |G x u|^2
  // theta = -g s / sqrt(1 + g^2 s^2 k2) = -g s2 / sqrt(s2 (1 + g^2 s2 k2)): one reciprocal root.
  const f32x8 q = s2 * fma(g * g * j.k2, s2, one);
  const f32x8 theta = -g * s2 * rsqrt(max(q, f32x8::splat(1e-30f)));
  const f32x8 h = f32x8::splat(0.5f) * theta, h2 = h * h;
  auto c = [](float x) { return f32x8::splat(x); };
  f32x8 sh = fma(h2, c(-1.0f / 39916800), c(1.0f / 362880));
  sh = fma(h2, sh, c(-1.0f / 5040));
  sh = fma(h2, sh, c(1.0f / 120));
  sh = fma(h2, sh, c(-1.0f / 6));
  sh = h * fma(h2, sh, one);
  f32x8 ch = fma(h2, c(1.0f / 479001600), c(-1.0f / 3628800));
  ch = fma(h2, ch, c(1.0f / 40320));
  ch = fma(h2, ch, c(-1.0f / 720));
  ch = fma(h2, ch, c(1.0f / 24));
  ch = fma(h2, ch, c(-0.5f));
  ch = fma(h2, ch, one);
  const f32x8 sin_t = c(2.0f) * (sh * ch);
  const f32x8 cos_m1 = c(-2.0f) * (sh * sh);
  const f32x8 w = fma(j.nx, ux, fma(j.ny, uy, j.nz * uz));
  const f32x8 perp_x = fnma(j.nx, w, ux), perp_y = fnma(j.ny, w, uy), perp_z = fnma(j.nz, w, uz);
  const f32x8 a = b * cos_m1;              // beta (cos theta - 1)
  const f32x8 kk = b * (sin_t * j.inv_g);  // beta sin(theta) / |G|
  Offsets8 d{fma(a, perp_x, kk * cx), fma(a, perp_y, kk * cy), fma(a, perp_z, kk * cz)};
  if constexpr (kLinear) {
    const f32x8 bg = b * g;
    d = {fma(bg, j.lx, d.x), fma(bg, j.ly, d.y), fma(bg, j.lz, d.z)};
  }
  return d;
}

bool has_push(const float* joint) { return joint[10] != 0 || joint[11] != 0 || joint[12] != 0; }

// Sparse segments: eight pairs at a time, positions gathered, offsets added one by one.
template <bool kLinear>
void pairs_width(const float* joint, const std::uint16_t* vertex, const float* beta, const float* gamma,
                 std::size_t begin, std::size_t end, const float* px, const float* py, const float* pz, float* dx,
                 float* dy, float* dz, float inv_max_angle2) {
  const JointLanes lanes = broadcast(joint, inv_max_angle2);
  std::size_t k = begin;
  alignas(32) float ox[8], oy[8], oz[8];
  alignas(32) std::int32_t idx[8];
  for (; k + 8 <= end; k += 8) {
    const i32x8 index = i32x8::load(vertex + k);
    const Offsets8 d = offsets8<kLinear>(lanes, f32x8::gather(px, index), f32x8::gather(py, index),
                                         f32x8::gather(pz, index), f32x8::load(beta + k), f32x8::load(gamma + k));
    d.x.store_aligned(ox);
    d.y.store_aligned(oy);
    d.z.store_aligned(oz);
    index.store(idx);
    for (int l = 0; l < 8; ++l) {
      dx[idx[l]] += ox[l];
      dy[idx[l]] += oy[l];
      dz[idx[l]] += oz[l];
    }
  }
  pairs_scalar(joint, vertex, beta, gamma, k, end, px, py, pz, dx, dy, dz, inv_max_angle2);
}

void pairs(const float* joint, const std::uint16_t* vertex, const float* beta, const float* gamma, std::size_t begin,
           std::size_t end, const float* px, const float* py, const float* pz, float* dx, float* dy, float* dz,
           float inv_max_angle2) {
  (has_push(joint) ? pairs_width<true> : pairs_width<false>)(joint, vertex, beta, gamma, begin, end, px, py, pz, dx, dy,
                                                             dz, inv_max_angle2);
}

// Dense segments: contiguous loads and stores.
template <bool kLinear>
void dense_width(const float* joint, std::size_t first_vertex, const float* beta, const float* gamma, std::size_t begin,
                 std::size_t end, const float* px, const float* py, const float* pz, float* dx, float* dy, float* dz,
                 float inv_max_angle2) {
  const JointLanes lanes = broadcast(joint, inv_max_angle2);
  std::size_t k = begin;
  for (; k + 8 <= end; k += 8) {
    const std::size_t v = first_vertex + (k - begin);
    const Offsets8 d = offsets8<kLinear>(lanes, f32x8::load(px + v), f32x8::load(py + v), f32x8::load(pz + v),
                                         f32x8::load(beta + k), f32x8::load(gamma + k));
    (f32x8::load(dx + v) + d.x).store(dx + v);
    (f32x8::load(dy + v) + d.y).store(dy + v);
    (f32x8::load(dz + v) + d.z).store(dz + v);
  }
  dense_scalar(joint, first_vertex + (k - begin), beta, gamma, k, end, px, py, pz, dx, dy, dz, inv_max_angle2);
}

void dense(const float* joint, std::size_t first_vertex, const float* beta, const float* gamma, std::size_t begin,
           std::size_t end, const float* px, const float* py, const float* pz, float* dx, float* dy, float* dz,
           float inv_max_angle2) {
  (has_push(joint) ? dense_width<true> : dense_width<false>)(joint, first_vertex, beta, gamma, begin, end, px, py, pz,
                                                             dx, dy, dz, inv_max_angle2);
}

}  // namespace

extern const Table table = {pairs, dense};

}  // namespace wobble::dynamic_kernels::WOBBLE_SIMD_ISA
