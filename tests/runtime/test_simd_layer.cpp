// The SIMD layer on every instruction set this build and processor run, against plain float
// arithmetic: exact operations bit for bit, fused ones within their rounding, estimates within
// their documented error.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/error.hpp>

#include "simd/isa.hpp"
#include "simd_probe_kernels.hpp"

namespace wobble::simd_probe {

namespace {

float scalar_op(Op op, float a, float b, float c) {
  switch (op) {
    case Op::add: return a + b;
    case Op::sub: return a - b;
    case Op::mul: return a * b;
    case Op::div: return a / b;
    case Op::fma: return static_cast<float>(double(a) * b + c);
    case Op::fms: return static_cast<float>(double(a) * b - c);
    case Op::fnma: return static_cast<float>(c - double(a) * b);
    case Op::min: return a < b ? a : b;  // x86 semantics: the second operand unless a < b
    case Op::max: return a > b ? a : b;
    case Op::sqrt: return std::sqrt(a);
    case Op::rsqrt:
    case Op::rsqrt_estimate: return static_cast<float>(1.0 / std::sqrt(double(a)));
    case Op::rcp:
    case Op::rcp_estimate: return static_cast<float>(1.0 / a);
    case Op::select_less: return a < b ? a : c;
    case Op::keep_greater: return a > b ? c : 0.0f;
    case Op::negate: return -a;
  }
  return 0;
}

void lanes_reference(Op op, const float* a, const float* b, const float* c, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = scalar_op(op, a[i], b[i], c[i]);
}

void dots_reference(const float* a, const float* b, float* out, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* x = a + 4 * r;
    const float* y = b + 4 * r;
    const float d3 = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    for (int k = 0; k < 4; ++k) out[8 * r + k] = d3, out[8 * r + 4 + k] = d3 + x[3] * y[3];
  }
}

void transposes_reference(const float* rows, float* lanes, float* rows_stored, float* rows_transposed) {
  for (int l = 0; l < 8; ++l) {
    for (int k = 0; k < 4; ++k) lanes[8 * k + l] = rows[4 * l + k];
  }
  std::memcpy(rows_stored, rows, 32 * sizeof(float));
  std::memcpy(rows_transposed, rows, 32 * sizeof(float));
}

void gathers_reference(const float* base, const std::uint16_t* index16, const std::uint32_t* index32, float* gathered,
                       float* row_lanes, float* halves) {
  for (int l = 0; l < 8; ++l) {
    gathered[l] = base[index16[l]];
    for (int k = 0; k < 4; ++k) row_lanes[8 * k + l] = base[4 * index32[l] + k];
    halves[l] = base[l < 4 ? 0 : 2];
    halves[8 + l] = base[l < 4 ? 1 : 3];
  }
}

int mask_bits_reference(const float* a, const float* b) {
  int bits = 0;
  for (int l = 0; l < 8; ++l) bits |= (a[l] < b[l]) << l;
  return bits | (bits == 0xFF ? 1 << 8 : 0) | (bits ? 1 << 9 : 0);
}

}  // namespace

extern const Table reference = {lanes_reference,      lanes_reference,   dots_reference,
                                transposes_reference, gathers_reference, mask_bits_reference};
WOBBLE_SIMD_DEFINE_TABLE_FOR

