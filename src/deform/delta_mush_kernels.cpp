#include "deform/delta_mush_kernels.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <immintrin.h>

namespace wobble::mush {

namespace {

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// ---- detail restoration ----
//
// Per corner, with a = next - s, b = prev - s, n = a x b, written without normalising first:
//   F d = a (dx / |a|) + (n x a) (dy / (|n| |a|)) + n (dz / |n|).

void restore_scalar(const CornerBlocks& blocks, const float* s, float* out, std::size_t group_begin,
                    std::size_t group_end) {
  auto inverse_length = [](float squared) { return squared > FLT_MIN ? 1.0f / std::sqrt(squared) : 0.0f; };
  for (std::size_t g = group_begin; g < group_end; ++g) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t i = g * kLanes + l;
      const float sx = s[4 * i], sy = s[4 * i + 1], sz = s[4 * i + 2];
      float rx = 0, ry = 0, rz = 0;
      for (std::size_t slot = blocks.slot_offsets[g]; slot < blocks.slot_offsets[g + 1]; ++slot) {
        const std::size_t c = slot * kLanes + l;
        const float* pn = s + 4 * std::size_t(blocks.next[c]);
        const float* pp = s + 4 * std::size_t(blocks.prev[c]);
        const float ax = pn[0] - sx, ay = pn[1] - sy, az = pn[2] - sz;
        const float bx = pp[0] - sx, by = pp[1] - sy, bz = pp[2] - sz;
        const float nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
        const float ia = inverse_length(ax * ax + ay * ay + az * az);
        const float in = inverse_length(nx * nx + ny * ny + nz * nz);
        const float kx = blocks.dx[c] * ia, ky = blocks.dy[c] * ia * in, kz = blocks.dz[c] * in;
        const float yx = ny * az - nz * ay, yy = nz * ax - nx * az, yz = nx * ay - ny * ax;
        rx += ax * kx + yx * ky + nx * kz;
        ry += ay * kx + yy * ky + ny * kz;
        rz += az * kx + yz * ky + nz * kz;
      }
      out[4 * i] = sx + rx, out[4 * i + 1] = sy + ry, out[4 * i + 2] = sz + rz, out[4 * i + 3] = 0.0f;
    }
  }
}

struct Soa3 {
  __m256 x, y, z;
};

// Eight float4 rows (pointers) to x, y, z registers (lane l = row l).
__attribute__((target("avx2,fma"))) inline Soa3 load_transposed(const float* r0, const float* r1, const float* r2,
                                                               const float* r3, const float* r4, const float* r5,
                                                               const float* r6, const float* r7) {
  const __m256 t0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(r0)), _mm_loadu_ps(r4), 1);
  const __m256 t1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(r1)), _mm_loadu_ps(r5), 1);
  const __m256 t2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(r2)), _mm_loadu_ps(r6), 1);
  const __m256 t3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(r3)), _mm_loadu_ps(r7), 1);
  const __m256 u0 = _mm256_unpacklo_ps(t0, t1);  // x0 x1 y0 y1 | x4 x5 y4 y5
  const __m256 u1 = _mm256_unpackhi_ps(t0, t1);  // z0 z1 w0 w1 | ...
  const __m256 u2 = _mm256_unpacklo_ps(t2, t3);  // x2 x3 y2 y3 | ...
  const __m256 u3 = _mm256_unpackhi_ps(t2, t3);
  return {_mm256_shuffle_ps(u0, u2, 0x44), _mm256_shuffle_ps(u0, u2, 0xEE), _mm256_shuffle_ps(u1, u3, 0x44)};
}

__attribute__((target("avx2,fma"))) inline Soa3 gather_rows(const float* s, const std::uint32_t* index) {
  return load_transposed(s + 4 * std::size_t(index[0]), s + 4 * std::size_t(index[1]), s + 4 * std::size_t(index[2]),
                         s + 4 * std::size_t(index[3]), s + 4 * std::size_t(index[4]), s + 4 * std::size_t(index[5]),
                         s + 4 * std::size_t(index[6]), s + 4 * std::size_t(index[7]));
}

// 1/sqrt(x) to about float precision (estimate plus one Newton step); 0 where x <= FLT_MIN.
__attribute__((target("avx2,fma"))) inline __m256 inverse_length(__m256 squared) {
  const __m256 y = _mm256_rsqrt_ps(squared);
  const __m256 half_x = _mm256_mul_ps(_mm256_set1_ps(0.5f), squared);
  const __m256 refined = _mm256_mul_ps(y, _mm256_fnmadd_ps(half_x, _mm256_mul_ps(y, y), _mm256_set1_ps(1.5f)));
  return _mm256_and_ps(refined, _mm256_cmp_ps(squared, _mm256_set1_ps(FLT_MIN), _CMP_GT_OQ));
}

