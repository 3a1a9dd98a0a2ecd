#pragma once
// Delta Mush's hot loops (wobble mode): the smoothing sweeps and the detail restoration in
// per-corner frames. The data layouts and dispatching functions are in delta_mush_layout.cpp
// (with the scalar reference loops), the SIMD variants in delta_mush_kernels.cpp (compiled once
// per instruction set). Positions are float4 rows (x, y, z, 0): one vertex is one 128-bit load.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "simd/isa.hpp"

namespace wobble {
class ThreadPool;
}

namespace wobble::mush {

// Vertices per group in CornerBlocks: one AVX2 register of lanes.
constexpr std::size_t kLanes = 8;

// Corners laid out for kLanes vertices at a time (ELLPACK-style, structure of arrays), each
// vertex's corners chained around its fan: corner (s, a_k, a_k+1) and the next one (s, a_k+1,
// a_k+2) share a point, so a chain of m corners reads m + 1 points instead of 2 m. Group g covers
// vertices [8 g, 8 g + 8) and owns slots [slot_offsets[g], slot_offsets[g + 1]) and the point rows
// [slot_offsets[g] + g, slot_offsets[g + 1] + g + 1) (one more than its slots). Slot s of lane l
// is the corner (the triangle's next corner, its previous corner) = (point row s + g, point row
// s + g + 1) of lane l; dx, dy, dz (entry 8 s + l) hold the corner's delta in its frame,
// premultiplied by the corner's weight. Where a fan is open or broken (boundaries, dropped
// degenerate corners, non-manifold fans), a bridging slot joins two chains, and lanes with fewer
// slots end on the vertex itself: such slots have a zero delta and contribute exactly zero.
struct CornerBlocks {
  std::vector<std::uint32_t> slot_offsets{0};
  std::vector<std::uint32_t> points;
  std::vector<float> dx, dy, dz;
  std::vector<std::uint8_t>
      is_corner;  // per entry: 1 for a corner, 0 for a bridge or padding (not read by the kernels)

  // From per-vertex corner lists (CSR offsets over vertex_count vertices; delta4: x, y, z, 0
  // per corner). Groups are ordered by vertex; the last group is padded past vertex_count.
  static CornerBlocks from_corners(std::size_t vertex_count, std::span<const std::uint32_t> offsets,
                                   std::span<const std::uint32_t> next, std::span<const std::uint32_t> prev,
                                   std::span<const float> delta4);
  std::size_t group_count() const { return slot_offsets.size() - 1; }
  // Lane 0's point of group g's first slot (the next corner of that slot).
  const std::uint32_t* group_points(std::size_t g) const { return points.data() + (slot_offsets[g] + g) * kLanes; }
};

// Rows a float4 buffer needs for vertex_count vertices: whole groups of kLanes.
inline std::size_t padded_rows(std::size_t vertex_count) { return (vertex_count + kLanes - 1) / kLanes * kLanes; }

// out_i = s_i + sum_c F_c(s) d_c for the groups of vertices [begin, end) (begin a multiple of
// kLanes; the whole last group is written, so out has padded_rows() rows). F_c: X = unit edge
// to the next corner, Z = unit normal of the corner's triangle, Y = Z x X; a degenerate edge or
// normal contributes nothing along it.
void restore_details(const CornerBlocks& blocks, const float* s, float* out, std::size_t begin, std::size_t end);
// The same restored points plus centre4 (x, y, z, 0) written straight into points (x, y, z per
// vertex, vertex_count of them) for the vertices whose keep flag is 0, the others untouched: the
// frame's scatter fused into the restoration where the weld is the identity.
void restore_points(const CornerBlocks& blocks, const float* s, const float* centre4,
                    std::span<const std::uint8_t> keep, std::span<float> points, std::size_t begin, std::size_t end);

// The smoothing operator's rows in groups of kLanes vertices that share one width (sliced
// ELLPACK): group g's vertex i (lane l) has its neighbours at columns[offsets[g] + l * width[g]
// + k], k < width[g], stored as float offsets (4 x index) into a float4 buffer. Short rows are
// padded with zero_row, a row that stays zero in every buffer, and weight 0. Fixed widths let the
// sweep run fully unrolled loops. After plan_pairs, the first pairs[g] entries of each lane of
// group g are pairs: the column names two consecutive rows j, j + 1 that are both neighbours,
// read with one 32-byte load (padding: zero_row, whose next row stays zero too).
// After plan_twins, a group g with shared[g] > 0 is laid out by twins instead: lanes 2t and 2t + 1
// (vertices i and i + 1, rows side by side) share entries. Twin t's shared[g] + 2 widths[g]
// entries start at offsets[g] + t (shared[g] + 2 widths[g]): first shared[g] columns j that name
// row j for i and row j + 1 for i + 1 (one 32-byte load for both, and one for their own rows and
// one store), then widths[g] single rows of i, then widths[g] of i + 1. On a mesh whose vertex
// order repeats its stencil (a grid, rings stored in order) most neighbours are shared.
struct SweepRows {
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> widths;
  std::vector<std::uint32_t> pairs;   // per group; empty: no pairs
  std::vector<std::uint32_t> shared;  // per group; empty: no twins
  std::vector<std::uint32_t> columns;
  std::vector<float> weights;  // empty for uniform rows
  // Per vertex (self_i, uniform_i), side by side so that one load brings both: new_i = self_i p_i
  // + uniform_i sum_j p_j (uniform rows) or self_i p_i + sum_j w_ij p_j (weighted rows).
  std::vector<float> vertex_weights;
  std::uint32_t zero_row = 0;
  // For sweeps as a wavefront (smooth_wavefront): vertices per chunk, at least the mesh's index
  // bandwidth; 0 where the wavefront does not pay (plan_wavefront).
  std::uint32_t chunk = 0;
  // Per group: the first group after its run of same-shape groups (plan_runs), so that a sweep
  // does not compare shapes group by group; empty: the sweep finds the runs itself.
  std::vector<std::uint32_t> run_ends;

