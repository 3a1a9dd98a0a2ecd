// Delta Mush's kernel data (corner blocks, sweep rows, their layouts), the scalar reference loops and the
// functions that dispatch to the SIMD variants (delta_mush_kernels.cpp).
#include "deform/delta_mush_kernels.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace wobble::mush {

namespace {

// ---- detail restoration ----
//
// Per corner, with a = next - s, b = prev - s, n = a x b, written without normalising first:
//   F d = a (dx / |a|) + (n x a) (dy / (|n| |a|)) + n (dz / |n|).

// Vertex 8 g + l restored: out[0..2].
void restore_vertex_scalar(const CornerBlocks& blocks, const float* s, std::size_t g, std::size_t l, float* out) {
  auto inverse_length = [](float squared) { return squared > FLT_MIN ? 1.0f / std::sqrt(squared) : 0.0f; };
  const std::uint32_t* points = blocks.group_points(g);
  const std::size_t i = g * kLanes + l;
  const float sx = s[4 * i], sy = s[4 * i + 1], sz = s[4 * i + 2];
  float rx = 0, ry = 0, rz = 0;
  for (std::size_t slot = blocks.slot_offsets[g], k = 0; slot < blocks.slot_offsets[g + 1]; ++slot, ++k) {
    const std::size_t c = slot * kLanes + l;
    const float* pn = s + 4 * std::size_t(points[k * kLanes + l]);
    const float* pp = s + 4 * std::size_t(points[(k + 1) * kLanes + l]);
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
  out[0] = sx + rx, out[1] = sy + ry, out[2] = sz + rz;
}

void restore_scalar(const CornerBlocks& blocks, const float* s, float* out, std::size_t group_begin,
                    std::size_t group_end) {
  for (std::size_t g = group_begin; g < group_end; ++g) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      float* row = out + 4 * (g * kLanes + l);
      restore_vertex_scalar(blocks, s, g, l, row);
      row[3] = 0.0f;
    }
  }
}

void restore_points_scalar(const CornerBlocks& blocks, const float* s, const float* centre4, const std::uint8_t* keep,
                           std::size_t vertex_count, float* points, std::size_t group_begin, std::size_t group_end) {
  for (std::size_t g = group_begin; g < group_end; ++g) {
    for (std::size_t l = 0; l < kLanes && g * kLanes + l < vertex_count; ++l) {
      const std::size_t i = g * kLanes + l;
      if (keep[i]) continue;
      float restored[3];
      restore_vertex_scalar(blocks, s, g, l, restored);
      for (int c = 0; c < 3; ++c) points[3 * i + c] = restored[c] + centre4[c];
    }
  }
}

// One vertex's corners chained around its fan: points p_0, p_1, ... and per slot k (the corner
// (p_k, p_k+1)) the corner it is, or kBridge where the slot only joins two chains. Chains start
// where a fan opens (a corner whose next point is no corner's previous point), then closed fans.
constexpr std::uint32_t kBridge = ~0u;

struct CornerChain {
  std::vector<std::uint32_t> points, corners;
};

CornerChain chain_corners(std::span<const std::uint32_t> next, std::span<const std::uint32_t> prev) {
  const std::size_t m = next.size();
  // Corners by their next point, to follow a chain: after corner c comes a corner whose next is prev[c].
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_next(m);
  for (std::uint32_t c = 0; c < m; ++c) by_next[c] = {next[c], c};
  std::sort(by_next.begin(), by_next.end());
  std::vector<std::uint32_t> sorted_prev(prev.begin(), prev.end());
  std::sort(sorted_prev.begin(), sorted_prev.end());
  std::vector<std::uint8_t> used(m, 0);
  auto unused_with_next = [&](std::uint32_t point) -> std::uint32_t {
    auto it = std::lower_bound(by_next.begin(), by_next.end(), std::make_pair(point, 0u));
    for (; it != by_next.end() && it->first == point; ++it) {
      if (!used[it->second]) return it->second;
    }
    return kBridge;
  };
  CornerChain chain;
  auto follow = [&](std::uint32_t c) {
    if (chain.points.empty()) {
      chain.points.push_back(next[c]);
    } else if (chain.points.back() != next[c]) {
      chain.points.push_back(next[c]);
      chain.corners.push_back(kBridge);
    }
    for (; c != kBridge; c = unused_with_next(prev[c])) {
      used[c] = 1;
      chain.points.push_back(prev[c]);
      chain.corners.push_back(c);
    }
  };
  for (std::uint32_t c = 0; c < m; ++c) {  // open fans first
    if (!used[c] && !std::binary_search(sorted_prev.begin(), sorted_prev.end(), next[c])) follow(c);
  }
  for (std::uint32_t c = 0; c < m; ++c) {
    if (!used[c]) follow(c);
  }
  return chain;
}

}  // namespace

