// Direct Delta Mush's run-time loop on the SIMD layer, compiled once per instruction set.
#include "deform/direct_delta_mush_kernels.hpp"

#include <algorithm>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "simd/simd.hpp"

namespace wobble::ddm::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

constexpr std::size_t kLanes = 8;

WOBBLE_SIMD_INLINE void cross(f32x8 a0, f32x8 a1, f32x8 a2, f32x8 b0, f32x8 b1, f32x8 b2, f32x8* out) {
  out[0] = fms(a1, b2, a2 * b1);
  out[1] = fms(a2, b0, a0 * b2);
  out[2] = fms(a0, b1, a1 * b0);
}

// q + M (Omega[a], Omega[b], Omega[c], Omega[d])^T: one column of M Omega, Omega's entries picked
// from its 10 stored numbers.
WOBBLE_SIMD_INLINE f32x4 accumulate_column(f32x4 q, f32x4 m0, f32x4 m1, f32x4 m2, f32x4 m3, const float* omega, int a,
                                           int b, int c, int d) {
  q = fma(m3, f32x4::splat(omega[d]), q);
  q = fma(m2, f32x4::splat(omega[c]), q);
  q = fma(m1, f32x4::splat(omega[b]), q);
  return fma(m0, f32x4::splat(omega[a]), q);
}

// A 3x3 matrix per lane, row-major: m[3 r + c].
struct Mat8 {
  f32x8 m[9];
};

// In place: X -> the orthogonal polar factor, by the scaled Newton iteration
// X <- (g X + X^-T / g) / 2, g = (|X^-1| / |X|)^(1/2) (Frobenius), as nearest_rotation() does.
// Returns the lanes (bit mask) that need another method: zero or non-finite matrices and those
// whose determinant is not safely positive (singular or reflecting); those lanes hold identity.
int polar_newton(Mat8& x) {
  const f32x8 one = f32x8::splat(1.0f), zero = f32x8::zero();
  const f32x8 identity[9] = {one, zero, zero, zero, one, zero, zero, zero, one};
  f32x8 norm2 = x.m[0] * x.m[0];
  for (int k = 1; k < 9; ++k) norm2 = fma(x.m[k], x.m[k], norm2);
  // Usable: 0 < norm2 < inf (NaN compares false).
  m32x8 good = (norm2 > zero) & (norm2 < f32x8::splat(INFINITY));
  // Any scale near |X| / sqrt(3) will do (the polar factor does not depend on it).
  const f32x8 scale = rsqrt_estimate(norm2 * f32x8::splat(1.0f / 3.0f));
  for (int k = 0; k < 9; ++k) x.m[k] = select(good, x.m[k] * scale, identity[k]);
  m32x8 scaling = m32x8::splat(true);  // lanes still using the scaled iteration
  for (int iteration = 0; iteration < 30; ++iteration) {
    const f32x8* a = x.m;
    // Cofactor matrix (columns: col1 x col2, col2 x col0, col0 x col1); X^-T = cof / det.
    f32x8 c0[3], c1[3], c2[3];  // cofactor columns
    cross(a[1], a[4], a[7], a[2], a[5], a[8], c0);
    cross(a[2], a[5], a[8], a[0], a[3], a[6], c1);
    cross(a[0], a[3], a[6], a[1], a[4], a[7], c2);
    const f32x8 det = fma(a[0], c0[0], fma(a[3], c0[1], a[6] * c0[2]));
    good = good & (det > f32x8::splat(1e-6f));
    f32x8 x2 = a[0] * a[0], c2n = c0[0] * c0[0];
    for (int k = 1; k < 9; ++k) x2 = fma(a[k], a[k], x2);
    for (int r = 1; r < 3; ++r) c2n = fma(c0[r], c0[r], c2n);
    for (int r = 0; r < 3; ++r) c2n = fma(c1[r], c1[r], fma(c2[r], c2[r], c2n));
    // 1 / det to float precision: the step's fixed point depends on it. Bad lanes use det = 1
    // (they are reset below).
    const f32x8 safe_det = select(good, det, one);
    const f32x8 inv_det = rcp(safe_det);
    // The scale g = (|X^-1| / |X|)^(1/2), g^4 = |cof|^2 / (det^2 |X|^2), only speeds convergence up:
    // estimated, and switched off (g = 1) near convergence, where its error would otherwise move
    // the fixed point.
    const f32x8 g4 = c2n * rcp_estimate(safe_det * safe_det * x2);
    const m32x8 scaled = good & scaling;
    const f32x8 g_estimate = rsqrt_estimate(rsqrt_estimate(g4));  // (g^4)^(1/4)
    const f32x8 g = select(scaled, g_estimate, one);
    const f32x8 inv_g = select(scaled, rcp_estimate(g_estimate), one);
    const f32x8 cx = f32x8::splat(0.5f) * g;
    const f32x8 cc = f32x8::splat(0.5f) * inv_det * inv_g;
    const f32x8 cof[9] = {c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2]};
    f32x8 change = zero;
    for (int k = 0; k < 9; ++k) {
      const f32x8 next = select(good, fma(cx, a[k], cc * cof[k]), identity[k]);
      const f32x8 d = next - a[k];
      change = fma(d, d, change);
      x.m[k] = next;
    }
    // Quadratic convergence: once an unscaled step changes X by ~1e-5, X is within float
    // precision (a scaled step with its estimated g does not tell: it always ends unscaled).
    const m32x8 small = ~scaled & (change < f32x8::splat(1e-10f));
    if (small.all()) break;
    scaling = scaling & (change >= f32x8::splat(1e-4f));
  }
  return ~good.bits() & 0xFF;
}