  // Visits vertex i's neighbours as (row j, its weight w_ij: uniform_i for uniform rows), a pair
  // as both rows.
  template <typename Visit>
  void for_each_neighbour(std::size_t i, Visit&& visit) const {
    if (twinned(i / kLanes)) return for_each_twin_neighbour(i, visit);
    const std::size_t g = i / kLanes, first = offsets[g] + (i % kLanes) * widths[g];
    const std::size_t pair_end = first + (pairs.empty() ? 0 : pairs[g]);
    for (std::size_t k = first; k < first + widths[g]; ++k) {
      const std::uint32_t j = columns[k] / 4;
      if (j == zero_row) continue;  // padding
      const float w = weights.empty() ? uniform(i) : weights[k];
      visit(j, w);
      if (k < pair_end) visit(j + 1, w);
    }
  }

  bool twinned(std::size_t g) const { return !shared.empty() && shared[g] > 0; }
  // Whether groups g and h have the same shape (width, pairs, shared): one kernel runs both.
  bool same_shape(std::size_t g, std::size_t h) const {
    return widths[g] == widths[h] && (pairs.empty() || pairs[g] == pairs[h]) &&
           (shared.empty() || shared[g] == shared[h]);
  }
  // Row loads one sweep of all vertices makes (a pair or a shared entry is one load).
  std::size_t row_loads() const;

  float self(std::size_t i) const { return vertex_weights[2 * i]; }
  float uniform(std::size_t i) const { return vertex_weights[2 * i + 1]; }
  std::size_t vertex_count() const { return vertex_weights.size() / 2; }

  // From CSR rows (row_weights empty: uniform) and per-vertex self and uniform weights. zero_row
  // must be a row past the vertices.
  template <typename Visit>
  void for_each_twin_neighbour(std::size_t i, Visit& visit) const {
    const std::size_t g = i / kLanes, side = i % 2, singles = widths[g];
    const std::size_t first = offsets[g] + (i % kLanes / 2) * (shared[g] + 2 * singles);
    for (std::size_t k = first; k < first + shared[g]; ++k) {
      if (columns[k] / 4 != zero_row) visit(columns[k] / 4 + std::uint32_t(side), uniform(i));
    }
    const std::size_t own = first + shared[g] + side * singles;
    for (std::size_t k = own; k < own + singles; ++k) {
      if (columns[k] / 4 != zero_row) visit(columns[k] / 4, uniform(i));
    }
  }

