// WebAssembly stand-in for the AVX2/FMA intrinsics the native kernels use (src/deform/*.cpp).
// Emscripten 3.1.6 maps SSE..SSE4.2 onto wasm SIMD but has no 256-bit types. Here
// __builtin_cpu_supports is 0, so the kernels' AVX2 paths are never taken; the stand-ins are
// still correct lane-by-lane scalar code so that they compile and, if ever called, agree.
#pragma once
#include_next <immintrin.h>

#define __builtin_cpu_supports(feature) 0

#include <cmath>
#include <cstdint>
#include <cstring>

struct alignas(32) __m256 { float f[8]; };
struct alignas(32) __m256i { std::int32_t i[8]; };

#define WOBBLE_LANES8(expr) \
  __m256 r;                 \
  for (int k = 0; k < 8; ++k) r.f[k] = (expr); \
  return r
inline __m256 _mm256_setzero_ps() { WOBBLE_LANES8(0.0f); }
inline __m256 _mm256_set1_ps(float a) { WOBBLE_LANES8(a); }
inline __m256 _mm256_broadcast_ss(const float* a) { WOBBLE_LANES8(*a); }
inline __m256 _mm256_loadu_ps(const float* a) { WOBBLE_LANES8(a[k]); }
inline __m256 _mm256_add_ps(__m256 a, __m256 b) { WOBBLE_LANES8(a.f[k] + b.f[k]); }
inline __m256 _mm256_sub_ps(__m256 a, __m256 b) { WOBBLE_LANES8(a.f[k] - b.f[k]); }
inline __m256 _mm256_mul_ps(__m256 a, __m256 b) { WOBBLE_LANES8(a.f[k] * b.f[k]); }
inline __m256 _mm256_max_ps(__m256 a, __m256 b) { WOBBLE_LANES8(a.f[k] > b.f[k] ? a.f[k] : b.f[k]); }
inline __m256 _mm256_rsqrt_ps(__m256 a) { WOBBLE_LANES8(1.0f / std::sqrt(a.f[k])); }
inline __m256 _mm256_fmadd_ps(__m256 a, __m256 b, __m256 c) { WOBBLE_LANES8(std::fma(a.f[k], b.f[k], c.f[k])); }
inline __m256 _mm256_fmsub_ps(__m256 a, __m256 b, __m256 c) { WOBBLE_LANES8(std::fma(a.f[k], b.f[k], -c.f[k])); }
inline __m256 _mm256_fnmadd_ps(__m256 a, __m256 b, __m256 c) { WOBBLE_LANES8(std::fma(-a.f[k], b.f[k], c.f[k])); }
inline __m256 _mm256_i32gather_ps(const float* base, __m256i index, int scale) {
  WOBBLE_LANES8(*reinterpret_cast<const float*>(reinterpret_cast<const char*>(base) + std::ptrdiff_t(index.i[k]) * scale));
}
inline __m256 _mm256_load_ps(const float* a) { WOBBLE_LANES8(a[k]); }
inline __m256 _mm256_div_ps(__m256 a, __m256 b) { WOBBLE_LANES8(a.f[k] / b.f[k]); }
inline __m256 _mm256_sqrt_ps(__m256 a) { WOBBLE_LANES8(std::sqrt(a.f[k])); }
inline float wobble_bits_to_float(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline std::uint32_t wobble_float_to_bits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
#define _CMP_LT_OQ 0x11
#define _CMP_GT_OQ 0x1e
inline __m256 _mm256_cmp_ps(__m256 a, __m256 b, int predicate) {
  WOBBLE_LANES8(wobble_bits_to_float((predicate == _CMP_LT_OQ ? a.f[k] < b.f[k] : a.f[k] > b.f[k]) ? 0xffffffffu : 0u));
}
inline __m256 _mm256_and_ps(__m256 a, __m256 b) {
  WOBBLE_LANES8(wobble_bits_to_float(wobble_float_to_bits(a.f[k]) & wobble_float_to_bits(b.f[k])));
}
inline __m256 _mm256_blendv_ps(__m256 a, __m256 b, __m256 mask) { WOBBLE_LANES8(std::signbit(mask.f[k]) ? b.f[k] : a.f[k]); }
// Within each 128-bit half: two from a, two from b, chosen by 2-bit fields of imm.
inline __m256 _mm256_shuffle_ps(__m256 a, __m256 b, int imm) {
  WOBBLE_LANES8(((k & 3) < 2 ? a : b).f[(k & 4) + ((imm >> (2 * (k & 3))) & 3)]);
}
inline __m256 _mm256_unpacklo_ps(__m256 a, __m256 b) { WOBBLE_LANES8(((k & 1) ? b : a).f[(k & 4) + ((k & 3) >> 1)]); }
inline __m256 _mm256_unpackhi_ps(__m256 a, __m256 b) { WOBBLE_LANES8(((k & 1) ? b : a).f[(k & 4) + 2 + ((k & 3) >> 1)]); }
inline __m256 _mm256_permute2f128_ps(__m256 a, __m256 b, int imm) {
  __m256 r;
  for (int half = 0; half < 2; ++half) {
    const int control = (imm >> (4 * half)) & 0xf;
    for (int k = 0; k < 4; ++k)
      r.f[4 * half + k] = (control & 8) ? 0.0f : ((control & 2) ? b : a).f[4 * (control & 1) + k];
  }
  return r;
}
#undef WOBBLE_LANES8
inline int _mm256_movemask_ps(__m256 a) {
  int bits = 0;
  for (int k = 0; k < 8; ++k) bits |= std::signbit(a.f[k]) ? 1 << k : 0;
  return bits;
}
inline __m256 _mm256_castps128_ps256(__m128 a) {
  __m256 r{};
  _mm_storeu_ps(r.f, a);
  return r;
}
inline __m256 _mm256_insertf128_ps(__m256 a, __m128 b, int high) {
  _mm_storeu_ps(a.f + (high & 1 ? 4 : 0), b);
  return a;
}
inline __m128 _mm_broadcast_ss(const float* a) { return _mm_set1_ps(*a); }

inline void _mm256_storeu_ps(float* p, __m256 a) { std::memcpy(p, a.f, sizeof a.f); }
inline void _mm256_store_ps(float* p, __m256 a) { std::memcpy(p, a.f, sizeof a.f); }
inline void _mm256_store_si256(__m256i* p, __m256i a) { *p = a; }
inline __m128 _mm256_castps256_ps128(__m256 a) { return _mm_loadu_ps(a.f); }
inline __m128 _mm256_extractf128_ps(__m256 a, int high) { return _mm_loadu_ps(a.f + (high ? 4 : 0)); }
inline __m256i _mm256_cvtepu16_epi32(__m128i a) {
  std::uint16_t lanes[8];
  std::memcpy(lanes, &a, sizeof lanes);
  __m256i r;
  for (int k = 0; k < 8; ++k) r.i[k] = lanes[k];
  return r;
}
inline __m128 _mm_fmadd_ps(__m128 a, __m128 b, __m128 c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
