#pragma once
// The floor of Delta Mush's smoothing sweeps on float4 rows (BM_SweepFloor): the least work any
// sweep of a general mesh does, per vertex and sweep its neighbours' 16-byte rows through their
// indices (two per 8-byte load, as the kernel), its own row and one store, with the weights
// constant (no per-vertex weight, no mask, no groups, no dispatch). Timed on the same operator
// as BM_DeltaMush10SmoothOnly, with the rows as bound and with every index folded into the first
// 64 rows (all loads from L1: what is left is the core's issue rate, not the memory).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace wobble::bench {

// Rows of one fixed width (ELL): columns[i * width + k] is the float offset (4 x row) of vertex
// i's k-th neighbour; short rows point at the zero row past the vertices.
struct FloorRows {
  std::size_t vertices = 0, width = 0;
  std::vector<std::uint32_t> columns;
};

inline FloorRows floor_rows(const std::vector<std::uint32_t>& offsets, const std::vector<std::uint32_t>& neighbours,
                            bool fold_into_l1) {
  FloorRows rows;
  rows.vertices = offsets.size() - 1;
  for (std::size_t i = 0; i < rows.vertices; ++i)
    rows.width = std::max<std::size_t>(rows.width, offsets[i + 1] - offsets[i]);
  const auto zero_row = static_cast<std::uint32_t>(rows.vertices);
  rows.columns.assign(rows.vertices * rows.width, 4 * zero_row);
  for (std::size_t i = 0; i < rows.vertices; ++i) {
    for (std::uint32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      const std::uint32_t j = fold_into_l1 ? neighbours[k] % 64 : neighbours[k];
      rows.columns[i * rows.width + (k - offsets[i])] = 4 * j;
    }
  }
  return rows;
}

#if defined(__x86_64__)
// `sweeps` sweeps between a and b (rows.vertices + 1 float4 rows each, the last one zero).
template <int kWidth>
__attribute__((target("avx2,fma"))) void floor_sweeps_of_width(const FloorRows& rows, float* a, float* b, int sweeps) {
  const __m128 self = _mm_set1_ps(0.5f), weight = _mm_set1_ps(0.5f / kWidth);
  for (int s = 0; s < sweeps; ++s) {
    const float* in = s % 2 ? b : a;
    float* out = s % 2 ? a : b;
    const std::uint32_t* c = rows.columns.data();
    for (std::size_t i = 0; i < rows.vertices; ++i, c += kWidth) {
      __m128 even = _mm_setzero_ps(), odd = _mm_setzero_ps();
      for (int k = 0; k + 1 < kWidth; k += 2) {
        std::uint64_t pair;
        std::memcpy(&pair, c + k, sizeof pair);
        even = _mm_add_ps(even, _mm_load_ps(in + static_cast<std::uint32_t>(pair)));
        odd = _mm_add_ps(odd, _mm_load_ps(in + static_cast<std::uint32_t>(pair >> 32)));
      }
      if (kWidth % 2) even = _mm_add_ps(even, _mm_load_ps(in + c[kWidth - 1]));
      const __m128 sum = _mm_mul_ps(weight, _mm_add_ps(even, odd));
      _mm_store_ps(out + 4 * i, _mm_fmadd_ps(self, _mm_load_ps(in + 4 * i), sum));
    }
  }
}

// False where this processor or width has no floor kernel (AVX2 and FMA; widths 3 to 10).
inline bool floor_sweeps(const FloorRows& rows, float* a, float* b, int sweeps) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return false;
  switch (rows.width) {
    // The cases, laid out as a table:
    // clang-format off
#define WOBBLE_FLOOR_CASE(W) \
  case W: floor_sweeps_of_width<W>(rows, a, b, sweeps); return true;
    WOBBLE_FLOOR_CASE(3) WOBBLE_FLOOR_CASE(4) WOBBLE_FLOOR_CASE(5) WOBBLE_FLOOR_CASE(6) WOBBLE_FLOOR_CASE(7)
    WOBBLE_FLOOR_CASE(8) WOBBLE_FLOOR_CASE(9) WOBBLE_FLOOR_CASE(10)
#undef WOBBLE_FLOOR_CASE
    default: return false;
    // clang-format on
  }
}
#else
inline bool floor_sweeps(const FloorRows&, float*, float*, int) { return false; }
#endif

}  // namespace wobble::bench