// Lane l's blended 4x4 (v0: Q'), column-major, into q.
void blend_lane(const BindView& bind, const float* palette, std::size_t v, float* q) {
  const std::size_t width = bind.width;
  const std::uint16_t* joints = bind.joints + v * width;
  if (bind.variant == DdmVariant::V0) {
    // Q' = sum_s M_s T Omega'_s, one column (4 floats) at a time; Omega' symmetric, 10 numbers,
    // centred on p (T: translation by p, so M_s T has the last column M_s (p, 1)).
    f32x4 q0 = f32x4::zero(), q1 = q0, q2 = q0, q3 = q0;
    const float* w = bind.omega + v * width * kOmega;
    const f32x4 px = f32x4::splat(bind.centre[3 * v]), py = f32x4::splat(bind.centre[3 * v + 1]);
    const f32x4 pz = f32x4::splat(bind.centre[3 * v + 2]);
    for (std::size_t s = 0; s < width; ++s, w += kOmega) {
      const float* m = palette + 16 * std::size_t(joints[s]);
      const f32x4 m0 = f32x4::load(m), m1 = f32x4::load(m + 4), m2 = f32x4::load(m + 8);
      const f32x4 m3 = fma(m0, px, fma(m1, py, fma(m2, pz, f32x4::load(m + 12))));
      q0 = accumulate_column(q0, m0, m1, m2, m3, w, 0, 1, 2, 6);
      q1 = accumulate_column(q1, m0, m1, m2, m3, w, 1, 3, 4, 7);
      q2 = accumulate_column(q2, m0, m1, m2, m3, w, 2, 4, 5, 8);
      q3 = accumulate_column(q3, m0, m1, m2, m3, w, 6, 7, 8, 9);
    }
    q0.store_aligned(q), q1.store_aligned(q + 4), q2.store_aligned(q + 8), q3.store_aligned(q + 12);
    return;
  }
  // The psi-weighted blend of the matrices, as linear blend skinning.
  f32x8 c01 = f32x8::zero(), c23 = f32x8::zero();
  const float* psi = bind.psi + v * width;
  for (std::size_t s = 0; s < width; ++s) {
    const f32x8 w = f32x8::splat(psi[s]);
    const float* m = palette + 16 * std::size_t(joints[s]);
    c01 = fma(w, f32x8::load(m), c01);
    c23 = fma(w, f32x8::load(m + 8), c23);
  }
  c01.store_aligned(q), c23.store_aligned(q + 8);
}

