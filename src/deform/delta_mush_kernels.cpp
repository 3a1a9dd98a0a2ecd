// Delta Mush's SIMD loops, compiled once per instruction set: detail restoration eight vertices
// at a time (structure of arrays), sweeps one float4 row at a time, and the folded skin's blend.
#include "deform/delta_mush_kernels.hpp"

#include <algorithm>
#include <cstring>

#include "simd/simd.hpp"

namespace wobble::mush::WOBBLE_SIMD_ISA {

using namespace wobble::simd::WOBBLE_SIMD_ISA;

namespace {

// ---- detail restoration ----
//
// Per corner, with a = next - s, b = prev - s, n = a x b, written without normalising first:
//   F d = a (dx / |a|) + (n x a) (dy / (|n| |a|)) + n (dz / |n|).

// 1/sqrt(x), 0 where x <= FLT_MIN.
WOBBLE_SIMD_INLINE f32x8 inverse_length(f32x8 squared) { return keep(squared > f32x8::splat(FLT_MIN), rsqrt(squared)); }

// Group g's restored points, lane l = vertex 8 g + l. Along each lane's chain, slot k's previous
// point is slot k + 1's next point: one gather per slot, and the edge to it (b) becomes the next
// slot's edge a.
WOBBLE_SIMD_INLINE Lanes4 restored_group(const CornerBlocks& blocks, const float* s, std::size_t g) {
  const Lanes4 p = load_rows(s + 4 * kLanes * g, 4);
  const std::uint32_t* points = blocks.group_points(g);
  const Lanes4 first = gather_rows(s, points);
  f32x8 ax = first.x - p.x, ay = first.y - p.y, az = first.z - p.z;
  f32x8 rx = f32x8::zero(), ry = f32x8::zero(), rz = f32x8::zero();
  for (std::size_t slot = blocks.slot_offsets[g]; slot < blocks.slot_offsets[g + 1]; ++slot) {
    const std::size_t c = slot * kLanes;
    points += kLanes;
    const Lanes4 pp = gather_rows(s, points);
    const f32x8 bx = pp.x - p.x, by = pp.y - p.y, bz = pp.z - p.z;
    const f32x8 nx = fms(ay, bz, az * by), ny = fms(az, bx, ax * bz), nz = fms(ax, by, ay * bx);
    const f32x8 ia = inverse_length(fma(ax, ax, fma(ay, ay, az * az)));
    const f32x8 in = inverse_length(fma(nx, nx, fma(ny, ny, nz * nz)));
    const f32x8 kx = f32x8::load(blocks.dx.data() + c) * ia;
    const f32x8 ky = f32x8::load(blocks.dy.data() + c) * (ia * in);
    const f32x8 kz = f32x8::load(blocks.dz.data() + c) * in;
    const f32x8 yx = fms(ny, az, nz * ay), yy = fms(nz, ax, nx * az), yz = fms(nx, ay, ny * ax);
    rx = fma(ax, kx, fma(yx, ky, fma(nx, kz, rx)));
    ry = fma(ay, kx, fma(yy, ky, fma(ny, kz, ry)));
    rz = fma(az, kx, fma(yz, ky, fma(nz, kz, rz)));
    ax = bx, ay = by, az = bz;
  }
  return {p.x + rx, p.y + ry, p.z + rz, f32x8::zero()};
}

void restore(const CornerBlocks& blocks, const float* s, float* out, std::size_t group_begin, std::size_t group_end) {
  for (std::size_t g = group_begin; g < group_end; ++g) {
    const Lanes4 r = restored_group(blocks, s, g);
    store_rows(out + 4 * kLanes * g, r.x, r.y, r.z, r.w);
  }
}

// The same points plus centre4, straight into the caller's xyz points (3 floats each) of the
// vertices below vertex_count whose keep flag is 0.
void restore_points(const CornerBlocks& blocks, const float* s, const float* centre4, const std::uint8_t* keep,
                    std::size_t vertex_count, float* points, std::size_t group_begin, std::size_t group_end) {
  const f32x4 centre = f32x4::load(centre4);
  for (std::size_t g = group_begin; g < group_end; ++g) {
    const Lanes4 r = restored_group(blocks, s, g);
    const Rows8 rows = transpose_lanes(r.x, r.y, r.z, r.w);
    float* out = points + 3 * kLanes * g;
    std::uint64_t kept = 1;
    if ((g + 1) * kLanes <= vertex_count) std::memcpy(&kept, keep + kLanes * g, sizeof kept);
    if (kept == 0) {
      // A 4-wide store writes one float into the next vertex, which the next store rewrites; the
      // group's last vertex never touches the next group (it may belong to another thread).
      for (std::size_t l = 0; l + 1 < kLanes; ++l) (rows.row[l] + centre).store(out + 3 * l);
      (rows.row[kLanes - 1] + centre).store3(out + 3 * (kLanes - 1));
      continue;
    }
    for (std::size_t l = 0; l < kLanes && kLanes * g + l < vertex_count; ++l) {  // the last group, or kept vertices
      if (!keep[kLanes * g + l]) (rows.row[l] + centre).store3(out + 3 * l);
    }
  }
}

// ---- sweeps ----

// Rows are 16-byte aligned (vector storage, 4 floats a row): aligned loads fold into the arithmetic.
WOBBLE_SIMD_INLINE f32x4 row(const float* buffer, std::uint32_t float_offset) {
  return f32x4::load_aligned(buffer + float_offset);
}

// Two column indices from one 8-byte load (the sweep is bound by load instructions: per
// neighbour one index and one row).
WOBBLE_SIMD_INLINE void column_pair(const std::uint32_t* columns, std::uint32_t& first, std::uint32_t& second) {
  std::uint64_t pair;
  std::memcpy(&pair, columns, sizeof pair);
  first = static_cast<std::uint32_t>(pair);  // little endian: columns[0] in the low half
  second = static_cast<std::uint32_t>(pair >> 32);
}

// The kernels below run vertices [begin, end) of consecutive groups that share one shape (width,
// pairs): their rows follow each other in the columns, `width` entries a vertex, so a run needs
// no work per group (begin is a group's first vertex).

// Fully unrolled rows of kWidth neighbours (kWidth = 0: the width given at run time). Two
// accumulators (even and odd neighbours) halve the chain of dependent additions.
template <int kWidth, bool kUniform>
void sweep_run(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  const std::size_t g = begin / kLanes, width = kWidth ? kWidth : rows.widths[g];
  const std::uint32_t* columns = rows.columns.data() + rows.offsets[g];
  const float* weights = kUniform ? nullptr : rows.weights.data() + rows.offsets[g];
  for (std::size_t i = begin; i < end; ++i, columns += width) {
    f32x4 even = f32x4::zero(), odd = f32x4::zero();
    std::size_t k = 0;
    for (; k + 1 < width; k += 2) {
      std::uint32_t a, b;
      column_pair(columns + k, a, b);
      if constexpr (kUniform) {
        even = even + row(in, a);
        odd = odd + row(in, b);
      } else {
        even = even + f32x4::splat(weights[k]) * row(in, a);
        odd = odd + f32x4::splat(weights[k + 1]) * row(in, b);
      }
    }
    if (k < width) even = even + (kUniform ? row(in, columns[k]) : f32x4::splat(weights[k]) * row(in, columns[k]));
    f32x4 sum = even + odd;
    if constexpr (kUniform) {
      sum = f32x4::splat(rows.uniform(i)) * sum;
    } else {
      weights += width;
    }
    (f32x4::splat(rows.self(i)) * row(in, std::uint32_t(4 * i)) + sum).store_aligned(out + 4 * i);
  }
}

// Uniform rows laid out by plan_pairs: per vertex its pair entries (32-byte loads of two
// neighbour rows), then its single rows.

// out_i = self_i in_i + uniform_i sum, with (self_i, uniform_i) from one 8-byte load.
WOBBLE_SIMD_INLINE void store_uniform_sweep(const SweepRows& rows, const float* in, float* out, std::size_t i,
                                            f32x4 sum) {
  const f32x4 weights = f32x4::load2(rows.vertex_weights.data() + 2 * i);
  (weights.splat_lane<0>() * row(in, std::uint32_t(4 * i)) + weights.splat_lane<1>() * sum).store_aligned(out + 4 * i);
}

// kPairs pairs and kSingles singles a vertex, fully unrolled, the indices two per 8-byte load.
template <int kPairs, int kSingles>
void sweep_paired_run(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  constexpr int kWidth = kPairs + kSingles;
  const std::uint32_t* columns = rows.columns.data() + rows.offsets[begin / kLanes];
  for (std::size_t i = begin; i < end; ++i, columns += kWidth) {
    std::uint32_t c[kWidth];
    for (int k = 0; k + 1 < kWidth; k += 2) column_pair(columns + k, c[k], c[k + 1]);
    if constexpr (kWidth % 2 == 1) c[kWidth - 1] = columns[kWidth - 1];
    f32x8 wide = f32x8::load(in + c[0]);
    for (int k = 1; k < kPairs; ++k) wide = wide + f32x8::load(in + c[k]);
    f32x4 narrow = wide.low() + wide.high();
    for (int k = kPairs; k < kWidth; ++k) narrow = narrow + row(in, c[k]);
    store_uniform_sweep(rows, in, out, i, narrow);
  }
}

// Any paired shape, with loops sized at run time. (Not sweep_paired_run with run-time sizes: its
// fixed width is what lets it load the indices two at a time, 17 % faster on the bench cylinder.)
void sweep_paired_any(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  const std::size_t g = begin / kLanes, pairs = rows.pairs[g], width = rows.widths[g];
  const std::uint32_t* columns = rows.columns.data() + rows.offsets[g];
  for (std::size_t i = begin; i < end; ++i, columns += width) {
    f32x8 wide = f32x8::zero();
    for (std::size_t k = 0; k < pairs; ++k) wide = wide + f32x8::load(in + columns[k]);
    f32x4 narrow = wide.low() + wide.high();
    for (std::size_t k = pairs; k < width; ++k) narrow = narrow + row(in, columns[k]);
    store_uniform_sweep(rows, in, out, i, narrow);
  }
}

// A paired run: the common shapes fully unrolled (1-3 pairs, 0-5 singles), any other at run time.
void sweep_paired(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  const std::size_t g = begin / kLanes;
  const std::uint32_t pairs = rows.pairs[g], singles = rows.widths[g] - pairs;
  switch (singles < 8 ? pairs * 8 + singles : 0) {
    // The cases, laid out as a table:
    // clang-format off
#define WOBBLE_PAIRED_CASE(P, S) \
  case P * 8 + S: sweep_paired_run<P, S>(rows, in, out, begin, end); return;
#define WOBBLE_PAIRED_CASES(P)                                                                    \
  WOBBLE_PAIRED_CASE(P, 0) WOBBLE_PAIRED_CASE(P, 1) WOBBLE_PAIRED_CASE(P, 2) WOBBLE_PAIRED_CASE(P, 3) \
  WOBBLE_PAIRED_CASE(P, 4) WOBBLE_PAIRED_CASE(P, 5)
    WOBBLE_PAIRED_CASES(1) WOBBLE_PAIRED_CASES(2) WOBBLE_PAIRED_CASES(3)
#undef WOBBLE_PAIRED_CASES
#undef WOBBLE_PAIRED_CASE
    default: sweep_paired_any(rows, in, out, begin, end); return;
    // clang-format on
  }
}

// Twins (uniform rows laid out by plan_twins): one 32-byte load per shared entry serves both
// vertices, and so do the loads of their own rows, their weights and the store.

// out rows i, i + 1 = self in + uniform sum, with (self_i, uniform_i, self_i+1, uniform_i+1) from
// one 16-byte load (weights: the rows' vertex_weights).
WOBBLE_SIMD_INLINE void store_twin_sweep(const float* weights, const float* in, float* out, std::size_t i, f32x8 sum) {
  const f32x8 self = f32x8::splat_halves<0>(weights + 2 * i), uniform = f32x8::splat_halves<1>(weights + 2 * i);
  (self * f32x8::load(in + 4 * i) + uniform * sum).store(out + 4 * i);
}

// Twins from begin to end, `sum` giving each twin's neighbour sums; where the range ends between
// a twin's two vertices, the first alone.
template <typename TwinSum>
WOBBLE_SIMD_INLINE void sweep_twins(const SweepRows& rows, const float* in, float* out, std::size_t begin,
                                    std::size_t end, TwinSum&& sum) {
  const float* weights = rows.vertex_weights.data();  // locals: not reloaded after each store
  std::size_t i = begin;
  for (; i + 2 <= end; i += 2) store_twin_sweep(weights, in, out, i, sum());
  if (i < end) store_uniform_sweep(rows, in, out, i, sum().low());
}

// kShared shared entries and kSingles singles per vertex, fully unrolled; two accumulators.
template <int kShared, int kSingles>
void sweep_twin_run(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  constexpr int kWidth = kShared + 2 * kSingles;
  const std::uint32_t* columns = rows.columns.data() + rows.offsets[begin / kLanes];
  sweep_twins(rows, in, out, begin, end, [&] {
    std::uint32_t c[kWidth];
    for (int k = 0; k + 1 < kWidth; k += 2) column_pair(columns + k, c[k], c[k + 1]);
    if constexpr (kWidth % 2 == 1) c[kWidth - 1] = columns[kWidth - 1];
    f32x8 even = f32x8::load(in + c[0]), odd = f32x8::zero();
    for (int k = 1; k < kShared; ++k) (k % 2 ? odd : even) = (k % 2 ? odd : even) + f32x8::load(in + c[k]);
    f32x8 sum = even + odd;
    if constexpr (kSingles > 0) {
      f32x4 first = row(in, c[kShared]), second = row(in, c[kShared + kSingles]);
      for (int k = 1; k < kSingles; ++k) {
        first = first + row(in, c[kShared + k]);
        second = second + row(in, c[kShared + kSingles + k]);
      }
      sum = sum + f32x8::combine(first, second);
    }
    columns += kWidth;
    return sum;
  });
}

// Any twinned shape, with loops sized at run time.
void sweep_twin_any(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  const std::size_t g = begin / kLanes, shared = rows.shared[g], singles = rows.widths[g];
  const std::uint32_t* columns = rows.columns.data() + rows.offsets[g];
  sweep_twins(rows, in, out, begin, end, [&] {
    f32x8 sum = f32x8::zero();
    for (std::size_t k = 0; k < shared; ++k) sum = sum + f32x8::load(in + columns[k]);
    f32x4 first = f32x4::zero(), second = f32x4::zero();
    for (std::size_t k = 0; k < singles; ++k) {
      first = first + row(in, columns[shared + k]);
      second = second + row(in, columns[shared + singles + k]);
    }
    columns += shared + 2 * singles;
    return sum + f32x8::combine(first, second);
  });
}

// A twinned run: the common shapes fully unrolled (2-7 shared, 0-2 singles), any other at run time.
void sweep_twinned(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  const std::size_t g = begin / kLanes;
  const std::uint32_t shared = rows.shared[g], singles = rows.widths[g];
  switch (singles < 8 ? shared * 8 + singles : 0) {
    // The cases, laid out as a table:
    // clang-format off
#define WOBBLE_TWIN_CASE(S, U) \
  case S * 8 + U: sweep_twin_run<S, U>(rows, in, out, begin, end); return;
#define WOBBLE_TWIN_CASES(S) WOBBLE_TWIN_CASE(S, 0) WOBBLE_TWIN_CASE(S, 1) WOBBLE_TWIN_CASE(S, 2)
    WOBBLE_TWIN_CASES(2) WOBBLE_TWIN_CASES(3) WOBBLE_TWIN_CASES(4) WOBBLE_TWIN_CASES(5) WOBBLE_TWIN_CASES(6)
    WOBBLE_TWIN_CASES(7)
#undef WOBBLE_TWIN_CASES
#undef WOBBLE_TWIN_CASE
    default: sweep_twin_any(rows, in, out, begin, end); return;
    // clang-format on
  }
}

template <bool kUniform>
void sweep_unpaired(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  switch (rows.widths[begin / kLanes]) {
    // The cases, laid out as a table:
    // clang-format off
#define WOBBLE_SWEEP_CASE(W) \
  case W: sweep_run<W, kUniform>(rows, in, out, begin, end); break;
    WOBBLE_SWEEP_CASE(1) WOBBLE_SWEEP_CASE(2) WOBBLE_SWEEP_CASE(3) WOBBLE_SWEEP_CASE(4) WOBBLE_SWEEP_CASE(5)
    WOBBLE_SWEEP_CASE(6) WOBBLE_SWEEP_CASE(7) WOBBLE_SWEEP_CASE(8) WOBBLE_SWEEP_CASE(9) WOBBLE_SWEEP_CASE(10)
#undef WOBBLE_SWEEP_CASE
    default: sweep_run<0, kUniform>(rows, in, out, begin, end); break;
    // clang-format on
  }
}

template <bool kUniform>
void sweep_rows(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  for (std::size_t g = begin / kLanes; g * kLanes < end;) {
    std::size_t next = g + 1;
    if (!rows.run_ends.empty()) {
      next = rows.run_ends[g];
    } else {
      while (next * kLanes < end && rows.same_shape(g, next)) ++next;
    }
    const std::size_t run_end = std::min(end, next * kLanes);
    if (kUniform && rows.twinned(g)) {
      sweep_twinned(rows, in, out, g * kLanes, run_end);
    } else if (kUniform && !rows.pairs.empty() && rows.pairs[g] > 0) {
      sweep_paired(rows, in, out, g * kLanes, run_end);
    } else {
      sweep_unpaired<kUniform>(rows, in, out, g * kLanes, run_end);
    }
    g = next;
  }
}

void sweep(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  if (rows.weights.empty()) {
    sweep_rows<true>(rows, in, out, begin, end);
  } else {
    sweep_rows<false>(rows, in, out, begin, end);
  }
}

// ---- the folded skin ----

// Per entry: the matrix as two registers (columns 0-1, 2-3) times (x x x x y y y y) and
// (z z z z w w w w); two accumulators so that consecutive entries do not wait on each other.
void blend(const SmoothedSkin& skin, const float* palette, const float* centre4, float* out, std::size_t begin,
           std::size_t end) {
  const f32x4 centre = f32x4::load(centre4);
  const std::uint32_t* offsets = skin.offsets.data();
  const std::uint32_t* joints = skin.palette_offsets.data();
  const float* q = skin.q.data();
  for (std::size_t i = begin; i < end; ++i) {
    f32x8 a = f32x8::zero(), b = f32x8::zero();
    for (std::uint32_t e = offsets[i]; e < offsets[i + 1]; ++e) {
      const float* m = palette + joints[e];
      const float* qe = q + 4 * std::size_t(e);
      a = fma(f32x8::load(m), f32x8::combine(f32x4::splat(qe[0]), f32x4::splat(qe[1])), a);
      b = fma(f32x8::load(m + 8), f32x8::combine(f32x4::splat(qe[2]), f32x4::splat(qe[3])), b);
    }
    const f32x8 ab = a + b;
    fma(centre, f32x4::splat(skin.excess[i]), ab.low() + ab.high()).store_aligned(out + 4 * i);
  }
}

}  // namespace

extern const Table table = {restore, restore_points, sweep, blend};

}  // namespace wobble::mush::WOBBLE_SIMD_ISA