__attribute__((target("avx2,fma"))) void restore_avx2(const CornerBlocks& blocks, const float* s, float* out,
                                                      std::size_t group_begin, std::size_t group_end) {
  for (std::size_t g = group_begin; g < group_end; ++g) {
    const float* own = s + 4 * kLanes * g;
    const Soa3 p = load_transposed(own, own + 4, own + 8, own + 12, own + 16, own + 20, own + 24, own + 28);
    __m256 rx = _mm256_setzero_ps(), ry = _mm256_setzero_ps(), rz = _mm256_setzero_ps();
    for (std::size_t slot = blocks.slot_offsets[g]; slot < blocks.slot_offsets[g + 1]; ++slot) {
      const std::size_t c = slot * kLanes;
      const Soa3 pn = gather_rows(s, blocks.next.data() + c);
      const Soa3 pp = gather_rows(s, blocks.prev.data() + c);
      const __m256 ax = _mm256_sub_ps(pn.x, p.x), ay = _mm256_sub_ps(pn.y, p.y), az = _mm256_sub_ps(pn.z, p.z);
      const __m256 bx = _mm256_sub_ps(pp.x, p.x), by = _mm256_sub_ps(pp.y, p.y), bz = _mm256_sub_ps(pp.z, p.z);
      const __m256 nx = _mm256_fmsub_ps(ay, bz, _mm256_mul_ps(az, by));
      const __m256 ny = _mm256_fmsub_ps(az, bx, _mm256_mul_ps(ax, bz));
      const __m256 nz = _mm256_fmsub_ps(ax, by, _mm256_mul_ps(ay, bx));
      const __m256 aa = _mm256_fmadd_ps(ax, ax, _mm256_fmadd_ps(ay, ay, _mm256_mul_ps(az, az)));
      const __m256 nn = _mm256_fmadd_ps(nx, nx, _mm256_fmadd_ps(ny, ny, _mm256_mul_ps(nz, nz)));
      const __m256 ia = inverse_length(aa), in = inverse_length(nn);
      const __m256 kx = _mm256_mul_ps(_mm256_loadu_ps(blocks.dx.data() + c), ia);
      const __m256 ky = _mm256_mul_ps(_mm256_loadu_ps(blocks.dy.data() + c), _mm256_mul_ps(ia, in));
      const __m256 kz = _mm256_mul_ps(_mm256_loadu_ps(blocks.dz.data() + c), in);
      const __m256 yx = _mm256_fmsub_ps(ny, az, _mm256_mul_ps(nz, ay));
      const __m256 yy = _mm256_fmsub_ps(nz, ax, _mm256_mul_ps(nx, az));
      const __m256 yz = _mm256_fmsub_ps(nx, ay, _mm256_mul_ps(ny, ax));
      rx = _mm256_fmadd_ps(ax, kx, _mm256_fmadd_ps(yx, ky, _mm256_fmadd_ps(nx, kz, rx)));
      ry = _mm256_fmadd_ps(ay, kx, _mm256_fmadd_ps(yy, ky, _mm256_fmadd_ps(ny, kz, ry)));
      rz = _mm256_fmadd_ps(az, kx, _mm256_fmadd_ps(yz, ky, _mm256_fmadd_ps(nz, kz, rz)));
    }
    const __m256 x = _mm256_add_ps(p.x, rx), y = _mm256_add_ps(p.y, ry), z = _mm256_add_ps(p.z, rz);
    // Back to float4 rows: (x, y, z, 0) per lane.
    const __m256 zero = _mm256_setzero_ps();
    const __m256 u0 = _mm256_unpacklo_ps(x, y), u1 = _mm256_unpackhi_ps(x, y);
    const __m256 u2 = _mm256_unpacklo_ps(z, zero), u3 = _mm256_unpackhi_ps(z, zero);
    const __m256 a0 = _mm256_shuffle_ps(u0, u2, 0x44), a1 = _mm256_shuffle_ps(u0, u2, 0xEE);
    const __m256 a2 = _mm256_shuffle_ps(u1, u3, 0x44), a3 = _mm256_shuffle_ps(u1, u3, 0xEE);
    float* o = out + 4 * kLanes * g;
    _mm256_storeu_ps(o, _mm256_permute2f128_ps(a0, a1, 0x20));
    _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(a2, a3, 0x20));
    _mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(a0, a1, 0x31));
    _mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(a2, a3, 0x31));
  }
}

}  // namespace