void evaluate(const BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end, Vec3f* positions,
              Mat3f* rotations) {
  const std::size_t width = bind.width;
  const float* palette = skinning->data();
  alignas(32) float blend[kLanes][16];  // per lane: the blended 4x4 (v0: Q), column-major
  alignas(32) float centre[3][kLanes], local[3][kLanes];
  alignas(32) float fit[9][kLanes], result[3][kLanes], rotation[9][kLanes], t[3][kLanes];
  for (std::size_t first = begin; first < end; first += kLanes) {
    const std::size_t lanes = std::min(kLanes, end - first);
    for (std::size_t l = 0; l < kLanes; ++l) {
      if (l >= lanes) {  // past the range: an identity that converges at once, never written
        for (int k = 0; k < 16; ++k) blend[l][k] = (k % 5 == 0) ? 1.0f : 0.0f;
        for (int r = 0; r < 3; ++r) centre[r][l] = 0.0f, local[r][l] = 0.0f;
        continue;
      }
      const std::size_t v = first + l;
      blend_lane(bind, palette, v, blend[l]);
      for (int r = 0; r < 3; ++r) {
        centre[r][l] = bind.centre[3 * v + r];
        local[r][l] = bind.rest[v][r] - centre[r][l];
      }
    }
    const Lanes4 col0 = load_rows(blend[0], 16), col1 = load_rows(blend[0] + 4, 16);
    const Lanes4 col2 = load_rows(blend[0] + 8, 16), col3 = load_rows(blend[0] + 12, 16);
    const f32x8 px = f32x8::load_aligned(centre[0]), py = f32x8::load_aligned(centre[1]);
    const f32x8 pz = f32x8::load_aligned(centre[2]);
    const f32x8 l3[9] = {col0.x, col1.x, col2.x, col0.y, col1.y, col2.y, col0.z, col1.z, col2.z};
    Mat8 x;
    // The translation part: v0 q = Q(:, 3); v1, v2: L p + t.
    f32x8 tx = col3.x, ty = col3.y, tz = col3.z;
    if (bind.variant == DdmVariant::V0) {
      for (int k = 0; k < 9; ++k) x.m[k] = l3[k];  // centred Omega: M = Q'(0:3, 0:3)
    } else {
      tx = fma(l3[0], px, fma(l3[1], py, fma(l3[2], pz, tx)));
      ty = fma(l3[3], px, fma(l3[4], py, fma(l3[5], pz, ty)));
      tz = fma(l3[6], px, fma(l3[7], py, fma(l3[8], pz, tz)));
      if (bind.variant == DdmVariant::V1) {
        // M = L C, C the smoothed covariance (symmetric, 6 numbers per vertex).
        alignas(32) float cov[6][kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) {
          for (int k = 0; k < 6; ++k)
            cov[k][l] = l < lanes ? bind.covariance[6 * (first + l) + k] : (k == 0 || k == 3 || k == 5);
        }
        f32x8 c6[6];
        for (int k = 0; k < 6; ++k) c6[k] = f32x8::load_aligned(cov[k]);
        const f32x8 c[9] = {c6[0], c6[1], c6[2], c6[1], c6[3], c6[4], c6[2], c6[4], c6[5]};
        for (int r = 0; r < 3; ++r) {
          for (int k = 0; k < 3; ++k)
            x.m[3 * r + k] = fma(l3[3 * r], c[k], fma(l3[3 * r + 1], c[3 + k], l3[3 * r + 2] * c[6 + k]));
        }
      } else {
        for (int k = 0; k < 9; ++k) x.m[k] = l3[k];
      }
    }
    for (int k = 0; k < 9; ++k) x.m[k].store_aligned(fit[k]);  // M, for lanes that need the fallback
    const int failed = polar_newton(x);
    const f32x8 ux = f32x8::load_aligned(local[0]), uy = f32x8::load_aligned(local[1]),
                uz = f32x8::load_aligned(local[2]);
    fma(x.m[0], ux, fma(x.m[1], uy, fma(x.m[2], uz, tx))).store_aligned(result[0]);
    fma(x.m[3], ux, fma(x.m[4], uy, fma(x.m[5], uz, ty))).store_aligned(result[1]);
    fma(x.m[6], ux, fma(x.m[7], uy, fma(x.m[8], uz, tz))).store_aligned(result[2]);
    for (int k = 0; k < 9; ++k) x.m[k].store_aligned(rotation[k]);
    tx.store_aligned(t[0]), ty.store_aligned(t[1]), tz.store_aligned(t[2]);
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t v = first + l;
      if (!rotations && !bind.linear_fallback[v] && !(failed & (1 << l))) {  // the common case
        positions[v] = Vec3f(result[0][l], result[1][l], result[2][l]);
        continue;
      }
      Mat3f r;
      for (int k = 0; k < 9; ++k) r(k / 3, k % 3) = rotation[k][l];
      Vec3f out(result[0][l], result[1][l], result[2][l]);
      if (bind.linear_fallback[v]) {
        out = blend_linearly(skinning, bind.joints + v * width, bind.psi + v * width, width, bind.rest[v]);
        r.setIdentity();
      } else if (failed & (1 << l)) {
        Mat3f m;
        for (int k = 0; k < 9; ++k) m(k / 3, k % 3) = fit[k][l];
        r = nearest_rotation(m);
        out = r * Vec3f(local[0][l], local[1][l], local[2][l]) + Vec3f(t[0][l], t[1][l], t[2][l]);
      }
      positions[v] = out;
      if (rotations) rotations[v] = r;
    }
  }
}

