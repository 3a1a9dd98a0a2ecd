#include "deform/direct_delta_mush_kernels.hpp"

#include <algorithm>
#include <cmath>

#include <immintrin.h>

#include <wobble/error.hpp>

namespace wobble::ddm {

namespace {

constexpr std::size_t kLanes = 8;
constexpr int kOmega = 10;  // A xx xy xz yy yz zz, b x y z, c

// Eight float4 rows (lane l = rows + l * stride) to their first three components as registers.
struct Soa3 {
  __m256 x, y, z;
};

__attribute__((target("avx2,fma"))) inline __m256 load_pair(const float* low, const float* high) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(low)), _mm_loadu_ps(high), 1);
}

// Eight float4 rows (lane l = rows + l * stride) to four registers (x, y, z, w).
__attribute__((target("avx2,fma"))) inline void load_transposed4(const float* rows, std::size_t stride, __m256* out) {
  const __m256 t0 = load_pair(rows, rows + 4 * stride), t1 = load_pair(rows + stride, rows + 5 * stride);
  const __m256 t2 = load_pair(rows + 2 * stride, rows + 6 * stride), t3 = load_pair(rows + 3 * stride, rows + 7 * stride);
  const __m256 u0 = _mm256_unpacklo_ps(t0, t1), u1 = _mm256_unpackhi_ps(t0, t1);
  const __m256 u2 = _mm256_unpacklo_ps(t2, t3), u3 = _mm256_unpackhi_ps(t2, t3);
  out[0] = _mm256_shuffle_ps(u0, u2, 0x44), out[1] = _mm256_shuffle_ps(u0, u2, 0xEE);
  out[2] = _mm256_shuffle_ps(u1, u3, 0x44), out[3] = _mm256_shuffle_ps(u1, u3, 0xEE);
}

// The same, x, y, z only (the unused w shuffle is dropped by the compiler).
__attribute__((target("avx2,fma"))) inline Soa3 load_transposed(const float* rows, std::size_t stride) {
  __m256 columns[4];
  load_transposed4(rows, stride, columns);
  return {columns[0], columns[1], columns[2]};
}

__attribute__((target("avx2,fma"))) inline void cross(__m256 a0, __m256 a1, __m256 a2, __m256 b0, __m256 b1,
                                                       __m256 b2, __m256* out) {
  out[0] = _mm256_fmsub_ps(a1, b2, _mm256_mul_ps(a2, b1));
  out[1] = _mm256_fmsub_ps(a2, b0, _mm256_mul_ps(a0, b2));
  out[2] = _mm256_fmsub_ps(a0, b1, _mm256_mul_ps(a1, b0));
}

// q + M (Omega[a], Omega[b], Omega[c], Omega[d])^T: one column of M Omega, Omega's entries picked
// from its 10 stored numbers.
__attribute__((target("avx2,fma"))) inline __m128 accumulate_column(__m128 q, __m128 m0, __m128 m1, __m128 m2,
                                                                   __m128 m3, const float* omega, int a, int b,
                                                                   int c, int d) {
  q = _mm_fmadd_ps(m3, _mm_broadcast_ss(omega + d), q);
  q = _mm_fmadd_ps(m2, _mm_broadcast_ss(omega + c), q);
  q = _mm_fmadd_ps(m1, _mm_broadcast_ss(omega + b), q);
  return _mm_fmadd_ps(m0, _mm_broadcast_ss(omega + a), q);
}

// A 3x3 matrix per lane, row-major: m[3 r + c].
struct Mat8 {
  __m256 m[9];
};

