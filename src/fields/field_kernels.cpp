// The evaluator's kernels on the SIMD layer (field_kernels.hpp), compiled once per instruction
// set. The product keeps blocks of 4 rows by 16 columns in registers (8 accumulators) while the
// inner dimension streams, each row of Wt loaded once per block and each X value broadcast. The
// activations evaluate e^x by x = n ln 2 + r (|r| <= ln 2 / 2), e^r by its Taylor series to r^6
// (relative error below 2e-7) and 2^n in the exponent bits; erf by Abramowitz and Stegun's
// 7.1.26 (absolute error below 1.5e-7), which shares GELU's e^(-v^2 / 2). Softmax rows: the
// largest, e^(s - largest), the sum, in vectors of 8 and the rest one by one.
#include "fields/field_kernels.hpp"

#include "simd/simd.hpp"

namespace wobble::fields::field_kernels::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

// Rows [r0, r0 + R) by columns [c0, c0 + 8 B) of Y.
template <int R, int B>
WOBBLE_SIMD_INLINE void block(const Product& p, std::size_t r0, std::size_t c0) {
  f32x8 acc[R][B];
  for (int r = 0; r < R; ++r)
    for (int b = 0; b < B; ++b)
      acc[r][b] = p.bias && r0 + static_cast<std::size_t>(r) < p.biased_rows
                      ? f32x8::load(p.bias + c0 + 8 * static_cast<std::size_t>(b))
                      : f32x8::zero();
  const float* x = p.X + r0 * p.ldx;
  const float* w = p.Wt + c0;
  for (std::size_t k = 0; k < p.in; ++k, w += p.ldw) {
    f32x8 xs[R];
    for (int r = 0; r < R; ++r) xs[r] = f32x8::splat(x[static_cast<std::size_t>(r) * p.ldx + k]);
    for (int b = 0; b < B; ++b) {
      const f32x8 wv = f32x8::load(w + 8 * static_cast<std::size_t>(b));
      for (int r = 0; r < R; ++r) acc[r][b] = fma(xs[r], wv, acc[r][b]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int b = 0; b < B; ++b)
      acc[r][b].store(p.Y + (r0 + static_cast<std::size_t>(r)) * p.ldy + c0 + 8 * static_cast<std::size_t>(b));
}

// Columns [c0, c0 + 8 B) of every row: four rows at a time, then one.
template <int B>
void column_block(const Product& p, std::size_t c0) {
  std::size_t r = 0;
  for (; r + 4 <= p.rows; r += 4) block<4, B>(p, r, c0);
  for (; r < p.rows; ++r) block<1, B>(p, r, c0);
}

// The last out % 8 columns, one by one.
void column_tail(const Product& p, std::size_t c0) {
  for (std::size_t r = 0; r < p.rows; ++r)
    for (std::size_t c = c0; c < p.out; ++c) {
      float sum = p.bias && r < p.biased_rows ? p.bias[c] : 0.0f;
      for (std::size_t k = 0; k < p.in; ++k) sum += p.X[r * p.ldx + k] * p.Wt[k * p.ldw + c];
      p.Y[r * p.ldy + c] = sum;
    }
}

void product(const Product& p) {
  std::size_t c = 0;
  for (; c + 16 <= p.out; c += 16) column_block<2>(p, c);
  for (; c + 8 <= p.out; c += 8) column_block<1>(p, c);
  if (c < p.out) column_tail(p, c);
}

// e^x, x clamped to [-87, 88] (e^-87 stands for anything smaller: a slope or weight of 1e-38);
// NaN stays NaN (max and min return their second operand then).
WOBBLE_SIMD_INLINE f32x8 exp(f32x8 x) {
  x = min(f32x8::splat(88.0f), max(f32x8::splat(-87.0f), x));
  const f32x8 n = {simde_mm256_round_ps((x * f32x8::splat(1.44269504f)).v, SIMDE_MM_FROUND_TO_NEAREST_INT)};
  // ln 2 in two parts: n ln2_high is exact for |n| < 2^10.
  const f32x8 r = fnma(n, f32x8::splat(-2.12194440e-4f), fnma(n, f32x8::splat(0.693359375f), x));
  f32x8 e = f32x8::splat(1.0f / 720);
  for (const float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) e = fma(e, r, f32x8::splat(c));
  const simde__m256i power =
      simde_mm256_slli_epi32(simde_mm256_add_epi32(simde_mm256_cvtps_epi32(n.v), simde_mm256_set1_epi32(127)), 23);
  return e * f32x8{simde_mm256_castsi256_ps(power)};
}

WOBBLE_SIMD_INLINE void elu8(float* v, float* slope) {
  const f32x8 x = f32x8::load(v), zero = f32x8::zero();
  const f32x8 s = exp(min(zero, x));  // e^v below 0, 1 above
  s.store(slope);
  (max(zero, x) + s - f32x8::splat(1.0f)).store(v);
}

WOBBLE_SIMD_INLINE void gelu8(float* v, float* slope) {
  const f32x8 x = f32x8::load(v), zero = f32x8::zero();
  const f32x8 a = max(x, -x) * f32x8::splat(0.707106781f);  // |v| / sqrt 2
  const f32x8 t = f32x8::splat(1.0f) / fma(a, f32x8::splat(0.3275911f), f32x8::splat(1.0f));
  f32x8 q = f32x8::splat(1.061405429f);
  for (const float c : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f}) q = fma(q, t, f32x8::splat(c));
  const f32x8 gauss = exp(-(a * a));                      // e^(-v^2 / 2)
  const f32x8 tail = f32x8::splat(0.5f) * q * t * gauss;  // 1 - Phi(|v|) = (1 - erf(|v| / sqrt 2)) / 2
  const f32x8 phi = select(x < zero, tail, f32x8::splat(1.0f) - tail);
  fma(x * gauss, f32x8::splat(0.398942280f), phi).store(slope);  // Phi + v e^(-v^2 / 2) / sqrt(2 pi)
  (x * phi).store(v);
}

// Eight values at a time; the last n % 8 through a padded copy.
template <void (*kEight)(float*, float*)>
void activation(float* v, float* slope, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) kEight(v + i, slope + i);
  if (i == n) return;
  float v_tail[8] = {}, slope_tail[8];
  for (std::size_t j = i; j < n; ++j) v_tail[j - i] = v[j];
  kEight(v_tail, slope_tail);
  for (std::size_t j = i; j < n; ++j) v[j] = v_tail[j - i], slope[j] = slope_tail[j - i];
}