// Eight vertices at a time: per lane, the psi blends (matrices applied to p, quaternions) as
// linear blend skinning does them; then the turn of u - p for all eight lanes at once (structure
// of arrays). kWidth: influences per vertex (0: bind.width at run time), so that loops unroll.
template <std::size_t kWidth>
void evaluate_v3_width(const BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end,
                       Vec3f* positions) {
  const std::size_t width = kWidth ? kWidth : bind.width;
  const float* palette = skinning->data();
  const float* quaternions = bind.joint_quaternions;
  alignas(32) float moved[kLanes][4], turn[kLanes][4];
  float* out_p = positions->data();
  for (std::size_t first = begin; first < end; first += kLanes) {
    const std::size_t lanes = std::min(kLanes, end - first);
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t v = first + l;
      if (l >= lanes || bind.linear_fallback[v]) {  // written by the caller (or past the range)
        f32x4::zero().store_aligned(moved[l]);
        f32x4::set(0, 0, 0, 1).store_aligned(turn[l]);
        continue;
      }
      const std::uint16_t* joints = bind.joints + v * width;
      const float* psi = bind.psi + v * width;
      // The strongest joint first: its quaternion sets the hemisphere.
      const f32x8 w0 = f32x8::splat(psi[0]);
      const float* m0 = palette + 16 * std::size_t(joints[0]);
      f32x8 c01 = w0 * f32x8::load(m0), c23 = w0 * f32x8::load(m0 + 8);
      const f32x4 strongest = f32x4::load(quaternions + 4 * std::size_t(joints[0]));
      f32x4 q = f32x4::splat(psi[0]) * strongest;
      for (std::size_t s = 1; s < width; ++s) {
        const f32x8 w = f32x8::splat(psi[s]);
        const float* m = palette + 16 * std::size_t(joints[s]);
        c01 = fma(w, f32x8::load(m), c01);
        c23 = fma(w, f32x8::load(m + 8), c23);
        // Flip the weight's sign where the quaternion is in the other hemisphere.
        const f32x4 joint_q = f32x4::load(quaternions + 4 * std::size_t(joints[s]));
        q = fma(negate_where(dot4(joint_q, strongest) < f32x4::zero(), f32x4::splat(psi[s])), joint_q, q);
      }
      const f32x4 c0 = c01.low(), c1 = c01.high(), c2 = c23.low(), c3 = c23.high();
      const float* p = bind.centre + 3 * v;
      fma(c2, f32x4::splat(p[2]), fma(c1, f32x4::splat(p[1]), fma(c0, f32x4::splat(p[0]), c3))).store_aligned(moved[l]);
      q.store_aligned(turn[l]);
    }
    // u - p per lane: bind.lever is [group][3][8] (whole groups, zero padded; first starts a group).
    const float* block = bind.lever + 3 * first;
    const f32x8 dx = f32x8::load(block), dy = f32x8::load(block + kLanes), dz = f32x8::load(block + 2 * kLanes);
    const Lanes4 t = load_rows(moved[0], 4), q = load_rows(turn[0], 4);
    // d turned by q / |q|: c = (2 / |q|^2) q x d, d' = d + w c + q x c.
    const f32x8 norm2 = fma(q.x, q.x, fma(q.y, q.y, fma(q.z, q.z, q.w * q.w)));
    const f32x8 scale = f32x8::splat(2.0f) / norm2;
    f32x8 c[3];
    cross(q.x, q.y, q.z, dx, dy, dz, c);
    for (int k = 0; k < 3; ++k) c[k] = scale * c[k];
    f32x8 e[3];
    cross(q.x, q.y, q.z, c[0], c[1], c[2], e);
    const f32x8 x = t.x + (fma(q.w, c[0], dx) + e[0]);
    const f32x8 y = t.y + (fma(q.w, c[1], dy) + e[1]);
    const f32x8 z = t.z + (fma(q.w, c[2], dz) + e[2]);
    const Rows8 rows = transpose_lanes(x, y, z, f32x8::zero());
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t v = first + l;
      if (v + 1 < end) {
        // A 4-wide store writes one float into the next vertex, which its own store rewrites
        // (a fallback vertex is written by the caller afterwards).
        rows.row[l].store(out_p + 3 * v);
      } else {
        rows.row[l].store3(out_p + 3 * v);  // the range's last vertex: never past it (another thread's)
      }
    }
  }
}