CornerBlocks CornerBlocks::from_corners(std::size_t vertex_count, std::span<const std::uint32_t> offsets,
                                        std::span<const std::uint32_t> next, std::span<const std::uint32_t> prev,
                                        std::span<const float> delta4) {
  CornerBlocks blocks;
  const std::size_t groups = padded_rows(vertex_count) / kLanes;
  blocks.slot_offsets.assign(groups + 1, 0);
  std::array<CornerChain, kLanes> chains;
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t slots = 0;
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t i = g * kLanes + l;
      const std::size_t first = i < vertex_count ? offsets[i] : 0,
                        count = i < vertex_count ? offsets[i + 1] - first : 0;
      chains[l] = chain_corners(next.subspan(first, count), prev.subspan(first, count));
      slots = std::max(slots, chains[l].corners.size());
    }
    blocks.slot_offsets[g + 1] = blocks.slot_offsets[g] + static_cast<std::uint32_t>(slots);
    // This group's point rows and slots, appended.
    const std::size_t point_base = blocks.points.size(), slot_base = blocks.dx.size();
    blocks.points.resize(point_base + (slots + 1) * kLanes);
    for (auto* d : {&blocks.dx, &blocks.dy, &blocks.dz}) d->resize(slot_base + slots * kLanes, 0.0f);
    blocks.is_corner.resize(slot_base + slots * kLanes, 0);
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t i = g * kLanes + l;
      const CornerChain& chain = chains[l];
      for (std::size_t k = 0; k <= slots; ++k) {  // past its chain, a lane rests on the vertex itself
        blocks.points[point_base + k * kLanes + l] =
            k < chain.points.size() ? chain.points[k] : static_cast<std::uint32_t>(i);
      }
      for (std::size_t k = 0; k < chain.corners.size(); ++k) {
        if (chain.corners[k] == kBridge) continue;
        const std::size_t corner = offsets[i] + chain.corners[k], e = slot_base + k * kLanes + l;
        blocks.dx[e] = delta4[4 * corner];
        blocks.dy[e] = delta4[4 * corner + 1];
        blocks.dz[e] = delta4[4 * corner + 2];
        blocks.is_corner[e] = 1;
      }
    }
  }
  return blocks;
}

void restore_details(const CornerBlocks& blocks, const float* s, float* out, std::size_t begin, std::size_t end) {
  table().restore(blocks, s, out, begin / kLanes, (end + kLanes - 1) / kLanes);
}

void restore_points(const CornerBlocks& blocks, const float* s, const float* centre4,
                    std::span<const std::uint8_t> keep, std::span<float> points, std::size_t begin, std::size_t end) {
  const std::size_t vertex_count = points.size() / 3;
  if (keep.size() != vertex_count) throw std::logic_error("restore_points: one keep flag per point");
  table().restore_points(blocks, s, centre4, keep.data(), vertex_count, points.data(), begin / kLanes,
                         (end + kLanes - 1) / kLanes);
}

SweepRows SweepRows::from_csr(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> columns,
                              std::span<const float> row_weights, std::span<const float> self,
                              std::span<const float> uniform, std::uint32_t zero_row) {
  SweepRows rows;
  const std::size_t vertex_count = offsets.size() - 1;
  rows.zero_row = zero_row;
  rows.vertex_weights.resize(2 * vertex_count);
  for (std::size_t i = 0; i < vertex_count; ++i) {
    rows.vertex_weights[2 * i] = self[i];
    rows.vertex_weights[2 * i + 1] = uniform[i];
  }
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

// One lane's neighbours as pairs of consecutive rows (j, j + 1) and single rows, from its sorted
// neighbour rows: a run of m consecutive rows gives m / 2 pairs.
struct LanePairs {
  std::vector<std::uint32_t> pairs, singles;
};

LanePairs pair_up(std::vector<std::uint32_t> rows) {
  std::sort(rows.begin(), rows.end());
  LanePairs lane;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (k + 1 < rows.size() && rows[k + 1] == rows[k] + 1) {
      lane.pairs.push_back(rows[k++]);
    } else {
      lane.singles.push_back(rows[k]);
    }
  }
  return lane;
}