CornerBlocks CornerBlocks::from_corners(std::size_t vertex_count, std::span<const std::uint32_t> offsets,
                                        std::span<const std::uint32_t> next, std::span<const std::uint32_t> prev,
                                        std::span<const float> delta4) {
  CornerBlocks blocks;
  const std::size_t groups = padded_rows(vertex_count) / kLanes;
  blocks.slot_offsets.assign(groups + 1, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    std::uint32_t slots = 0;
    for (std::size_t i = g * kLanes; i < std::min(vertex_count, (g + 1) * kLanes); ++i) {
      slots = std::max(slots, offsets[i + 1] - offsets[i]);
    }
    blocks.slot_offsets[g + 1] = blocks.slot_offsets[g] + slots;
  }
  const std::size_t entries = std::size_t(blocks.slot_offsets.back()) * kLanes;
  blocks.next.assign(entries, 0);
  blocks.prev.assign(entries, 0);
  blocks.dx.assign(entries, 0.0f);
  blocks.dy.assign(entries, 0.0f);
  blocks.dz.assign(entries, 0.0f);
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t i = g * kLanes + l;
      const std::uint32_t first = i < vertex_count ? offsets[i] : 0, count = i < vertex_count ? offsets[i + 1] - first : 0;
      for (std::uint32_t slot = blocks.slot_offsets[g], k = 0; slot < blocks.slot_offsets[g + 1]; ++slot, ++k) {
        const std::size_t e = std::size_t(slot) * kLanes + l;
        if (k < count) {
          blocks.next[e] = next[first + k];
          blocks.prev[e] = prev[first + k];
          blocks.dx[e] = delta4[4 * (first + k)];
          blocks.dy[e] = delta4[4 * (first + k) + 1];
          blocks.dz[e] = delta4[4 * (first + k) + 2];
        } else {
          blocks.next[e] = blocks.prev[e] = static_cast<std::uint32_t>(i);
        }
      }
    }
  }
  return blocks;
}

void restore_details(const CornerBlocks& blocks, const float* s, float* out, std::size_t begin, std::size_t end) {
  const std::size_t group_begin = begin / kLanes, group_end = (end + kLanes - 1) / kLanes;
  if (cpu_has_avx2()) {
    restore_avx2(blocks, s, out, group_begin, group_end);
  } else {
    restore_scalar(blocks, s, out, group_begin, group_end);
  }
}

SweepRows SweepRows::from_csr(std::size_t vertex_count, std::span<const std::uint32_t> offsets,
                             std::span<const std::uint32_t> columns, std::span<const float> row_weights,
                             std::uint32_t zero_row) {
  SweepRows rows;
  rows.zero_row = zero_row;
  const std::size_t groups = padded_rows(vertex_count) / kLanes;
  rows.widths.assign(groups, 0);
  rows.offsets.assign(groups + 1, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    std::uint32_t width = 0;
    for (std::size_t i = g * kLanes; i < std::min(vertex_count, (g + 1) * kLanes); ++i) {
      width = std::max(width, offsets[i + 1] - offsets[i]);
    }
    rows.widths[g] = width;
    rows.offsets[g + 1] = rows.offsets[g] + width * kLanes;
  }
  rows.columns.assign(rows.offsets.back(), 4 * zero_row);
  if (!row_weights.empty()) rows.weights.assign(rows.offsets.back(), 0.0f);
  for (std::size_t i = 0; i < vertex_count; ++i) {
    const std::size_t g = i / kLanes, base = rows.offsets[g] + (i % kLanes) * rows.widths[g];
    for (std::uint32_t k = 0; k < offsets[i + 1] - offsets[i]; ++k) {
      rows.columns[base + k] = 4 * columns[offsets[i] + k];
      if (!row_weights.empty()) rows.weights[base + k] = row_weights[offsets[i] + k];
    }
  }
  return rows;
}