void evaluate_v3(const BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end, Vec3f* positions) {
  if (begin % kLanes != 0) fail_plain("ddm::evaluate_v3: range start {} is not a multiple of {}", begin, kLanes);
  switch (bind.width) {
    case 1: return evaluate_v3_width<1>(bind, skinning, begin, end, positions);
    case 2: return evaluate_v3_width<2>(bind, skinning, begin, end, positions);
    case 3: return evaluate_v3_width<3>(bind, skinning, begin, end, positions);
    case 4: return evaluate_v3_width<4>(bind, skinning, begin, end, positions);
    default: return evaluate_v3_width<0>(bind, skinning, begin, end, positions);
  }
}

void nearest_rotations(const Mat3f* m, Mat3f* r, std::size_t count) {
  alignas(32) float entries[9][kLanes];
  for (std::size_t first = 0; first < count; first += kLanes) {
    const std::size_t lanes = std::min(kLanes, count - first);
    for (std::size_t l = 0; l < kLanes; ++l) {
      for (int k = 0; k < 9; ++k) entries[k][l] = l < lanes ? m[first + l](k / 3, k % 3) : float(k % 4 == 0);
    }
    Mat8 x;
    for (int k = 0; k < 9; ++k) x.m[k] = f32x8::load_aligned(entries[k]);
    const int failed = polar_newton(x);
    for (int k = 0; k < 9; ++k) x.m[k].store_aligned(entries[k]);
    for (std::size_t l = 0; l < lanes; ++l) {
      if (failed & (1 << l)) {
        r[first + l] = nearest_rotation(m[first + l]);
        continue;
      }
      for (int k = 0; k < 9; ++k) r[first + l](k / 3, k % 3) = entries[k][l];
    }
  }
}

}  // namespace

extern const Table table = {evaluate, evaluate_v3, nearest_rotations};

}  // namespace wobble::ddm::WOBBLE_SIMD_ISA
