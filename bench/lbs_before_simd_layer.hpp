#pragma once
// The LBS kernel as it was before the SIMD layer (commit da5a709, src/deform/lbs.cpp: raw AVX2+FMA
// intrinsics, one vertex at a time, templated on the influence count), kept here only as the
// benchmarks' baseline for issue 16's "LBS stays at least as fast as before the SIMD layer"
// (BM_KernelLbsBefore in bench_runtime.cpp, same process and inputs as BM_KernelLbs). x86-64 only.
#include <cstdint>
#include <immintrin.h>

#include <wobble/lbs.hpp>

namespace wobble::bench {

template <std::uint32_t kWidth>
__attribute__((target("avx2,fma"))) inline void lbs_before_simd_layer(const LbsJob& job, std::size_t begin,
                                                                      std::size_t end) {
  const std::uint32_t width = kWidth ? kWidth : job.skin->width;
  const float* palette = job.skinning_matrices.data()->data();
  const std::uint16_t* joints = job.skin->joints.data();
  const float* weights = job.skin->weights.data();
  const float* in_p = job.in_positions.data()->data();
  float* out_p = job.out_positions.data()->data();
  const bool with_normals = !job.in_normals.empty();
  const float* in_n = with_normals ? job.in_normals.data()->data() : nullptr;
  float* out_n = with_normals ? job.out_normals.data()->data() : nullptr;
  const bool normalize = job.normalize_normals;

  for (std::size_t v = begin; v < end; ++v) {
    __m256 c01 = _mm256_setzero_ps();
    __m256 c23 = _mm256_setzero_ps();
    for (std::uint32_t k = 0; k < width; ++k) {
      const __m256 w = _mm256_broadcast_ss(weights + v * width + k);
      const float* m = palette + 16 * joints[v * width + k];
      c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), c01);
      c23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m + 8), c23);
    }
    const __m128 c0 = _mm256_castps256_ps128(c01), c1 = _mm256_extractf128_ps(c01, 1);
    const __m128 c2 = _mm256_castps256_ps128(c23), c3 = _mm256_extractf128_ps(c23, 1);
    const float* p = in_p + 3 * v;
    __m128 r = _mm_fmadd_ps(c0, _mm_set1_ps(p[0]), c3);
    r = _mm_fmadd_ps(c1, _mm_set1_ps(p[1]), r);
    r = _mm_fmadd_ps(c2, _mm_set1_ps(p[2]), r);
    __m128 rn;
    if (with_normals) {
      const float* n = in_n + 3 * v;
      rn = _mm_mul_ps(c0, _mm_set1_ps(n[0]));
      rn = _mm_fmadd_ps(c1, _mm_set1_ps(n[1]), rn);
      rn = _mm_fmadd_ps(c2, _mm_set1_ps(n[2]), rn);
      if (normalize) {
        const __m128 length2 = _mm_dp_ps(rn, rn, 0x7F);  // xyz only
        const __m128 length = _mm_sqrt_ps(length2);
        const __m128 safe = _mm_cmpgt_ps(length, _mm_setzero_ps());
        rn = _mm_blendv_ps(rn, _mm_div_ps(rn, length), safe);
      }
    }
    if (v + 1 < end) {
      // A 4-wide store writes one float into the next vertex, which the next iteration rewrites.
      _mm_storeu_ps(out_p + 3 * v, r);
      if (with_normals) _mm_storeu_ps(out_n + 3 * v, rn);
    } else {
      // The range's last vertex: never touch memory past it (it may belong to another thread).
      alignas(16) float tmp[4];
      _mm_store_ps(tmp, r);
      out_p[3 * v] = tmp[0], out_p[3 * v + 1] = tmp[1], out_p[3 * v + 2] = tmp[2];
      if (with_normals) {
        _mm_store_ps(tmp, rn);
        out_n[3 * v] = tmp[0], out_n[3 * v + 1] = tmp[1], out_n[3 * v + 2] = tmp[2];
      }
    }
  }
}

// The old dispatch on the influence count (the caller checks that the processor has AVX2 and FMA).
inline void lbs_before_simd_layer(const LbsJob& job) {
  const std::size_t n = job.in_positions.size();
  switch (job.skin->width) {
    case 1: return lbs_before_simd_layer<1>(job, 0, n);
    case 2: return lbs_before_simd_layer<2>(job, 0, n);
    case 3: return lbs_before_simd_layer<3>(job, 0, n);
    case 4: return lbs_before_simd_layer<4>(job, 0, n);
    case 8: return lbs_before_simd_layer<8>(job, 0, n);
    default: return lbs_before_simd_layer<0>(job, 0, n);
  }
}

}  // namespace wobble::bench