  static SweepRows from_csr(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> columns,
                            std::span<const float> row_weights, std::span<const float> self,
                            std::span<const float> uniform, std::uint32_t zero_row);
};

// One Jacobi sweep over vertices [begin, end) (begin a multiple of kLanes):
// uniform rows: out_i = self_i in_i + uniform_i sum_j in_j; weighted: self_i in_i + sum_j w_ij in_j.
void sweep(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end);

// Sets chunk when the mesh is large enough for its two full buffers to leave the core's cache and
// its index bandwidth (max |i - j|) small enough that a wavefront of `iterations` sweeps keeps
// its working set there. Returns whether it did. Any layout.
bool plan_wavefront(SweepRows& rows, int iterations);

// Lays uniform rows out in pairs where a vertex has two neighbours side by side in memory (rows
// j and j + 1): the sweep is bound by load instructions, and a pair is one load. Per group it
// keeps the number of leading pair entries that needs the fewest loads over its lanes (a lane
// with more pairs reads its others as two single rows). Not for weighted rows. Returns how many
// entries (loads per sweep) it saved in all.
std::size_t plan_pairs(SweepRows& rows);

// Lays out as twins (see SweepRows) the whole groups of uniform rows where that needs no more
// row loads than their present layout: per twin (i, i + 1), the neighbours j of i whose shifted
// row j + 1 neighbours i + 1 are shared; per group the number of shared entries with the fewest
// loads over its twins. Not for weighted rows. Returns the row loads it saved in all.
std::size_t plan_twins(SweepRows& rows);

// Sets run_ends from the groups' shapes (widths, pairs, shared). Any layout; plan_pairs and
// plan_twins clear it, as they change the shapes.
void plan_runs(SweepRows& rows);

// What bind lays out for `iterations` sweeps: pairs and twins (plan_pairs, plan_twins: uniform
// rows), the wavefront's chunk where it pays (plan_wavefront), and the runs (plan_runs).
void plan_layout(SweepRows& rows, int iterations);

// `iterations` sweeps between the two full buffers a and b (sweep k reads a where k is odd and
// writes b, and the other way round), as a wavefront over chunks of rows.chunk vertices: sweep k
// runs one chunk behind sweep k - 1, so each chunk is swept while its neighbours' rows are still
// in cache. Chunks at least as long as the index bandwidth keep every row a sweep reads written by
// the sweep before it and not yet overwritten by the one after: the arithmetic and the result are
// exactly those of `iterations` sweep() calls.
void smooth_wavefront(const SweepRows& rows, float* a, float* b, int iterations);
// The same sweeps, the same bytes, pipelined over the pool's threads: each thread runs a group of
// consecutive sweeps as a wavefront of its own, a few chunks behind the group before it
// (delta_mush_wavefront.cpp).
void smooth_wavefront(const SweepRows& rows, float* a, float* b, int iterations, ThreadPool& pool);

// Delta Mush's sweeps folded into a linear blend skin (DeltaMush::fold_skin): per welded vertex
// i, compressed rows of smoothed influences, entries [offsets[i], offsets[i + 1]): the joint as a
// float offset into the palette (16 x joint) and q = (x, y, z, w) = sum_l (S^k)_il w_lj [u_l - c0; 1]
// (c0: the rest centroid). excess[i] = sum of the row's w - 1 (skin weights may sum to 1 +- 1e-3).
struct SmoothedSkin {
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> palette_offsets;
  std::vector<float> q;
  std::vector<float> excess;
  std::size_t joint_count = 0;
  double rest_centre[3] = {0, 0, 0};
  // Per joint: (1/N) sum_v w_vj [u_v; 1] over the original vertices, so that sum_j T_j m_j is the
  // centroid of the LBS positions (the frame's centre, for precision far from the origin).
  std::vector<double> joint_moments;
  std::size_t vertex_count() const { return offsets.size() - 1; }
};

// out_i = sum_k palette[k] q_k + excess_i centre (float4 rows, w = 0) for welded vertices
// [begin, end): palette holds per joint a column-major 4x4 (row 3 zero) whose last column is the
// joint's translation for points relative to c0, minus centre.
void blend_smoothed(const SmoothedSkin& skin, const float* palette, const float* centre4, float* out, std::size_t begin,
                    std::size_t end);

// ---- the kernels behind the functions above ----

struct Table {
  // restore_details over whole groups [group_begin, group_end).
  void (*restore)(const CornerBlocks& blocks, const float* s, float* out, std::size_t group_begin,
                  std::size_t group_end);
  // restore_points over whole groups [group_begin, group_end) of vertex_count vertices.
  void (*restore_points)(const CornerBlocks& blocks, const float* s, const float* centre4, const std::uint8_t* keep,
                         std::size_t vertex_count, float* points, std::size_t group_begin, std::size_t group_end);
  // sweep().
  void (*sweep)(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end);
  // blend_smoothed.
  void (*blend)(const SmoothedSkin& skin, const float* palette, const float* centre4, float* out, std::size_t begin,
                std::size_t end);
};
WOBBLE_SIMD_TABLES

}  // namespace wobble::mush
