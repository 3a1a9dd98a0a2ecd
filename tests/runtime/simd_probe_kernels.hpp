#pragma once
// The SIMD layer's operations on arrays, once per instruction set (simd_probe_kernels.cpp), for
// test_simd_layer.cpp to compare with plain float arithmetic.
#include <cstddef>
#include <cstdint>

#include "simd/isa.hpp"

namespace wobble::simd_probe {

enum class Op {
  add,
  sub,
  mul,
  div,
  fma,
  fms,
  fnma,
  min,
  max,
  sqrt,
  rsqrt,
  rcp,
  rsqrt_estimate,
  rcp_estimate,
  select_less,
  keep_greater,
  negate
};

struct Table {
  // out[i] = op(a[i], b[i], c[i]) with f32x8 (n a multiple of 8).
  void (*lanes8)(Op op, const float* a, const float* b, const float* c, float* out, std::size_t n);
  // The same with f32x4 (add, sub, mul, div, fma, sqrt, select_less, negate; n a multiple of 4).
  void (*lanes4)(Op op, const float* a, const float* b, const float* c, float* out, std::size_t n);
  // Per row of four: dot3 and dot4 (all four lanes of each written: out[8 r .. 8 r + 8)).
  void (*dots)(const float* a, const float* b, float* out, std::size_t rows);
  // 8 rows of 4 floats -> lanes[4][8] (load_rows), back to rows by store_rows and by transpose_lanes.
  void (*transposes)(const float* rows, float* lanes, float* rows_stored, float* rows_transposed);
  // gathered[l] = base[index16[l]] (f32x8::gather of widened indices); row_lanes[4][8] from the
  // float4 rows base + 4 index32[l] (gather_rows); halves[16]: f32x8::splat_halves<0> and <1> of base.
  void (*gathers)(const float* base, const std::uint16_t* index16, const std::uint32_t* index32, float* gathered,
                  float* row_lanes, float* halves);
  // Bit l: a[l] < b[l]; bit 8: all; bit 9: any.
  int (*mask_bits)(const float* a, const float* b);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::simd_probe