// Loads per lane when every lane of a group has `pairs` pair entries (more: split into singles).
std::size_t group_loads(const std::array<LanePairs, kLanes>& lanes, std::size_t pairs) {
  std::size_t singles = 0;
  for (const LanePairs& lane : lanes) {
    const std::size_t split = lane.pairs.size() > pairs ? lane.pairs.size() - pairs : 0;
    singles = std::max(singles, lane.singles.size() + 2 * split);
  }
  return pairs + singles;
}

// Lane l of group g (a vertex, or padding past the last one): its neighbours' rows, paired up.
LanePairs lane_pairs(const SweepRows& rows, std::size_t g, std::size_t l) {
  std::vector<std::uint32_t> neighbours;
  const std::size_t i = g * kLanes + l;
  if (i < rows.vertex_count()) rows.for_each_neighbour(i, [&](std::uint32_t j, float) { neighbours.push_back(j); });
  return pair_up(std::move(neighbours));
}

// A lane's `width` entries as float offsets: its first `pairs` pairs, then the rest of its pairs
// as two singles each, then its singles; zero_row pads both parts.
void append_entries(const LanePairs& lane, std::size_t pairs, std::size_t width, std::uint32_t zero_row,
                    std::vector<std::uint32_t>& columns) {
  std::vector<std::uint32_t> entries(width, zero_row);
  std::size_t next = pairs;
  for (std::size_t k = 0; k < lane.pairs.size(); ++k) {
    if (k < pairs) {
      entries[k] = lane.pairs[k];
    } else {
      entries[next++] = lane.pairs[k];
      entries[next++] = lane.pairs[k] + 1;
    }
  }
  for (std::uint32_t j : lane.singles) entries[next++] = j;
  for (std::uint32_t j : entries) columns.push_back(4 * j);
}

}  // namespace

std::size_t plan_pairs(SweepRows& rows) {
  if (!rows.weights.empty() || !rows.pairs.empty()) return 0;
  const std::size_t groups = rows.widths.size();
  SweepRows paired;
  paired.zero_row = rows.zero_row;
  paired.vertex_weights = rows.vertex_weights;
  paired.widths.assign(groups, 0);
  paired.pairs.assign(groups, 0);
  paired.offsets = std::vector<std::uint32_t>(groups + 1, 0);
  std::size_t saved = 0;
  std::array<LanePairs, kLanes> lanes;
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t most_pairs = 0;
    for (std::size_t l = 0; l < kLanes; ++l) {
      lanes[l] = lane_pairs(rows, g, l);
      most_pairs = std::max(most_pairs, lanes[l].pairs.size());
    }
    std::size_t pairs = 0;  // the count with the fewest loads (ties: fewer pairs)
    for (std::size_t p = 1; p <= most_pairs; ++p) {
      if (group_loads(lanes, p) < group_loads(lanes, pairs)) pairs = p;
    }
    const std::size_t width = group_loads(lanes, pairs);
    saved += (rows.widths[g] - width) * kLanes;
    paired.pairs[g] = static_cast<std::uint32_t>(pairs);
    paired.widths[g] = static_cast<std::uint32_t>(width);
    paired.offsets[g + 1] = paired.offsets[g] + static_cast<std::uint32_t>(width * kLanes);
    for (const LanePairs& lane : lanes) append_entries(lane, pairs, width, rows.zero_row, paired.columns);
  }
  if (saved == 0) return 0;
  rows = std::move(paired);
  return saved;
}

namespace {

// Twin (i, i + 1)'s neighbours: rows j of i whose row j + 1 neighbours i + 1 (shared), and the
// rest of each (first: of i, second: of i + 1).
struct TwinRows {
  std::vector<std::uint32_t> shared, first, second;
};

std::vector<std::uint32_t> sorted_neighbours(const SweepRows& rows, std::size_t i) {
  std::vector<std::uint32_t> neighbours;
  rows.for_each_neighbour(i, [&](std::uint32_t j, float) { neighbours.push_back(j); });
  std::sort(neighbours.begin(), neighbours.end());
  return neighbours;
}

TwinRows split_twin(const SweepRows& rows, std::size_t i) {
  const std::vector<std::uint32_t> a = sorted_neighbours(rows, i), b = sorted_neighbours(rows, i + 1);
  std::vector<std::uint8_t> taken(b.size(), 0);
  TwinRows twin;
  for (std::uint32_t j : a) {
    auto k = static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), j + 1) - b.begin());
    while (k < b.size() && b[k] == j + 1 && taken[k]) ++k;  // a repeated neighbour: the next copy
    if (k < b.size() && b[k] == j + 1) {
      taken[k] = 1;
      twin.shared.push_back(j);
    } else {
      twin.first.push_back(j);
    }
  }
  for (std::size_t k = 0; k < b.size(); ++k) {
    if (!taken[k]) twin.second.push_back(b[k]);
  }
  return twin;
}