// In place: X -> the orthogonal polar factor, by the scaled Newton iteration
// X <- (g X + X^-T / g) / 2, g = (|X^-1| / |X|)^(1/2) (Frobenius), as nearest_rotation() does.
// Returns the lanes (bit mask) that need another method: zero or non-finite matrices and those
// whose determinant is not safely positive (singular or reflecting); those lanes hold identity.
__attribute__((target("avx2,fma"))) int polar_newton(Mat8& x) {
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  const __m256 identity[9] = {one, zero, zero, zero, one, zero, zero, zero, one};
  __m256 norm2 = _mm256_mul_ps(x.m[0], x.m[0]);
  for (int k = 1; k < 9; ++k) norm2 = _mm256_fmadd_ps(x.m[k], x.m[k], norm2);
  // Usable: 0 < norm2 < inf (NaN compares false).
  __m256 good = _mm256_and_ps(_mm256_cmp_ps(norm2, zero, _CMP_GT_OQ),
                              _mm256_cmp_ps(norm2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
  // Any scale near |X| / sqrt(3) will do (the polar factor does not depend on it).
  const __m256 scale = _mm256_rsqrt_ps(_mm256_mul_ps(norm2, _mm256_set1_ps(1.0f / 3.0f)));
  for (int k = 0; k < 9; ++k) x.m[k] = _mm256_blendv_ps(identity[k], _mm256_mul_ps(x.m[k], scale), good);
  __m256 scaling = _mm256_castsi256_ps(_mm256_set1_epi32(-1));  // lanes still using the scaled iteration
  for (int iteration = 0; iteration < 30; ++iteration) {
    const __m256* a = x.m;
    // Cofactor matrix (columns: col1 x col2, col2 x col0, col0 x col1); X^-T = cof / det.
    __m256 c0[3], c1[3], c2[3];  // cofactor columns
    cross(a[1], a[4], a[7], a[2], a[5], a[8], c0);
    cross(a[2], a[5], a[8], a[0], a[3], a[6], c1);
    cross(a[0], a[3], a[6], a[1], a[4], a[7], c2);
    const __m256 det = _mm256_fmadd_ps(a[0], c0[0], _mm256_fmadd_ps(a[3], c0[1], _mm256_mul_ps(a[6], c0[2])));
    good = _mm256_and_ps(good, _mm256_cmp_ps(det, _mm256_set1_ps(1e-6f), _CMP_GT_OQ));
    __m256 x2 = _mm256_mul_ps(a[0], a[0]), c2n = _mm256_mul_ps(c0[0], c0[0]);
    for (int k = 1; k < 9; ++k) x2 = _mm256_fmadd_ps(a[k], a[k], x2);
    for (int r = 1; r < 3; ++r) c2n = _mm256_fmadd_ps(c0[r], c0[r], c2n);
    for (int r = 0; r < 3; ++r) c2n = _mm256_fmadd_ps(c1[r], c1[r], _mm256_fmadd_ps(c2[r], c2[r], c2n));
    // 1 / det to float precision (estimate + one Newton step): the step's fixed point depends on it.
    // Bad lanes use det = 1 (they are reset below).
    const __m256 safe_det = _mm256_blendv_ps(one, det, good);
    __m256 inv_det = _mm256_rcp_ps(safe_det);
    inv_det = _mm256_mul_ps(inv_det, _mm256_fnmadd_ps(safe_det, inv_det, _mm256_set1_ps(2.0f)));
    // The scale g = (|X^-1| / |X|)^(1/2), g^4 = |cof|^2 / (det^2 |X|^2), only speeds convergence up:
    // estimated (rsqrt twice), and switched off (g = 1) near convergence, where its error would
    // otherwise move the fixed point.
    const __m256 g4 = _mm256_mul_ps(c2n, _mm256_rcp_ps(_mm256_mul_ps(_mm256_mul_ps(safe_det, safe_det), x2)));
    const __m256 scaled = _mm256_and_ps(good, scaling);
    const __m256 g_estimate = _mm256_rsqrt_ps(_mm256_rsqrt_ps(g4));  // (g^4)^(1/4)
    const __m256 g = _mm256_blendv_ps(one, g_estimate, scaled);
    const __m256 inv_g = _mm256_blendv_ps(one, _mm256_rcp_ps(g_estimate), scaled);
    const __m256 cx = _mm256_mul_ps(_mm256_set1_ps(0.5f), g);
    const __m256 cc = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), inv_det), inv_g);
    const __m256 cof[9] = {c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2]};
    __m256 change = zero;
    for (int k = 0; k < 9; ++k) {
      const __m256 next = _mm256_blendv_ps(identity[k], _mm256_fmadd_ps(cx, a[k], _mm256_mul_ps(cc, cof[k])), good);
      const __m256 d = _mm256_sub_ps(next, a[k]);
      change = _mm256_fmadd_ps(d, d, change);
      x.m[k] = next;
    }
    // Quadratic convergence: once an unscaled step changes X by ~1e-5, X is within float
    // precision (a scaled step with its estimated g does not tell: it always ends unscaled).
    const __m256 small = _mm256_andnot_ps(scaled, _mm256_cmp_ps(change, _mm256_set1_ps(1e-10f), _CMP_LT_OQ));
    if (_mm256_movemask_ps(small) == 0xFF) break;
    scaling = _mm256_and_ps(scaling, _mm256_cmp_ps(change, _mm256_set1_ps(1e-4f), _CMP_GE_OQ));
  }
  return ~_mm256_movemask_ps(good) & 0xFF;
}

}  // namespace

