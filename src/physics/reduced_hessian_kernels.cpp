// Thin products with a wide matrix on the SIMD layer (reduced_hessian_kernels.hpp), compiled once
// per instruction set.
#include "physics/reduced_hessian_kernels.hpp"

#include "simd/simd.hpp"

namespace wobble::physics::hessian_kernels::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

// Each column of A against the three columns of Z: three running sums of eight lanes.
void transposed_product(const float* A, std::size_t q, std::size_t n, const float* Z, float* Y) {
  const float* z0 = Z;
  const float* z1 = Z + q;
  const float* z2 = Z + 2 * q;
  for (std::size_t r = 0; r < n; ++r) {
    const float* a = A + r * q;
    f32x8 s0 = f32x8::zero(), s1 = f32x8::zero(), s2 = f32x8::zero();
    std::size_t i = 0;
    for (; i + 8 <= q; i += 8) {
      const f32x8 x = f32x8::load(a + i);
      s0 = fma(x, f32x8::load(z0 + i), s0);
      s1 = fma(x, f32x8::load(z1 + i), s1);
      s2 = fma(x, f32x8::load(z2 + i), s2);
    }
    float y0 = sum(s0), y1 = sum(s1), y2 = sum(s2);
    for (; i < q; ++i) {
      y0 += a[i] * z0[i];
      y1 += a[i] * z1[i];
      y2 += a[i] * z2[i];
    }
    Y[3 * r] = y0, Y[3 * r + 1] = y1, Y[3 * r + 2] = y2;
  }
}

// Rows [i, i + 8 kBlocks) of out, kept in registers over all columns of A.
template <int kBlocks>
void add_rows(const float* A, std::size_t q, std::size_t n, const float* W, float* out, std::size_t i) {
  f32x8 acc[3][kBlocks];
  for (int d = 0; d < 3; ++d)
    for (int b = 0; b < kBlocks; ++b) acc[d][b] = f32x8::load(out + d * q + i + 8 * b);
  for (std::size_t r = 0; r < n; ++r) {
    const float* a = A + r * q + i;
    const f32x8 w0 = f32x8::splat(W[3 * r]), w1 = f32x8::splat(W[3 * r + 1]), w2 = f32x8::splat(W[3 * r + 2]);
    for (int b = 0; b < kBlocks; ++b) {
      const f32x8 x = f32x8::load(a + 8 * b);
      acc[0][b] = fma(x, w0, acc[0][b]);
      acc[1][b] = fma(x, w1, acc[1][b]);
      acc[2][b] = fma(x, w2, acc[2][b]);
    }
  }
  for (int d = 0; d < 3; ++d)
    for (int b = 0; b < kBlocks; ++b) acc[d][b].store(out + d * q + i + 8 * b);
}

void add_product(const float* A, std::size_t q, std::size_t n, const float* W, float* out) {
  std::size_t i = 0;
  for (; i + 32 <= q; i += 32) add_rows<4>(A, q, n, W, out, i);
  for (; i + 8 <= q; i += 8) add_rows<1>(A, q, n, W, out, i);
  for (; i < q; ++i)  // q = 4 (mod 8): the last four rows
    for (std::size_t r = 0; r < n; ++r)
      for (int d = 0; d < 3; ++d) out[d * q + i] += A[r * q + i] * W[3 * r + d];
}

}  // namespace

extern const Table table = {transposed_product, add_product};

}  // namespace wobble::physics::hessian_kernels::WOBBLE_SIMD_ISA
