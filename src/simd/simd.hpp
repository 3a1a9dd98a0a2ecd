#pragma once
// wobble's SIMD layer: small value types over SIMDe (f32x4, f32x8, m32x4, m32x8, i32x8) for
// kernels that are compiled once per instruction set (cmake/simd.cmake: avx2 = AVX2 + FMA, sse2,
// neon, portable). Everything here lives in namespace wobble::simd::WOBBLE_SIMD_ISA, so that the
// copies compiled for different instruction sets never meet at link time.
//
// RULE: include this header LAST in a kernel file, and put all code after it into a namespace
// ending in WOBBLE_SIMD_ISA. From here on, functions are compiled for that instruction set
// (`#pragma GCC target` on x86); inline functions of headers included earlier (std, Eigen) keep
// the baseline instruction set, so the linker may pick any of their copies safely.
//
// Arithmetic is IEEE single precision lane by lane. fma() is fused on avx2 and neon and a
// multiply then an add on sse2 and portable (so results differ in the last bits between
// instruction sets, never between runs or thread counts). rsqrt() and rcp() are accurate to a few
// ulp everywhere (relative error below 5e-7); the *_estimate() versions to 1.5 * 2^-12 (exact
// where the hardware has no estimate instruction). Comparisons are ordered: false when either lane is NaN.

// The C and C++ headers SIMDe uses, first, at the baseline instruction set (see RULE).
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(WOBBLE_SIMD_ISA_AVX2)
#define WOBBLE_SIMD_ISA avx2
#if !defined(__x86_64__)
#error "WOBBLE_SIMD_ISA_AVX2 needs an x86-64 target"
#endif
#include <immintrin.h>
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif  // popped by simd/end.hpp, which cmake/simd.cmake's wrapper includes after the kernel file
// C++ compilers do not redefine __AVX2__ after a target pragma: tell SIMDe directly.
#define SIMDE_X86_AVX2_NATIVE
#define SIMDE_X86_FMA_NATIVE
#elif defined(WOBBLE_SIMD_ISA_SSE2)
#define WOBBLE_SIMD_ISA sse2
#if !defined(__x86_64__)
#error "WOBBLE_SIMD_ISA_SSE2 needs an x86-64 target"
#endif
#elif defined(WOBBLE_SIMD_ISA_NEON)
#define WOBBLE_SIMD_ISA neon
#if !defined(__ARM_NEON)
#error "WOBBLE_SIMD_ISA_NEON needs an ARM target with Advanced SIMD"
#endif
#else
// WOBBLE_SIMD_ISA_PORTABLE (native builds: no intrinsics at all), or a kernel file compiled
// directly. WebAssembly builds with -msimd128 (the viewer's, the npm package's through
// cmake/simd.cmake) keep SIMDe's WebAssembly SIMD: without it every vector operation would be
// SIMDe's scalar emulation (measured 10-14x slower than native instead of 2-3x).
#define WOBBLE_SIMD_ISA portable
#if defined(WOBBLE_SIMD_ISA_PORTABLE) && !defined(__wasm_simd128__)
#define SIMDE_NO_NATIVE
#endif
#endif

// SIMDe passes 256-bit vectors by value in its portable code: GCC notes an ABI change of 2011.
#pragma GCC diagnostic ignored "-Wpsabi"
#include <simde/x86/avx2.h>
#include <simde/x86/fma.h>

#define WOBBLE_SIMD_INLINE [[gnu::always_inline]] inline

namespace wobble::simd::WOBBLE_SIMD_ISA {

// The hardware's reciprocal estimates exist on x86 only; elsewhere the *_estimate functions are exact.
#if defined(SIMDE_X86_SSE_NATIVE)
constexpr bool kHasEstimates = true;
#else
constexpr bool kHasEstimates = false;
#endif

// ---- four lanes ----

struct m32x4 {
  simde__m128 v;  // each lane all ones (true) or all zeros (false)
};

struct f32x4 {
  simde__m128 v;