bool avx2_available() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

__attribute__((target("avx2,fma"))) void evaluate_avx2(const BindView& bind, const Mat4f* skinning, std::size_t begin,
                                                       std::size_t end, Vec3f* positions, Mat3f* rotations) {
  const std::size_t width = bind.width;
  const float* palette = skinning->data();
  alignas(32) float blend[kLanes][16];      // per lane: the blended 4x4 (v0: Q), column-major
  alignas(32) float centre[3][kLanes], local[3][kLanes];
  alignas(32) float fit[9][kLanes], result[3][kLanes];
  for (std::size_t first = begin; first < end; first += kLanes) {
    const std::size_t lanes = std::min(kLanes, end - first);
    for (std::size_t l = 0; l < kLanes; ++l) {
      float* q = blend[l];
      if (l >= lanes) {  // past the range: an identity that converges at once, never written
        for (int k = 0; k < 16; ++k) q[k] = (k % 5 == 0) ? 1.0f : 0.0f;
        for (int r = 0; r < 3; ++r) centre[r][l] = 0.0f, local[r][l] = 0.0f;
        continue;
      }
      const std::size_t v = first + l;
      const std::uint16_t* joints = bind.joints + v * width;
      if (bind.variant == DdmVariant::V0) {
        // Q' = sum_s M_s T Omega'_s, one column (4 floats) at a time; Omega' symmetric, 10 numbers,
        // centred on p (T: translation by p, so M_s T has the last column M_s (p, 1)).
        __m128 q0 = _mm_setzero_ps(), q1 = q0, q2 = q0, q3 = q0;
        const float* w = bind.omega + v * width * kOmega;
        const __m128 px = _mm_broadcast_ss(bind.centre + 3 * v), py = _mm_broadcast_ss(bind.centre + 3 * v + 1);
        const __m128 pz = _mm_broadcast_ss(bind.centre + 3 * v + 2);
        for (std::size_t s = 0; s < width; ++s, w += kOmega) {
          const float* m = palette + 16 * std::size_t(joints[s]);
          const __m128 m0 = _mm_loadu_ps(m), m1 = _mm_loadu_ps(m + 4), m2 = _mm_loadu_ps(m + 8);
          const __m128 m3 = _mm_fmadd_ps(m0, px, _mm_fmadd_ps(m1, py, _mm_fmadd_ps(m2, pz, _mm_loadu_ps(m + 12))));
          q0 = accumulate_column(q0, m0, m1, m2, m3, w, 0, 1, 2, 6);
          q1 = accumulate_column(q1, m0, m1, m2, m3, w, 1, 3, 4, 7);
          q2 = accumulate_column(q2, m0, m1, m2, m3, w, 2, 4, 5, 8);
          q3 = accumulate_column(q3, m0, m1, m2, m3, w, 6, 7, 8, 9);
        }
        _mm_store_ps(q, q0), _mm_store_ps(q + 4, q1), _mm_store_ps(q + 8, q2), _mm_store_ps(q + 12, q3);
      } else {
        // The psi-weighted blend of the matrices, as linear blend skinning.
        __m256 c01 = _mm256_setzero_ps(), c23 = _mm256_setzero_ps();
        const float* psi = bind.psi + v * width;
        for (std::size_t s = 0; s < width; ++s) {
          const __m256 w = _mm256_broadcast_ss(psi + s);
          const float* m = palette + 16 * std::size_t(joints[s]);
          c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), c01);
          c23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m + 8), c23);
        }
        _mm256_store_ps(q, c01), _mm256_store_ps(q + 8, c23);
      }
      for (int r = 0; r < 3; ++r) {
        centre[r][l] = bind.centre[3 * v + r];
        local[r][l] = bind.rest[v][r] - centre[r][l];
      }
    }
    const Soa3 col0 = load_transposed(blend[0], 16), col1 = load_transposed(blend[0] + 4, 16);
    const Soa3 col2 = load_transposed(blend[0] + 8, 16), col3 = load_transposed(blend[0] + 12, 16);
    const __m256 px = _mm256_load_ps(centre[0]), py = _mm256_load_ps(centre[1]), pz = _mm256_load_ps(centre[2]);
    const __m256 l3[9] = {col0.x, col1.x, col2.x, col0.y, col1.y, col2.y, col0.z, col1.z, col2.z};
    Mat8 x;
    // The translation part: v0 q = Q(:, 3); v1, v2: L p + t.
    __m256 tx = col3.x, ty = col3.y, tz = col3.z;
    if (bind.variant == DdmVariant::V0) {
      for (int k = 0; k < 9; ++k) x.m[k] = l3[k];  // centred Omega: M = Q'(0:3, 0:3)
    } else {
      tx = _mm256_fmadd_ps(l3[0], px, _mm256_fmadd_ps(l3[1], py, _mm256_fmadd_ps(l3[2], pz, tx)));
      ty = _mm256_fmadd_ps(l3[3], px, _mm256_fmadd_ps(l3[4], py, _mm256_fmadd_ps(l3[5], pz, ty)));
      tz = _mm256_fmadd_ps(l3[6], px, _mm256_fmadd_ps(l3[7], py, _mm256_fmadd_ps(l3[8], pz, tz)));
      if (bind.variant == DdmVariant::V1) {
        // M = L C, C the smoothed covariance (symmetric, 6 numbers per vertex).
        alignas(32) float cov[6][kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) {
          for (int k = 0; k < 6; ++k) cov[k][l] = l < lanes ? bind.covariance[6 * (first + l) + k] : (k == 0 || k == 3 || k == 5);
        }
        const __m256 c00 = _mm256_load_ps(cov[0]), c01 = _mm256_load_ps(cov[1]), c02 = _mm256_load_ps(cov[2]);
        const __m256 c11 = _mm256_load_ps(cov[3]), c12 = _mm256_load_ps(cov[4]), c22 = _mm256_load_ps(cov[5]);
        const __m256 c[9] = {c00, c01, c02, c01, c11, c12, c02, c12, c22};
        for (int r = 0; r < 3; ++r) {
          for (int k = 0; k < 3; ++k) {
            x.m[3 * r + k] = _mm256_fmadd_ps(l3[3 * r], c[k], _mm256_fmadd_ps(l3[3 * r + 1], c[3 + k],
                                                                            _mm256_mul_ps(l3[3 * r + 2], c[6 + k])));
          }
        }
      } else {
        for (int k = 0; k < 9; ++k) x.m[k] = l3[k];
      }
    }
    for (int k = 0; k < 9; ++k) _mm256_store_ps(fit[k], x.m[k]);  // M, for lanes that need the fallback
    const int failed = polar_newton(x);
    const __m256 ux = _mm256_load_ps(local[0]), uy = _mm256_load_ps(local[1]), uz = _mm256_load_ps(local[2]);
    _mm256_store_ps(result[0], _mm256_fmadd_ps(x.m[0], ux, _mm256_fmadd_ps(x.m[1], uy, _mm256_fmadd_ps(x.m[2], uz, tx))));
    _mm256_store_ps(result[1], _mm256_fmadd_ps(x.m[3], ux, _mm256_fmadd_ps(x.m[4], uy, _mm256_fmadd_ps(x.m[5], uz, ty))));
    _mm256_store_ps(result[2], _mm256_fmadd_ps(x.m[6], ux, _mm256_fmadd_ps(x.m[7], uy, _mm256_fmadd_ps(x.m[8], uz, tz))));
    alignas(32) float rotation[9][kLanes];
    for (int k = 0; k < 9; ++k) _mm256_store_ps(rotation[k], x.m[k]);
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
        alignas(32) float t[3][kLanes];
        _mm256_store_ps(t[0], tx), _mm256_store_ps(t[1], ty), _mm256_store_ps(t[2], tz);
        out = r * Vec3f(local[0][l], local[1][l], local[2][l]) + Vec3f(t[0][l], t[1][l], t[2][l]);
      }
      positions[v] = out;
      if (rotations) rotations[v] = r;
    }
  }
}