WOBBLE_SIMD_INLINE float largest(f32x8 x) {
  float lanes[8];
  x.store(lanes);
  float top = lanes[0];
  for (const float l : lanes) top = l > top ? l : top;
  return top;
}

// a . d over `width` values: whole vectors, then the rest.
WOBBLE_SIMD_INLINE float dot(const float* a, const float* d, std::size_t width) {
  f32x8 acc = f32x8::zero();
  std::size_t k = 0;
  for (; k + 8 <= width; k += 8) acc = fma(f32x8::load(a + k), f32x8::load(d + k), acc);
  float total = sum(acc);
  for (; k < width; ++k) total += a[k] * d[k];
  return total;
}

// One row in place: e^(s - max s) / sum.
WOBBLE_SIMD_INLINE void softmax_row(float* a, std::size_t width) {
  std::size_t k = 0;
  f32x8 top8 = f32x8::splat(a[0]);
  for (; k + 8 <= width; k += 8) top8 = max(top8, f32x8::load(a + k));
  float top = largest(top8);
  for (; k < width; ++k) top = a[k] > top ? a[k] : top;
  f32x8 total8 = f32x8::zero();
  for (k = 0; k + 8 <= width; k += 8) {
    const f32x8 e = exp(f32x8::load(a + k) - f32x8::splat(top));
    e.store(a + k);
    total8 = total8 + e;
  }
  float total = sum(total8);
  for (; k < width; ++k) total += a[k] = std::exp(a[k] - top);
  const float inverse = 1.0f / total;
  for (k = 0; k + 8 <= width; k += 8) (f32x8::load(a + k) * f32x8::splat(inverse)).store(a + k);
  for (; k < width; ++k) a[k] *= inverse;
}

void softmax(float* s, std::size_t ld, std::size_t n, std::size_t width, int parts) {
  for (std::size_t i = 0; i < n; ++i) {
    float* a = s + i * ld;
    softmax_row(a, width);
    for (int c = 1; c < parts; ++c) {
      float* d = s + (static_cast<std::size_t>(c) * n + i) * ld;
      const float projection = dot(a, d, width);
      std::size_t k = 0;
      for (; k + 8 <= width; k += 8)
        (f32x8::load(a + k) * (f32x8::load(d + k) - f32x8::splat(projection))).store(d + k);
      for (; k < width; ++k) d[k] = a[k] * (d[k] - projection);
    }
  }
}

}  // namespace

extern const Table table = {product, activation<elu8>, activation<gelu8>, softmax};

}  // namespace wobble::fields::field_kernels::WOBBLE_SIMD_ISA
