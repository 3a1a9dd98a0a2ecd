// Delta Mush's smoothing folded into a linear blend skin (DeltaMush::fold_skin): the k sweeps
// are one linear operator S with fixed weights, so smoothing LBS positions equals blending the
// joint matrices with the smoothed influences q_ij = sum_l (S^k)_il w_lj [u_l - c0; 1].
// Each joint's column is swept on its own, only over the vertices it can have reached (its
// support grows by one ring per sweep), in double precision with the sweeps' float weights.
#include <wobble/delta_mush.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "deform/delta_mush_kernels.hpp"

namespace wobble {

namespace {

struct Entry {
  std::uint32_t joint;
  std::array<double, 4> q;
};

using Column = std::vector<std::pair<std::uint32_t, std::array<double, 4>>>;  // (welded vertex, q)

// Initial columns per joint, on welded vertices: the mean over seam copies of w_vj [u_v - c0; 1]
// (what the iterative path's gather gives, as LBS is linear in the weights); and the joints'
// moments (SmoothedSkin::joint_moments).
std::vector<Column> initial_columns(std::span<const Vec3f> rest, const PackedSkin& skin, std::size_t joint_count,
                                    std::span<const std::uint32_t> welded_of,
                                    std::span<const std::uint32_t> weld_offsets, mush::SmoothedSkin& result) {
  const std::size_t n_original = rest.size();
  const Eigen::Vector3d c0(result.rest_centre[0], result.rest_centre[1], result.rest_centre[2]);
  std::vector<Column> initial(joint_count);
  result.joint_moments.assign(4 * joint_count, 0.0);
  for (std::size_t v = 0; v < n_original; ++v) {
    const std::uint32_t i = welded_of[v];
    const double share = 1.0 / double(weld_offsets[i + 1] - weld_offsets[i]);
    const Eigen::Vector3d u = rest[v].cast<double>() - c0;
    for (std::uint32_t k = 0; k < skin.width; ++k) {
      const double w = skin.weights[v * skin.width + k];
      if (w == 0.0) continue;
      const std::uint16_t j = skin.joints[v * skin.width + k];
      initial[j].push_back({i, {w * share * u.x(), w * share * u.y(), w * share * u.z(), w * share}});
      double* m = result.joint_moments.data() + 4 * j;
      const Eigen::Vector3d absolute = rest[v].cast<double>();
      for (int c = 0; c < 3; ++c) m[c] += w * absolute[c] / double(n_original);
      m[3] += w / double(n_original);
    }
  }
  return initial;
}

// Sweeps each joint's column `iterations` times, only over the vertices it can have reached;
// returns per welded vertex its nonzero entries.
class ColumnSweeper {
 public:
  explicit ColumnSweeper(const mush::SweepRows& rows)
      : rows_(rows),
        current_(rows.vertex_count(), {0, 0, 0, 0}),
        next_(rows.vertex_count(), {0, 0, 0, 0}),
        stamp_(rows.vertex_count(), 0) {}

  void sweep(std::uint32_t joint, const Column& column, int iterations, std::vector<std::vector<Entry>>& entries) {
    active_.clear();
    ++generation_;
    for (const auto& [i, value] : column) {
      visit(i, active_);
      for (int c = 0; c < 4; ++c) current_[i][c] += value[c];
    }
    for (int sweep = 0; sweep < iterations; ++sweep) one_sweep();
    for (std::uint32_t i : active_) {
      const auto& q = current_[i];
      if (q[0] != 0 || q[1] != 0 || q[2] != 0 || q[3] != 0) entries[i].push_back({joint, q});
      current_[i] = {0, 0, 0, 0};
    }
  }

 private:
  void visit(std::uint32_t i, std::vector<std::uint32_t>& list) {
    if (stamp_[i] != generation_) stamp_[i] = generation_, list.push_back(i);
  }

  void one_sweep() {
    // The vertices this sweep can reach: the active ones and their neighbours.
    ++generation_;
    reached_.clear();
    for (std::uint32_t i : active_) {
      visit(i, reached_);
      rows_.for_each_neighbour(i, [&](std::uint32_t k, float) { visit(k, reached_); });
    }
    for (std::uint32_t i : reached_) {
      std::array<double, 4> sum;
      for (int c = 0; c < 4; ++c) sum[c] = double(rows_.self(i)) * current_[i][c];
      rows_.for_each_neighbour(i, [&](std::uint32_t k, float weight) {
        for (int c = 0; c < 4; ++c) sum[c] += double(weight) * current_[k][c];
      });
      next_[i] = sum;
    }
    // reached includes every active vertex, so every nonzero entry of current is replaced.
    for (std::uint32_t i : reached_) current_[i] = next_[i], next_[i] = {0, 0, 0, 0};
    active_.swap(reached_);
  }