  WOBBLE_SIMD_INLINE static f32x4 zero() { return {simde_mm_setzero_ps()}; }
  WOBBLE_SIMD_INLINE static f32x4 splat(float x) { return {simde_mm_set1_ps(x)}; }
  WOBBLE_SIMD_INLINE static f32x4 set(float x, float y, float z, float w) { return {simde_mm_setr_ps(x, y, z, w)}; }
  WOBBLE_SIMD_INLINE static f32x4 load(const float* p) { return {simde_mm_loadu_ps(p)}; }
  WOBBLE_SIMD_INLINE static f32x4 load_aligned(const float* p) { return {simde_mm_load_ps(p)}; }  // 16-byte aligned
  // p[0], p[1] in lanes 0 and 1, zeros above: one 8-byte load.
  WOBBLE_SIMD_INLINE static f32x4 load2(const float* p) {
    return {simde_mm_castpd_ps(simde_mm_load_sd(reinterpret_cast<const double*>(p)))};
  }
  WOBBLE_SIMD_INLINE void store(float* p) const { simde_mm_storeu_ps(p, v); }
  WOBBLE_SIMD_INLINE void store_aligned(float* p) const { simde_mm_store_ps(p, v); }
  // Lanes 0-2 only (p[3] untouched).
  WOBBLE_SIMD_INLINE void store3(float* p) const {
    alignas(16) float lanes[4];
    simde_mm_store_ps(lanes, v);
    std::memcpy(p, lanes, 3 * sizeof(float));
  }
  WOBBLE_SIMD_INLINE float lane0() const { return simde_mm_cvtss_f32(v); }
  // Lane k in all four lanes.
  template <int k>
  WOBBLE_SIMD_INLINE f32x4 splat_lane() const {
    return {simde_mm_shuffle_ps(v, v, SIMDE_MM_SHUFFLE(k, k, k, k))};
  }
};

WOBBLE_SIMD_INLINE f32x4 operator+(f32x4 a, f32x4 b) { return {simde_mm_add_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x4 operator-(f32x4 a, f32x4 b) { return {simde_mm_sub_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x4 operator*(f32x4 a, f32x4 b) { return {simde_mm_mul_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x4 operator/(f32x4 a, f32x4 b) { return {simde_mm_div_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x4 operator-(f32x4 a) { return {simde_mm_xor_ps(a.v, simde_mm_set1_ps(-0.0f))}; }
WOBBLE_SIMD_INLINE f32x4 sqrt(f32x4 a) { return {simde_mm_sqrt_ps(a.v)}; }
#if defined(SIMDE_WASM_SIMD128_NATIVE)
// SIMDe 0.7 turns _mm_fmadd_ps and _mm_dp_ps into scalar loops through memory in WebAssembly:
// written on its SIMD instead (simde__m128 is v128_t there). A multiply then an add, as WebAssembly
// SIMD has no fused one; the dot products sum pairs, then pairs of pairs.
WOBBLE_SIMD_INLINE f32x4 fma(f32x4 a, f32x4 b, f32x4 c) { return {wasm_f32x4_add(wasm_f32x4_mul(a.v, b.v), c.v)}; }
WOBBLE_SIMD_INLINE f32x4 dot4(f32x4 a, f32x4 b) {
  const v128_t products = wasm_f32x4_mul(a.v, b.v);
  const v128_t pairs = wasm_f32x4_add(products, wasm_i32x4_shuffle(products, products, 1, 0, 3, 2));
  return {wasm_f32x4_add(pairs, wasm_i32x4_shuffle(pairs, pairs, 2, 3, 0, 1))};
}
WOBBLE_SIMD_INLINE f32x4 dot3(f32x4 a, f32x4 b) { return dot4({wasm_f32x4_replace_lane(a.v, 3, 0.0f)}, b); }
#else
// a * b + c
WOBBLE_SIMD_INLINE f32x4 fma(f32x4 a, f32x4 b, f32x4 c) { return {simde_mm_fmadd_ps(a.v, b.v, c.v)}; }
// x . y over lanes 0-2, in every lane.
WOBBLE_SIMD_INLINE f32x4 dot3(f32x4 a, f32x4 b) { return {simde_mm_dp_ps(a.v, b.v, 0x7F)}; }
// x . y over all four lanes, in every lane.
WOBBLE_SIMD_INLINE f32x4 dot4(f32x4 a, f32x4 b) { return {simde_mm_dp_ps(a.v, b.v, 0xFF)}; }
#endif

WOBBLE_SIMD_INLINE m32x4 operator<(f32x4 a, f32x4 b) { return {simde_mm_cmplt_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE m32x4 operator>(f32x4 a, f32x4 b) { return {simde_mm_cmpgt_ps(a.v, b.v)}; }
// m ? a : b, lane by lane.
WOBBLE_SIMD_INLINE f32x4 select(m32x4 m, f32x4 a, f32x4 b) { return {simde_mm_blendv_ps(b.v, a.v, m.v)}; }
// -a where m, else a.
WOBBLE_SIMD_INLINE f32x4 negate_where(m32x4 m, f32x4 a) {
  return {simde_mm_xor_ps(a.v, simde_mm_and_ps(m.v, simde_mm_set1_ps(-0.0f)))};
}

// ---- eight lanes ----

struct m32x8 {
  simde__m256 v;  // each lane all ones (true) or all zeros (false)

  WOBBLE_SIMD_INLINE static m32x8 splat(bool on) {
    return {simde_mm256_castsi256_ps(simde_mm256_set1_epi32(on ? -1 : 0))};
  }
  // Bit l set when lane l is true.
#if defined(SIMDE_WASM_SIMD128_NATIVE)
  WOBBLE_SIMD_INLINE int bits() const {  // SIMDe's movemask is a loop there
    const v128_t low = (v128_t)__builtin_shufflevector(v, v, 0, 1, 2, 3);
    const v128_t high = (v128_t)__builtin_shufflevector(v, v, 4, 5, 6, 7);
    return static_cast<int>(wasm_i32x4_bitmask(low) | (wasm_i32x4_bitmask(high) << 4));
  }
#else
  WOBBLE_SIMD_INLINE int bits() const { return simde_mm256_movemask_ps(v); }
#endif
  WOBBLE_SIMD_INLINE bool all() const { return bits() == 0xFF; }
  WOBBLE_SIMD_INLINE bool any() const { return bits() != 0; }
};

WOBBLE_SIMD_INLINE m32x8 operator&(m32x8 a, m32x8 b) { return {simde_mm256_and_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE m32x8 operator|(m32x8 a, m32x8 b) { return {simde_mm256_or_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE m32x8 operator~(m32x8 a) { return {simde_mm256_xor_ps(a.v, m32x8::splat(true).v)}; }

struct i32x8 {
  simde__m256i v;

  WOBBLE_SIMD_INLINE static i32x8 load(const std::uint32_t* p) { return {simde_mm256_loadu_si256(p)}; }  // < 2^31
  // Eight 16-bit unsigned values, widened.
  WOBBLE_SIMD_INLINE static i32x8 load(const std::uint16_t* p) {
    return {simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128(p))};
  }
  WOBBLE_SIMD_INLINE void store(std::int32_t* p) const { simde_mm256_storeu_si256(p, v); }
};

struct f32x8 {
  simde__m256 v;

  WOBBLE_SIMD_INLINE static f32x8 zero() { return {simde_mm256_setzero_ps()}; }
  WOBBLE_SIMD_INLINE static f32x8 splat(float x) { return {simde_mm256_set1_ps(x)}; }
  WOBBLE_SIMD_INLINE static f32x8 load(const float* p) { return {simde_mm256_loadu_ps(p)}; }
  WOBBLE_SIMD_INLINE static f32x8 load_aligned(const float* p) { return {simde_mm256_load_ps(p)}; }  // 32-byte aligned
  // base[index[l]] in lane l.
#if defined(SIMDE_WASM_SIMD128_NATIVE)
  WOBBLE_SIMD_INLINE static f32x8 gather(const float* base, i32x8 index) {  // SIMDe's is a loop there
    const auto& i = index.v;
    return {
        simde__m256{base[i[0]], base[i[1]], base[i[2]], base[i[3]], base[i[4]], base[i[5]], base[i[6]], base[i[7]]}};
  }
#else
  WOBBLE_SIMD_INLINE static f32x8 gather(const float* base, i32x8 index) {
    return {simde_mm256_i32gather_ps(base, index.v, 4)};
  }
#endif
  // low in lanes 0-3, high in lanes 4-7.
  WOBBLE_SIMD_INLINE static f32x8 combine(f32x4 low, f32x4 high) { return {simde_mm256_set_m128(high.v, low.v)}; }
  // p[k] in lanes 0-3 and p[k + 2] in lanes 4-7 (k = 0 or 1): from one 16-byte load, a value of
  // each of two rows side by side (Delta Mush's twins).
  template <int k>
  WOBBLE_SIMD_INLINE static f32x8 splat_halves(const float* p) {
    static_assert(k == 0 || k == 1);
#if defined(SIMDE_WASM_SIMD128_NATIVE)
    return {
        simde__m256{p[k], p[k], p[k], p[k], p[k + 2], p[k + 2], p[k + 2], p[k + 2]}};  // SIMDe's permutevar loops there
#else
    const simde__m256 both = simde_mm256_broadcast_ps(reinterpret_cast<const simde__m128*>(p));
    return {simde_mm256_permutevar_ps(both, simde_mm256_setr_epi32(k, k, k, k, k + 2, k + 2, k + 2, k + 2))};
#endif
  }
  WOBBLE_SIMD_INLINE void store(float* p) const { simde_mm256_storeu_ps(p, v); }
  WOBBLE_SIMD_INLINE void store_aligned(float* p) const { simde_mm256_store_ps(p, v); }
  WOBBLE_SIMD_INLINE f32x4 low() const { return {simde_mm256_castps256_ps128(v)}; }
  WOBBLE_SIMD_INLINE f32x4 high() const { return {simde_mm256_extractf128_ps(v, 1)}; }
};

WOBBLE_SIMD_INLINE f32x8 operator+(f32x8 a, f32x8 b) { return {simde_mm256_add_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x8 operator-(f32x8 a, f32x8 b) { return {simde_mm256_sub_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x8 operator*(f32x8 a, f32x8 b) { return {simde_mm256_mul_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x8 operator/(f32x8 a, f32x8 b) { return {simde_mm256_div_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x8 operator-(f32x8 a) { return {simde_mm256_xor_ps(a.v, simde_mm256_set1_ps(-0.0f))}; }
// a * b + c, a * b - c, c - a * b
#if defined(SIMDE_WASM_SIMD128_NATIVE)
// As fma(f32x4) above: simde__m256 is the compiler's 8-float vector there, two v128 in registers.
WOBBLE_SIMD_INLINE f32x8 fma(f32x8 a, f32x8 b, f32x8 c) { return {a.v * b.v + c.v}; }
WOBBLE_SIMD_INLINE f32x8 fms(f32x8 a, f32x8 b, f32x8 c) { return {a.v * b.v - c.v}; }
WOBBLE_SIMD_INLINE f32x8 fnma(f32x8 a, f32x8 b, f32x8 c) { return {c.v - a.v * b.v}; }
#else
WOBBLE_SIMD_INLINE f32x8 fma(f32x8 a, f32x8 b, f32x8 c) { return {simde_mm256_fmadd_ps(a.v, b.v, c.v)}; }
WOBBLE_SIMD_INLINE f32x8 fms(f32x8 a, f32x8 b, f32x8 c) { return {simde_mm256_fmsub_ps(a.v, b.v, c.v)}; }
WOBBLE_SIMD_INLINE f32x8 fnma(f32x8 a, f32x8 b, f32x8 c) { return {simde_mm256_fnmadd_ps(a.v, b.v, c.v)}; }
#endif
// x86 semantics: the second operand where either is NaN.
WOBBLE_SIMD_INLINE f32x8 min(f32x8 a, f32x8 b) { return {simde_mm256_min_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x8 max(f32x8 a, f32x8 b) { return {simde_mm256_max_ps(a.v, b.v)}; }
WOBBLE_SIMD_INLINE f32x8 sqrt(f32x8 a) { return {simde_mm256_sqrt_ps(a.v)}; }
// The sum of the eight lanes: the two halves added, then a dot product with ones.
WOBBLE_SIMD_INLINE float sum(f32x8 x) { return dot4(x.low() + x.high(), f32x4::splat(1.0f)).lane0(); }

WOBBLE_SIMD_INLINE m32x8 operator<(f32x8 a, f32x8 b) { return {simde_mm256_cmp_ps(a.v, b.v, SIMDE_CMP_LT_OQ)}; }
WOBBLE_SIMD_INLINE m32x8 operator<=(f32x8 a, f32x8 b) { return {simde_mm256_cmp_ps(a.v, b.v, SIMDE_CMP_LE_OQ)}; }
WOBBLE_SIMD_INLINE m32x8 operator>(f32x8 a, f32x8 b) { return {simde_mm256_cmp_ps(a.v, b.v, SIMDE_CMP_GT_OQ)}; }
WOBBLE_SIMD_INLINE m32x8 operator>=(f32x8 a, f32x8 b) { return {simde_mm256_cmp_ps(a.v, b.v, SIMDE_CMP_GE_OQ)}; }
// m ? a : b, lane by lane; keep(m, a): m ? a : 0.
WOBBLE_SIMD_INLINE f32x8 select(m32x8 m, f32x8 a, f32x8 b) { return {simde_mm256_blendv_ps(b.v, a.v, m.v)}; }
WOBBLE_SIMD_INLINE f32x8 keep(m32x8 m, f32x8 a) { return {simde_mm256_and_ps(a.v, m.v)}; }

// 1/sqrt(x) for x > 0 and 1/x for x != 0 to a relative error below 5e-7: the hardware estimate
// refined by one Newton step where there is one, else the exact operation.
WOBBLE_SIMD_INLINE f32x8 rsqrt(f32x8 x) {
  if constexpr (kHasEstimates) {
    const f32x8 y{simde_mm256_rsqrt_ps(x.v)};
    return y * fnma(f32x8::splat(0.5f) * x, y * y, f32x8::splat(1.5f));
  } else {
    return f32x8::splat(1.0f) / sqrt(x);
  }
}
WOBBLE_SIMD_INLINE f32x8 rcp(f32x8 x) {
  if constexpr (kHasEstimates) {
    const f32x8 y{simde_mm256_rcp_ps(x.v)};
    return y * fnma(x, y, f32x8::splat(2.0f));
  } else {
    return f32x8::splat(1.0f) / x;
  }
}
// Relative error below 1.5 * 2^-12: for values that only steer an iteration.
WOBBLE_SIMD_INLINE f32x8 rsqrt_estimate(f32x8 x) {
  if constexpr (kHasEstimates) return {simde_mm256_rsqrt_ps(x.v)};
  return f32x8::splat(1.0f) / sqrt(x);
}
WOBBLE_SIMD_INLINE f32x8 rcp_estimate(f32x8 x) {
  if constexpr (kHasEstimates) return {simde_mm256_rcp_ps(x.v)};
  return f32x8::splat(1.0f) / x;
}

// ---- rows of four floats <-> lanes (structure of arrays) ----

struct Lanes4 {
  f32x8 x, y, z, w;
};

// Row l (four floats at rows[l]) into lane l of x, y, z, w.
WOBBLE_SIMD_INLINE Lanes4 transpose_rows(const float* r0, const float* r1, const float* r2, const float* r3,
                                         const float* r4, const float* r5, const float* r6, const float* r7) {
  auto pair = [](const float* low, const float* high) {
    return simde_mm256_set_m128(simde_mm_loadu_ps(high), simde_mm_loadu_ps(low));
  };
  const simde__m256 t0 = pair(r0, r4), t1 = pair(r1, r5), t2 = pair(r2, r6), t3 = pair(r3, r7);
  const simde__m256 u0 = simde_mm256_unpacklo_ps(t0, t1);  // x0 x1 y0 y1 | x4 x5 y4 y5
  const simde__m256 u1 = simde_mm256_unpackhi_ps(t0, t1);  // z0 z1 w0 w1 | z4 z5 w4 w5
  const simde__m256 u2 = simde_mm256_unpacklo_ps(t2, t3);  // x2 x3 y2 y3 | x6 x7 y6 y7
  const simde__m256 u3 = simde_mm256_unpackhi_ps(t2, t3);
  return {{simde_mm256_shuffle_ps(u0, u2, 0x44)},
          {simde_mm256_shuffle_ps(u0, u2, 0xEE)},
          {simde_mm256_shuffle_ps(u1, u3, 0x44)},
          {simde_mm256_shuffle_ps(u1, u3, 0xEE)}};
}
// Rows first, first + stride, ... (stride in floats).
WOBBLE_SIMD_INLINE Lanes4 load_rows(const float* first, std::size_t stride) {
  return transpose_rows(first, first + stride, first + 2 * stride, first + 3 * stride, first + 4 * stride,
                        first + 5 * stride, first + 6 * stride, first + 7 * stride);
}
// Rows base + 4 index[l] (float4 rows addressed by row number).
WOBBLE_SIMD_INLINE Lanes4 gather_rows(const float* base, const std::uint32_t* index) {
  auto row = [&](int l) { return base + 4 * std::size_t(index[l]); };
  return transpose_rows(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7));
}

// Lane l of x, y, z, w as row l.
struct Rows8 {
  f32x4 row[8];
};
WOBBLE_SIMD_INLINE Rows8 transpose_lanes(f32x8 x, f32x8 y, f32x8 z, f32x8 w) {
  const simde__m256 u0 = simde_mm256_unpacklo_ps(x.v, y.v), u1 = simde_mm256_unpackhi_ps(x.v, y.v);
  const simde__m256 u2 = simde_mm256_unpacklo_ps(z.v, w.v), u3 = simde_mm256_unpackhi_ps(z.v, w.v);
  const f32x8 a[4] = {{simde_mm256_shuffle_ps(u0, u2, 0x44)},
                      {simde_mm256_shuffle_ps(u0, u2, 0xEE)},
                      {simde_mm256_shuffle_ps(u1, u3, 0x44)},
                      {simde_mm256_shuffle_ps(u1, u3, 0xEE)}};  // rows k, k + 4
  return {{a[0].low(), a[1].low(), a[2].low(), a[3].low(), a[0].high(), a[1].high(), a[2].high(), a[3].high()}};
}
// The eight rows, contiguous: out[4 l + c].
WOBBLE_SIMD_INLINE void store_rows(float* out, f32x8 x, f32x8 y, f32x8 z, f32x8 w) {
  const simde__m256 u0 = simde_mm256_unpacklo_ps(x.v, y.v), u1 = simde_mm256_unpackhi_ps(x.v, y.v);
  const simde__m256 u2 = simde_mm256_unpacklo_ps(z.v, w.v), u3 = simde_mm256_unpackhi_ps(z.v, w.v);
  const simde__m256 a0 = simde_mm256_shuffle_ps(u0, u2, 0x44), a1 = simde_mm256_shuffle_ps(u0, u2, 0xEE);
  const simde__m256 a2 = simde_mm256_shuffle_ps(u1, u3, 0x44), a3 = simde_mm256_shuffle_ps(u1, u3, 0xEE);
  simde_mm256_storeu_ps(out, simde_mm256_permute2f128_ps(a0, a1, 0x20));
  simde_mm256_storeu_ps(out + 8, simde_mm256_permute2f128_ps(a2, a3, 0x20));
  simde_mm256_storeu_ps(out + 16, simde_mm256_permute2f128_ps(a0, a1, 0x31));
  simde_mm256_storeu_ps(out + 24, simde_mm256_permute2f128_ps(a2, a3, 0x31));
}

}  // namespace wobble::simd::WOBBLE_SIMD_ISA