namespace {

// Rows are 16-byte aligned (vector storage, 4 floats a row): aligned loads fold into the arithmetic.
inline __m128 row(const float* buffer, std::uint32_t float_offset) { return _mm_load_ps(buffer + float_offset); }

// Where a sweep reads and writes: neighbour columns (full or ring), and the masks that map a
// vertex to its own row in the input and the output (all ones: full buffer; ring_rows - 1: ring).
struct Addressing {
  const std::uint32_t* columns;
  std::uint32_t in_mask, out_mask;
};

// Fully unrolled rows of kWidth neighbours (kWidth = 0: the width given at run time).
template <int kWidth, bool kUniform>
void sweep_group(const SweepRows& rows, const Addressing& at, const float* in, float* out, const float* self,
                 const float* uniform, std::size_t g, std::size_t lane_end) {
  const std::size_t width = kWidth ? kWidth : rows.widths[g];
  const std::uint32_t* columns = at.columns + rows.offsets[g];
  const float* weights = kUniform ? nullptr : rows.weights.data() + rows.offsets[g];
  for (std::size_t l = 0; l < lane_end; ++l, columns += width) {
    const std::size_t i = g * kLanes + l;
    __m128 sum = _mm_setzero_ps();
    if constexpr (kUniform) {
      for (std::size_t k = 0; k < width; ++k) sum = _mm_add_ps(sum, row(in, columns[k]));
      sum = _mm_mul_ps(_mm_set1_ps(uniform[i]), sum);
    } else {
      for (std::size_t k = 0; k < width; ++k) sum = _mm_add_ps(sum, _mm_mul_ps(_mm_set1_ps(weights[k]), row(in, columns[k])));
      weights += width;
    }
    const std::uint32_t own_in = 4 * (std::uint32_t(i) & at.in_mask), own_out = 4 * (std::uint32_t(i) & at.out_mask);
    _mm_store_ps(out + own_out, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(self[i]), row(in, own_in)), sum));
  }
}

template <bool kUniform>
void sweep_rows(const SweepRows& rows, const Addressing& at, const float* in, float* out, const float* self,
                const float* uniform, std::size_t begin, std::size_t end) {
  for (std::size_t g = begin / kLanes; g * kLanes < end; ++g) {
    const std::size_t lanes = std::min(kLanes, end - g * kLanes);
    switch (rows.widths[g]) {
#define WOBBLE_SWEEP_CASE(W) \
  case W: sweep_group<W, kUniform>(rows, at, in, out, self, uniform, g, lanes); break;
      WOBBLE_SWEEP_CASE(1) WOBBLE_SWEEP_CASE(2) WOBBLE_SWEEP_CASE(3) WOBBLE_SWEEP_CASE(4) WOBBLE_SWEEP_CASE(5)
      WOBBLE_SWEEP_CASE(6) WOBBLE_SWEEP_CASE(7) WOBBLE_SWEEP_CASE(8) WOBBLE_SWEEP_CASE(9) WOBBLE_SWEEP_CASE(10)
#undef WOBBLE_SWEEP_CASE
      default: sweep_group<0, kUniform>(rows, at, in, out, self, uniform, g, lanes); break;
    }
  }
}

void sweep_with(const SweepRows& rows, const Addressing& at, const float* in, float* out, const float* self,
                const float* uniform, std::size_t begin, std::size_t end) {
  if (rows.weights.empty()) {
    sweep_rows<true>(rows, at, in, out, self, uniform, begin, end);
  } else {
    sweep_rows<false>(rows, at, in, out, self, uniform, begin, end);
  }
}

}  // namespace

void sweep(const SweepRows& rows, const float* in, float* out, const float* self, const float* uniform,
           std::size_t begin, std::size_t end) {
  sweep_with(rows, {rows.columns.data(), ~0u, ~0u}, in, out, self, uniform, begin, end);
}

bool plan_rings(SweepRows& rows, std::size_t vertex_count) {
  rows.ring_columns.clear();
  rows.ring_rows = rows.chunk = 0;
  std::size_t bandwidth = 0;
  for (std::size_t g = 0; g + 1 < rows.offsets.size(); ++g) {
    for (std::uint32_t k = rows.offsets[g]; k < rows.offsets[g + 1]; ++k) {
      const std::size_t i = g * kLanes + (k - rows.offsets[g]) / std::max<std::uint32_t>(1, rows.widths[g]);
      const std::size_t j = rows.columns[k] / 4;
      if (j != rows.zero_row) bandwidth = std::max(bandwidth, i > j ? i - j : j - i);
    }
  }
  // Chunks at least as long as the bandwidth; the ring holds two chunks plus the bandwidth.
  const std::size_t chunk = std::max<std::size_t>(512, padded_rows(bandwidth));
  std::size_t ring = 1;
  while (ring < 2 * chunk + bandwidth + kLanes) ring *= 2;
  // Worth it when the rings (one per sweep, ~10) fit in a core's cache and are much smaller
  // than the mesh.
  if (ring > 4096 || 4 * ring > vertex_count) return false;
  rows.chunk = static_cast<std::uint32_t>(chunk);
  rows.ring_rows = static_cast<std::uint32_t>(ring);
  rows.ring_columns.resize(rows.columns.size());
  for (std::size_t k = 0; k < rows.columns.size(); ++k) {
    const std::uint32_t j = rows.columns[k] / 4;
    rows.ring_columns[k] = 4 * (j == rows.zero_row ? std::uint32_t(ring) : j & std::uint32_t(ring - 1));
  }
  return true;
}