namespace {

struct Inputs {
  std::vector<float> a, b, c;
};

// Mixed signs and magnitudes, with zeros, equal pairs and a few extremes.
Inputs inputs(std::size_t n, bool positive_a) {
  std::mt19937 random(5);
  std::uniform_real_distribution<float> unit(-1, 1), exponent(-20, 20);
  Inputs in{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    in.a[i] = unit(random) * std::exp2(exponent(random));
    in.b[i] = unit(random) * std::exp2(exponent(random));
    in.c[i] = unit(random) * std::exp2(exponent(random));
    if (positive_a) in.a[i] = std::abs(in.a[i]) + 1e-30f;
  }
  in.b[1] = in.a[1];  // equal: select_less takes c
  in.a[2] = 0.0f;
  if (!positive_a) in.a[3] = -0.0f;
  in.a[4] = positive_a ? 3.0e38f : -3.0e38f;
  return in;
}

// Largest error of got against want over n values, relative to |want| (absolute below 1e-30).
double worst_relative(const float* got, const float* want, std::size_t n) {
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isinf(want[i]) && got[i] == want[i]) continue;
    worst = std::max(worst, std::abs(double(got[i]) - want[i]) / std::max(1e-30, std::abs(double(want[i]))));
  }
  return worst;
}

TEST(SimdLayer, EveryBuildHasItsInstructionSetsAndTheActiveOneRuns) {
  ASSERT_FALSE(simd::runnable_isas().empty());
  EXPECT_TRUE(simd::cpu_supports(simd::active_isa()));
#if defined(__x86_64__)
  EXPECT_TRUE(simd::cpu_supports(simd::Isa::sse2));
  EXPECT_NE(simd::active_isa(), simd::Isa::portable);
#elif defined(__aarch64__)
  EXPECT_EQ(simd::active_isa(), simd::Isa::neon);
#endif
  EXPECT_THROW(simd::set_active_isa(static_cast<simd::Isa>(99)), Error);
}

TEST(SimdLayer, ExactOperationsMatchFloatArithmeticBitForBit) {
  const std::size_t n = 4096;
  for (simd::Isa isa : simd::runnable_isas()) {
    SCOPED_TRACE(simd::isa_name(isa));
    for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::min, Op::max, Op::sqrt, Op::select_less, Op::keep_greater,
                  Op::negate}) {
      const Inputs in = inputs(n, op == Op::sqrt);
      std::vector<float> got(n), want(n), got4(n);
      table_for(isa).lanes8(op, in.a.data(), in.b.data(), in.c.data(), got.data(), n);
      reference.lanes8(op, in.a.data(), in.b.data(), in.c.data(), want.data(), n);
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), n * sizeof(float))) << "op " << int(op);
      if (op == Op::min || op == Op::max || op == Op::keep_greater) continue;  // eight lanes only
      table_for(isa).lanes4(op, in.a.data(), in.b.data(), in.c.data(), got4.data(), n);
      EXPECT_EQ(0, std::memcmp(got4.data(), want.data(), n * sizeof(float))) << "op " << int(op) << " (four lanes)";
    }
  }
}

TEST(SimdLayer, FusedAndReciprocalOperationsStayWithinTheirDocumentedError) {
  const std::size_t n = 4096;
  struct Bound {
    Op op;
    double relative;
  };
  // fma: one rounding fused, two otherwise (each half an ulp of its result), so within 2^-23 of
  // the exact a b + c where nothing cancels.
  for (simd::Isa isa : simd::runnable_isas()) {
    SCOPED_TRACE(simd::isa_name(isa));
    for (const Bound bound : {Bound{Op::rsqrt, 5e-7}, Bound{Op::rcp, 5e-7}, Bound{Op::rsqrt_estimate, 1.5 / 4096},
                              Bound{Op::rcp_estimate, 1.5 / 4096}}) {
      Inputs in = inputs(n, true);
      for (float& a : in.a) a = std::clamp(a, 1e-30f, 1e30f);  // estimates cover the normal range
      std::vector<float> got(n), want(n);
      table_for(isa).lanes8(bound.op, in.a.data(), in.b.data(), in.c.data(), got.data(), n);
      reference.lanes8(bound.op, in.a.data(), in.b.data(), in.c.data(), want.data(), n);
      EXPECT_LE(worst_relative(got.data(), want.data(), n), bound.relative) << "op " << int(bound.op);
    }
    for (Op op : {Op::fma, Op::fms, Op::fnma}) {
      Inputs in = inputs(n, false);
      // a, b >= 0 and c's sign chosen so that the result is a sum of two positive terms.
      for (std::size_t i = 0; i < n; ++i) {
        in.a[i] = std::abs(in.a[i]), in.b[i] = std::abs(in.b[i]);
        in.c[i] = op == Op::fma ? std::abs(in.c[i]) : -std::abs(in.c[i]);
      }
      std::vector<float> got(n), want(n), got4(n);
      table_for(isa).lanes8(op, in.a.data(), in.b.data(), in.c.data(), got.data(), n);
      reference.lanes8(op, in.a.data(), in.b.data(), in.c.data(), want.data(), n);
      EXPECT_LE(worst_relative(got.data(), want.data(), n), 2.5e-7) << "op " << int(op);
      if (op == Op::fma) {
        table_for(isa).lanes4(op, in.a.data(), in.b.data(), in.c.data(), got4.data(), n);
        EXPECT_LE(worst_relative(got4.data(), want.data(), n), 2.5e-7) << "fma (four lanes)";
      }
    }
  }
}

