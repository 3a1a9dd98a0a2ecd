// WebAssembly stand-in for the AVX2/FMA intrinsics the native kernels use (src/deform/lbs.cpp,
// dynamic_skinning.cpp). Emscripten 3.1.6 maps SSE..SSE4.2 onto wasm SIMD but has no 256-bit
// types. On the web __builtin_cpu_supports is defined to 0 (scripts/build-web.sh), so these
// paths are never taken; they are still correct lane-by-lane scalar code so they compile and,
// if ever called, give the same results.
#pragma once
#include_next <immintrin.h>

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
#undef WOBBLE_LANES8

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
