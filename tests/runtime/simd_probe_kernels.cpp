// The SIMD layer's operations on arrays, compiled once per instruction set (see the header).
#include "simd_probe_kernels.hpp"

#include "simd/simd.hpp"

namespace wobble::simd_probe::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

// f32x4 has the arithmetic, fma, sqrt, select and negation; the rest are eight lanes only.
template <typename V>
V apply(Op op, V a, V b, V c) {
  constexpr bool kEight = std::is_same_v<V, f32x8>;
  switch (op) {
    case Op::add: return a + b;
    case Op::sub: return a - b;
    case Op::mul: return a * b;
    case Op::div: return a / b;
    case Op::fma: return fma(a, b, c);
    case Op::sqrt: return sqrt(a);
    case Op::select_less: return select(a < b, a, c);
    case Op::negate: return -a;
    default: break;
  }
  if constexpr (kEight) {
    switch (op) {
      case Op::fms: return fms(a, b, c);
      case Op::fnma: return fnma(a, b, c);
      case Op::min: return min(a, b);
      case Op::max: return max(a, b);
      case Op::rsqrt: return rsqrt(a);
      case Op::rcp: return rcp(a);
      case Op::rsqrt_estimate: return rsqrt_estimate(a);
      case Op::rcp_estimate: return rcp_estimate(a);
      case Op::keep_greater: return keep(a > b, c);
      default: break;
    }
  }
  return V::zero();
}

void lanes8(Op op, const float* a, const float* b, const float* c, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8)
    apply(op, f32x8::load(a + i), f32x8::load(b + i), f32x8::load(c + i)).store(out + i);
}

void lanes4(Op op, const float* a, const float* b, const float* c, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 4)
    apply(op, f32x4::load(a + i), f32x4::load(b + i), f32x4::load(c + i)).store(out + i);
}

void dots(const float* a, const float* b, float* out, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r) {
    const f32x4 x = f32x4::load(a + 4 * r), y = f32x4::load(b + 4 * r);
    dot3(x, y).store(out + 8 * r);
    dot4(x, y).store(out + 8 * r + 4);
  }
}

void transposes(const float* rows, float* lanes, float* rows_stored, float* rows_transposed) {
  const Lanes4 t = load_rows(rows, 4);
  t.x.store(lanes), t.y.store(lanes + 8), t.z.store(lanes + 16), t.w.store(lanes + 24);
  store_rows(rows_stored, t.x, t.y, t.z, t.w);
  const Rows8 back = transpose_lanes(t.x, t.y, t.z, t.w);
  for (int l = 0; l < 8; ++l) back.row[l].store(rows_transposed + 4 * l);
}

void gathers(const float* base, const std::uint16_t* index16, const std::uint32_t* index32, float* gathered,
             float* row_lanes, float* halves) {
  f32x8::gather(base, i32x8::load(index16)).store(gathered);
  const Lanes4 t = gather_rows(base, index32);
  t.x.store(row_lanes), t.y.store(row_lanes + 8), t.z.store(row_lanes + 16), t.w.store(row_lanes + 24);
  f32x8::splat_halves<0>(base).store(halves);
  f32x8::splat_halves<1>(base).store(halves + 8);
}

int mask_bits(const float* a, const float* b) {
  const m32x8 m = f32x8::load(a) < f32x8::load(b);
  return m.bits() | (m.all() ? 1 << 8 : 0) | (m.any() ? 1 << 9 : 0);
}

}  // namespace

extern const Table table = {lanes8, lanes4, dots, transposes, gathers, mask_bits};

}  // namespace wobble::simd_probe::WOBBLE_SIMD_ISA