using GroupTwins = std::array<TwinRows, kLanes / 2>;

// Single rows per vertex when every twin of a group has `count` shared entries (more: read as
// singles, fewer: padded).
std::size_t twin_singles(const GroupTwins& twins, std::size_t count) {
  std::size_t singles = 0;
  for (const TwinRows& twin : twins) {
    const std::size_t split = twin.shared.size() > count ? twin.shared.size() - count : 0;
    singles = std::max({singles, twin.first.size() + split, twin.second.size() + split});
  }
  return singles;
}

// A twin's entries as float offsets: `count` shared (zero_row pads), then `singles` of each vertex.
void append_twin(const TwinRows& twin, std::size_t count, std::size_t singles, std::uint32_t zero_row,
                 std::vector<std::uint32_t>& columns) {
  std::vector<std::uint32_t> entries(count + 2 * singles, zero_row);
  std::size_t first = count, second = count + singles;
  for (std::size_t k = 0; k < twin.shared.size(); ++k) {
    if (k < count) {
      entries[k] = twin.shared[k];
    } else {
      entries[first++] = twin.shared[k];
      entries[second++] = twin.shared[k] + 1;
    }
  }
  for (std::uint32_t j : twin.first) entries[first++] = j;
  for (std::uint32_t j : twin.second) entries[second++] = j;
  for (std::uint32_t j : entries) columns.push_back(4 * j);
}

// Group g as twins with the fewest row loads (0 shared: not worth it), and those loads.
std::pair<std::size_t, std::size_t> best_sharing(const GroupTwins& twins) {
  std::size_t most = 0;
  for (const TwinRows& twin : twins) most = std::max(most, twin.shared.size());
  std::size_t count = 0, loads = ~std::size_t(0);
  for (std::size_t c = 1; c <= most; ++c) {
    const std::size_t l = twins.size() * (c + 2 * twin_singles(twins, c));
    if (l < loads) count = c, loads = l;
  }
  return {count, loads};
}

}  // namespace

std::size_t SweepRows::row_loads() const {
  std::size_t loads = 0;
  for (std::size_t g = 0; g < widths.size(); ++g) {
    const std::size_t lanes = std::min(kLanes, vertex_count() - g * kLanes);
    loads += twinned(g) ? kLanes / 2 * (shared[g] + 2 * widths[g]) : lanes * widths[g];
  }
  return loads;
}

std::size_t plan_twins(SweepRows& rows) {
  if (!rows.weights.empty() || !rows.shared.empty()) return 0;
  const std::size_t groups = rows.widths.size(), whole_groups = rows.vertex_count() / kLanes;
  SweepRows twinned = rows;
  twinned.columns.clear();
  twinned.run_ends.clear();
  twinned.shared.assign(groups, 0);
  const std::size_t before = rows.row_loads();
  bool any = false;
  GroupTwins twins;
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t count = 0, loads = 0;
    if (g < whole_groups) {  // twins need both vertices
      for (std::size_t t = 0; t < twins.size(); ++t) twins[t] = split_twin(rows, g * kLanes + 2 * t);
      std::tie(count, loads) = best_sharing(twins);
    }
    // Ties go to twins: they also halve the loads of own rows and the stores.
    if (count > 0 && loads <= kLanes * rows.widths[g]) {
      const std::size_t singles = twin_singles(twins, count);
      for (const TwinRows& twin : twins) append_twin(twin, count, singles, rows.zero_row, twinned.columns);
      twinned.shared[g] = static_cast<std::uint32_t>(count);
      twinned.widths[g] = static_cast<std::uint32_t>(singles);
      if (!twinned.pairs.empty()) twinned.pairs[g] = 0;
      any = true;
    } else {
      twinned.columns.insert(twinned.columns.end(), rows.columns.begin() + rows.offsets[g],
                             rows.columns.begin() + rows.offsets[g + 1]);
    }
    twinned.offsets[g + 1] = static_cast<std::uint32_t>(twinned.columns.size());
  }
  if (!any) return 0;
  rows = std::move(twinned);
  return before - rows.row_loads();
}