TEST(SimdLayer, DotProductsTransposesGathersAndMasksMatchTheScalarDefinition) {
  std::mt19937 random(9);
  std::uniform_real_distribution<float> unit(-2, 2);
  std::vector<float> rows(64), other(64);
  for (float& x : rows) x = unit(random);
  for (float& x : other) x = unit(random);
  const std::uint16_t index16[8] = {7, 0, 63, 12, 12, 5, 40, 1};
  const std::uint32_t index32[8] = {3, 15, 0, 9, 9, 1, 14, 2};  // float4 rows of the 64 floats
  for (simd::Isa isa : simd::runnable_isas()) {
    SCOPED_TRACE(simd::isa_name(isa));
    std::vector<float> got(128), want(128);
    table_for(isa).dots(rows.data(), other.data(), got.data(), 16);
    reference.dots(rows.data(), other.data(), want.data(), 16);
    EXPECT_LE(worst_relative(got.data(), want.data(), 128), 1e-5);
    float lanes[32], stored[32], transposed[32], want_lanes[32], want_stored[32], want_transposed[32];
    table_for(isa).transposes(rows.data(), lanes, stored, transposed);
    reference.transposes(rows.data(), want_lanes, want_stored, want_transposed);
    EXPECT_EQ(0, std::memcmp(lanes, want_lanes, sizeof lanes));
    EXPECT_EQ(0, std::memcmp(stored, want_stored, sizeof stored));
    EXPECT_EQ(0, std::memcmp(transposed, want_transposed, sizeof transposed));
    float gathered[8], row_lanes[32], halves[16], want_gathered[8], want_row_lanes[32], want_halves[16];
    table_for(isa).gathers(rows.data(), index16, index32, gathered, row_lanes, halves);
    reference.gathers(rows.data(), index16, index32, want_gathered, want_row_lanes, want_halves);
    EXPECT_EQ(0, std::memcmp(gathered, want_gathered, sizeof gathered));
    EXPECT_EQ(0, std::memcmp(row_lanes, want_row_lanes, sizeof row_lanes));
    EXPECT_EQ(0, std::memcmp(halves, want_halves, sizeof halves));
    for (int trial = 0; trial < 3; ++trial) {
      float a[8], b[8];
      for (int l = 0; l < 8; ++l) a[l] = unit(random), b[l] = trial == 0 ? 10.0f : trial == 1 ? -10.0f : unit(random);
      EXPECT_EQ(table_for(isa).mask_bits(a, b), reference.mask_bits(a, b)) << "trial " << trial;
    }
    const float nan = std::nanf(""), one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const float with_nan[8] = {nan, 0, nan, 0, nan, 0, nan, 0};
    EXPECT_EQ(table_for(isa).mask_bits(with_nan, one) & 0xFF, 0xAA) << "comparisons with NaN are false";
  }
}

}  // namespace

}  // namespace wobble::simd_probe