namespace {

// Eight vertices at a time: per lane, the psi blends (matrices applied to p, quaternions) as
// linear blend skinning does them; then the turn of u - p for all eight lanes at once (structure
// of arrays). kWidth: influences per vertex (0: bind.width at run time), so that loops unroll.
template <std::size_t kWidth>
__attribute__((target("avx2,fma"))) void evaluate_v3_width(const BindView& bind, const Mat4f* skinning,
                                                           std::size_t begin, std::size_t end, Vec3f* positions) {
  const std::size_t width = kWidth ? kWidth : bind.width;
  const float* palette = skinning->data();
  const float* quaternions = bind.joint_quaternions;
  const __m128 sign_bit = _mm_set1_ps(-0.0f);
  alignas(32) float moved[kLanes][4], turn[kLanes][4];
  float* out_p = positions->data();
  for (std::size_t first = begin; first < end; first += kLanes) {
    const std::size_t lanes = std::min(kLanes, end - first);
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t v = first + l;
      if (l >= lanes || bind.linear_fallback[v]) {  // written by the caller (or past the range)
        _mm_store_ps(moved[l], _mm_setzero_ps());
        _mm_store_ps(turn[l], _mm_setr_ps(0, 0, 0, 1));
        continue;
      }
      const std::uint16_t* joints = bind.joints + v * width;
      const float* psi = bind.psi + v * width;
      // The strongest joint first: its quaternion sets the hemisphere.
      const __m256 w0 = _mm256_broadcast_ss(psi);
      const float* m0 = palette + 16 * std::size_t(joints[0]);
      __m256 c01 = _mm256_mul_ps(w0, _mm256_loadu_ps(m0)), c23 = _mm256_mul_ps(w0, _mm256_loadu_ps(m0 + 8));
      const __m128 strongest = _mm_loadu_ps(quaternions + 4 * std::size_t(joints[0]));
      __m128 q = _mm_mul_ps(_mm256_castps256_ps128(w0), strongest);
      for (std::size_t s = 1; s < width; ++s) {
        const __m256 w = _mm256_broadcast_ss(psi + s);
        const float* m = palette + 16 * std::size_t(joints[s]);
        c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), c01);
        c23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m + 8), c23);
        // Flip the weight's sign where the quaternion is in the other hemisphere.
        const __m128 joint_q = _mm_loadu_ps(quaternions + 4 * std::size_t(joints[s]));
        const __m128 sign = _mm_and_ps(_mm_dp_ps(joint_q, strongest, 0xFF), sign_bit);
        q = _mm_fmadd_ps(_mm_xor_ps(_mm256_castps256_ps128(w), sign), joint_q, q);
      }
      const __m128 c0 = _mm256_castps256_ps128(c01), c1 = _mm256_extractf128_ps(c01, 1);
      const __m128 c2 = _mm256_castps256_ps128(c23), c3 = _mm256_extractf128_ps(c23, 1);
      const float* p = bind.centre + 3 * v;
      __m128 t = _mm_fmadd_ps(c0, _mm_broadcast_ss(p), c3);
      t = _mm_fmadd_ps(c1, _mm_broadcast_ss(p + 1), t);
      _mm_store_ps(moved[l], _mm_fmadd_ps(c2, _mm_broadcast_ss(p + 2), t));
      _mm_store_ps(turn[l], q);
    }
    // u - p per lane: bind.lever is [group][3][8] (whole groups, zero padded; first starts a group).
    const float* block = bind.lever + 3 * first;
    const __m256 dx = _mm256_loadu_ps(block), dy = _mm256_loadu_ps(block + kLanes), dz = _mm256_loadu_ps(block + 2 * kLanes);
    __m256 q[4];
    load_transposed4(moved[0], 4, q);
    const __m256 tx = q[0], ty = q[1], tz = q[2];
    load_transposed4(turn[0], 4, q);
    const __m256 qx = q[0], qy = q[1], qz = q[2], qw = q[3];
    // d turned by q / |q|: c = (2 / |q|^2) q x d, d' = d + w c + q x c.
    const __m256 norm2 = _mm256_fmadd_ps(qx, qx, _mm256_fmadd_ps(qy, qy, _mm256_fmadd_ps(qz, qz, _mm256_mul_ps(qw, qw))));
    const __m256 scale = _mm256_div_ps(_mm256_set1_ps(2.0f), norm2);
    __m256 c[3];
    cross(qx, qy, qz, dx, dy, dz, c);
    for (int k = 0; k < 3; ++k) c[k] = _mm256_mul_ps(scale, c[k]);
    __m256 e[3];
    cross(qx, qy, qz, c[0], c[1], c[2], e);
    const __m256 x = _mm256_add_ps(tx, _mm256_add_ps(_mm256_fmadd_ps(qw, c[0], dx), e[0]));
    const __m256 y = _mm256_add_ps(ty, _mm256_add_ps(_mm256_fmadd_ps(qw, c[1], dy), e[1]));
    const __m256 z = _mm256_add_ps(tz, _mm256_add_ps(_mm256_fmadd_ps(qw, c[2], dz), e[2]));
    // Back to rows (x, y, z, 0): a_k holds rows k and k + 4.
    const __m256 zero = _mm256_setzero_ps();
    const __m256 u0 = _mm256_unpacklo_ps(x, y), u1 = _mm256_unpackhi_ps(x, y);
    const __m256 u2 = _mm256_unpacklo_ps(z, zero), u3 = _mm256_unpackhi_ps(z, zero);
    const __m256 a[4] = {_mm256_shuffle_ps(u0, u2, 0x44), _mm256_shuffle_ps(u0, u2, 0xEE), _mm256_shuffle_ps(u1, u3, 0x44),
                         _mm256_shuffle_ps(u1, u3, 0xEE)};
    for (std::size_t l = 0; l < lanes; ++l) {
      const __m128 row = l < 4 ? _mm256_castps256_ps128(a[l]) : _mm256_extractf128_ps(a[l - 4], 1);
      const std::size_t v = first + l;
      if (v + 1 < end) {
        // A 4-wide store writes one float into the next vertex, which its own store rewrites
        // (a fallback vertex is written by the caller afterwards).
        _mm_storeu_ps(out_p + 3 * v, row);
      } else {
        alignas(16) float result[4];  // the range's last vertex: never past it (another thread's)
        _mm_store_ps(result, row);
        out_p[3 * v] = result[0], out_p[3 * v + 1] = result[1], out_p[3 * v + 2] = result[2];
      }
    }
  }
}

}  // namespace