namespace {

// One Jacobi sweep, lane by lane (the SIMD variants' arithmetic, one float at a time).
void sweep_scalar(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  const bool uniform_rows = rows.weights.empty();
  for (std::size_t g = begin / kLanes; g * kLanes < end; ++g) {
    const std::size_t width = rows.widths[g], lanes = std::min(kLanes, end - g * kLanes);
    const std::size_t pairs = rows.pairs.empty() ? 0 : rows.pairs[g];
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::size_t i = g * kLanes + l;
      float sum[4] = {0, 0, 0, 0};
      auto add = [&](std::size_t k, float w, std::size_t row) {  // entry k's row (0) or the row after it (1)
        const float* neighbour = in + rows.columns[k] + 4 * row;
        for (int c = 0; c < 4; ++c) sum[c] += uniform_rows ? neighbour[c] : w * neighbour[c];
      };
      if (rows.twinned(g)) {  // uniform rows: shared entries (row j for lane 2t, j + 1 for 2t + 1), then singles
        const std::size_t shared = rows.shared[g], first = rows.offsets[g] + l / 2 * (shared + 2 * width);
        for (std::size_t k = first; k < first + shared; ++k) add(k, 1.0f, l % 2);
        const std::size_t own = first + shared + l % 2 * width;
        for (std::size_t k = own; k < own + width; ++k) add(k, 1.0f, 0);
      } else {
        const std::size_t first = rows.offsets[g] + l * width;
        for (std::size_t k = first; k < first + width; ++k) {
          add(k, uniform_rows ? 1.0f : rows.weights[k], 0);
          if (k < first + pairs) add(k, 1.0f, 1);  // and the row after it
        }
      }
      for (int c = 0; c < 4; ++c) {
        out[4 * i + c] = rows.self(i) * in[4 * i + c] + (uniform_rows ? rows.uniform(i) * sum[c] : sum[c]);
      }
    }
  }
}

}  // namespace

void sweep(const SweepRows& rows, const float* in, float* out, std::size_t begin, std::size_t end) {
  table().sweep(rows, in, out, begin, end);
}

bool plan_wavefront(SweepRows& rows, int iterations) {
  const std::size_t vertex_count = rows.vertex_count();
  rows.chunk = 0;
  std::size_t bandwidth = 0;
  for (std::size_t i = 0; i < vertex_count; ++i) {
    rows.for_each_neighbour(i, [&](std::uint32_t j, float) { bandwidth = std::max(bandwidth, i > j ? i - j : j - i); });
  }
  const std::size_t chunk = std::max<std::size_t>(512, padded_rows(bandwidth));
  // Worth it when the two full buffers (32 bytes a vertex: 1.6 MB at 50,000 vertices) no longer
  // stay in a core's cache, and when the wavefront's rows (about iterations + 2 chunks of both
  // buffers) do. Measured on the bench cylinder (BM_Sweeps, one process, two runs): 1-12 % faster at
  // 100,000 vertices, 1.6-2.1x at 1,000,000.
  constexpr std::size_t kMinimumVertices = 50'000, kMaximumBytes = 512 * 1024;
  const std::size_t bytes = std::size_t(iterations + 2) * chunk * 32;
  if (iterations < 2 || vertex_count < kMinimumVertices || bytes > kMaximumBytes) return false;
  rows.chunk = static_cast<std::uint32_t>(chunk);
  return true;
}

void plan_runs(SweepRows& rows) {
  const std::size_t groups = rows.widths.size();
  rows.run_ends.assign(groups, static_cast<std::uint32_t>(groups));
  for (std::size_t g = groups; g-- > 1;) {  // backwards: a run ends where the group after it ends
    rows.run_ends[g - 1] = rows.same_shape(g - 1, g) ? rows.run_ends[g] : static_cast<std::uint32_t>(g);
  }
}

void plan_layout(SweepRows& rows, int iterations) {
  plan_pairs(rows);
  plan_twins(rows);
  plan_wavefront(rows, iterations);
  plan_runs(rows);
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

}  // namespace

void blend_smoothed(const SmoothedSkin& skin, const float* palette, const float* centre4, float* out, std::size_t begin,
                    std::size_t end) {
  table().blend(skin, palette, centre4, out, begin, end);
}

extern const Table reference = {restore_scalar, restore_points_scalar, sweep_scalar, blend_scalar};
WOBBLE_SIMD_DEFINE_TABLE_FOR

}  // namespace wobble::mush