  const mush::SweepRows& rows_;
  std::vector<std::array<double, 4>> current_, next_;
  std::vector<std::uint32_t> stamp_, active_, reached_;
  std::uint32_t generation_ = 0;
};

// Merges the smallest shares into the strongest joint, smallest first, while the merged share of
// the total stays within `prune`.
void prune_entries(std::vector<Entry>& list, double prune) {
  double total = 0;
  for (const Entry& e : list) total += std::abs(e.q[3]);
  if (!(prune > 0 && list.size() > 1 && total > 0)) return;
  const auto strongest = std::max_element(list.begin(), list.end(), [](const Entry& a, const Entry& b) {
    return a.q[3] != b.q[3] ? a.q[3] < b.q[3] : a.joint > b.joint;
  });
  Entry& keep = *strongest;
  std::vector<std::size_t> order(list.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(list[a].q[3]) != std::abs(list[b].q[3]) ? std::abs(list[a].q[3]) < std::abs(list[b].q[3])
                                                            : list[a].joint < list[b].joint;
  });
  std::vector<bool> merged(list.size(), false);
  double merged_share = 0;
  for (std::size_t k : order) {
    if (&list[k] == &keep) continue;
    merged_share += std::abs(list[k].q[3]) / total;
    if (merged_share > prune) break;
    merged[k] = true;
  }
  for (std::size_t k = 0; k < list.size(); ++k)
    if (merged[k])
      for (int c = 0; c < 4; ++c) keep.q[c] += list[k].q[c];
  std::vector<Entry> kept;
  for (std::size_t k = 0; k < list.size(); ++k)
    if (!merged[k]) kept.push_back(list[k]);
  list.swap(kept);
}

// The entries as the kernel reads them: offsets, palette offsets, q as floats, and each vertex's
// excess (sum of its shares minus 1: a vertex without weights gets -1, LBS gives 0).
void pack_entries(const std::vector<std::vector<Entry>>& entries, mush::SmoothedSkin& result) {
  const std::size_t n = entries.size();
  result.offsets.assign(n + 1, 0);
  result.excess.assign(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    double sigma = 0;
    for (const Entry& e : entries[i]) sigma += e.q[3];
    result.excess[i] = static_cast<float>(sigma - 1.0);
    result.offsets[i + 1] = result.offsets[i] + static_cast<std::uint32_t>(entries[i].size());
  }
  result.palette_offsets.reserve(result.offsets.back());
  result.q.reserve(4 * std::size_t(result.offsets.back()));
  for (const auto& list : entries)
    for (const Entry& e : list) {
      result.palette_offsets.push_back(16 * e.joint);
      for (int c = 0; c < 4; ++c) result.q.push_back(static_cast<float>(e.q[c]));
    }
}

}  // namespace

void DeltaMush::check_fold_inputs(std::span<const Vec3f> rest, const PackedSkin& skin, std::size_t joint_count,
                                  double prune) const {
  if (!bound_) fail_plain("delta mush: fold_skin() before bind()");
  if (settings_.mode != MushMode::Wobble) {
    fail_plain("delta mush: mode 'blender' recomputes its weights from the current mesh and cannot fold the skin");
  }
  check_same_mesh(rest, triangles_);
  if (skin.vertex_count() != rest.size()) {
    fail_plain("delta mush: the skin has {} vertices, the mesh {}", skin.vertex_count(), rest.size());
  }
  for (std::uint16_t j : skin.joints) {
    if (j >= joint_count) fail_plain("delta mush: the skin uses joint {}, the rig has {}", j, joint_count);
  }
  if (!(prune >= 0.0 && prune < 1.0)) fail_plain("delta mush: prune must be in [0, 1) (got {})", prune);
}

void DeltaMush::fold_skin(std::span<const Vec3f> rest, const PackedSkin& skin, std::size_t joint_count, double prune) {
  check_fold_inputs(rest, skin, joint_count, prune);
  folded_.reset();
  folded_corners_.reset();
  const mush::SweepRows& rows = *rows_;
  const std::size_t n = rows.vertex_count();

  auto result = std::make_shared<mush::SmoothedSkin>();
  result->joint_count = joint_count;
  Eigen::Vector3d c0 = Eigen::Vector3d::Zero();
  for (const Vec3f& p : rest) c0 += p.cast<double>();
  if (!rest.empty()) c0 /= double(rest.size());
  for (int c = 0; c < 3; ++c) result->rest_centre[c] = c0[c];

  const std::vector<Column> initial =
      initial_columns(rest, skin, joint_count, welding_.welded_of, weld_offsets_, *result);
  std::vector<std::vector<Entry>> entries(n);
  ColumnSweeper sweeper(rows);
  for (std::uint32_t j = 0; j < joint_count; ++j)
    if (!initial[j].empty()) sweeper.sweep(j, initial[j], settings_.iterations, entries);
  for (auto& list : entries) prune_entries(list, prune);
  pack_entries(entries, *result);
  folded_ = std::move(result);

  // The folded path's corner deltas, from the rest pose blended exactly as evaluate_skinned()
  // will blend it (identity matrices).
  const std::vector<Mat4f> identity(joint_count, Mat4f::Identity());
  const Vec3f centre = prepare_folded_palette(identity);
  const float centre4[4] = {centre.x(), centre.y(), centre.z(), 0.0f};
  mush::blend_smoothed(*folded_, folded_palette_.data(), centre4, buffer_a_.data(), 0, n);
  bind_corners(rest, centre, buffer_a_.data(), folded_corners_, folded_keep_input_);
}

}  // namespace wobble