void smooth_pipelined(const SweepRows& rows, const float* in, float* out, float* rings, int iterations,
                      const float* self, const float* uniform, std::size_t vertex_count) {
  const std::size_t chunk = rows.chunk, ring_floats = 4 * (std::size_t(rows.ring_rows) + kLanes);
  const std::uint32_t mask = rows.ring_rows - 1;
  const std::size_t chunks = (vertex_count + chunk - 1) / chunk;
  for (std::size_t t = 0; t + 1 < chunks + std::size_t(iterations); ++t) {
    for (int k = 1; k <= iterations; ++k) {
      if (t < std::size_t(k - 1) || t - (k - 1) >= chunks) continue;
      const std::size_t begin = (t - (k - 1)) * chunk, end = std::min(vertex_count, begin + chunk);
      const bool first = k == 1, last = k == iterations;
      const Addressing at{first ? rows.columns.data() : rows.ring_columns.data(), first ? ~0u : mask, last ? ~0u : mask};
      const float* source = first ? in : rings + (k - 2) * ring_floats;
      float* target = last ? out : rings + (k - 1) * ring_floats;
      sweep_with(rows, at, source, target, self, uniform, begin, end);
    }
  }
}

namespace {

void blend_scalar(const SmoothedSkin& skin, const float* palette, const float* centre4, float* out, std::size_t begin,
                  std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    float r[3];
    for (int c = 0; c < 3; ++c) r[c] = centre4[c] * skin.excess[i];
    for (std::uint32_t e = skin.offsets[i]; e < skin.offsets[i + 1]; ++e) {
      const float* m = palette + skin.palette_offsets[e];
      const float* q = skin.q.data() + 4 * std::size_t(e);
      for (int c = 0; c < 3; ++c) r[c] += m[c] * q[0] + m[4 + c] * q[1] + m[8 + c] * q[2] + m[12 + c] * q[3];
    }
    out[4 * i] = r[0], out[4 * i + 1] = r[1], out[4 * i + 2] = r[2], out[4 * i + 3] = 0.0f;
  }
}

// Per entry: the matrix as two registers (columns 0-1, 2-3) times (x x x x y y y y) and
// (z z z z w w w w); two accumulators so that consecutive entries do not wait on each other.
__attribute__((target("avx2,fma"))) void blend_avx2(const SmoothedSkin& skin, const float* palette,
                                                    const float* centre4, float* out, std::size_t begin,
                                                    std::size_t end) {
  const __m256i low = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), high = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
  const __m128 centre = _mm_loadu_ps(centre4);
  const std::uint32_t* offsets = skin.offsets.data();
  const std::uint32_t* joints = skin.palette_offsets.data();
  const float* q = skin.q.data();
  for (std::size_t i = begin; i < end; ++i) {
    __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
    for (std::uint32_t e = offsets[i]; e < offsets[i + 1]; ++e) {
      const float* m = palette + joints[e];
      const __m256 qq = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(q + 4 * std::size_t(e)));
      a = _mm256_fmadd_ps(_mm256_loadu_ps(m), _mm256_permutevar8x32_ps(qq, low), a);
      b = _mm256_fmadd_ps(_mm256_loadu_ps(m + 8), _mm256_permutevar8x32_ps(qq, high), b);
    }
    const __m256 ab = _mm256_add_ps(a, b);
    const __m128 sum = _mm_add_ps(_mm256_castps256_ps128(ab), _mm256_extractf128_ps(ab, 1));
    _mm_store_ps(out + 4 * i, _mm_fmadd_ps(centre, _mm_set1_ps(skin.excess[i]), sum));
  }
}

}  // namespace

void blend_smoothed(const SmoothedSkin& skin, const float* palette, const float* centre4, float* out,
                    std::size_t begin, std::size_t end) {
  if (cpu_has_avx2()) {
    blend_avx2(skin, palette, centre4, out, begin, end);
  } else {
    blend_scalar(skin, palette, centre4, out, begin, end);
  }
}

}  // namespace wobble::mush