void evaluate_v3_avx2(const BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end, Vec3f* positions) {
  if (begin % kLanes != 0) fail_plain("ddm::evaluate_v3_avx2: range start {} is not a multiple of {}", begin, kLanes);
  switch (bind.width) {
    case 1: return evaluate_v3_width<1>(bind, skinning, begin, end, positions);
    case 2: return evaluate_v3_width<2>(bind, skinning, begin, end, positions);
    case 3: return evaluate_v3_width<3>(bind, skinning, begin, end, positions);
    case 4: return evaluate_v3_width<4>(bind, skinning, begin, end, positions);
    default: return evaluate_v3_width<0>(bind, skinning, begin, end, positions);
  }
}

__attribute__((target("avx2,fma"))) void nearest_rotations_avx2(const Mat3f* m, Mat3f* r, std::size_t count) {
  for (std::size_t first = 0; first < count; first += kLanes) {
    const std::size_t lanes = std::min(kLanes, count - first);
    alignas(32) float entries[9][kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      for (int k = 0; k < 9; ++k) entries[k][l] = l < lanes ? m[first + l](k / 3, k % 3) : float(k % 4 == 0);
    }
    Mat8 x;
    for (int k = 0; k < 9; ++k) x.m[k] = _mm256_load_ps(entries[k]);
    const int failed = polar_newton(x);
    for (int k = 0; k < 9; ++k) _mm256_store_ps(entries[k], x.m[k]);
    for (std::size_t l = 0; l < lanes; ++l) {
      if (failed & (1 << l)) {
        r[first + l] = nearest_rotation(m[first + l]);
        continue;
      }
      for (int k = 0; k < 9; ++k) r[first + l](k / 3, k % 3) = entries[k][l];
    }
  }
}

}  // namespace wobble::ddm
