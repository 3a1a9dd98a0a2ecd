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

}  // namespace

void DeltaMush::fold_skin(std::span<const Vec3f> rest, const PackedSkin& skin, std::size_t joint_count, double prune) {
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
  folded_.reset();
  folded_corners_.reset();
  const mush::SweepRows& rows = *rows_;
  const std::size_t n = rows.vertex_count(), n_original = rest.size();

  auto result = std::make_shared<mush::SmoothedSkin>();
  result->joint_count = joint_count;
  Eigen::Vector3d c0 = Eigen::Vector3d::Zero();
  for (const Vec3f& p : rest) c0 += p.cast<double>();
  if (n_original) c0 /= double(n_original);
  for (int c = 0; c < 3; ++c) result->rest_centre[c] = c0[c];

  // Initial columns per joint, on welded vertices: the mean over seam copies of w_vj [u_v - c0; 1]
  // (what the iterative path's gather gives, as LBS is linear in the weights).
  std::vector<std::vector<std::pair<std::uint32_t, std::array<double, 4>>>> initial(joint_count);
  result->joint_moments.assign(4 * joint_count, 0.0);
  for (std::size_t v = 0; v < n_original; ++v) {
    const std::uint32_t i = welding_.welded_of[v];
    const double share = 1.0 / double(weld_offsets_[i + 1] - weld_offsets_[i]);
    const Eigen::Vector3d u = rest[v].cast<double>() - c0;
    for (std::uint32_t k = 0; k < skin.width; ++k) {
      const double w = skin.weights[v * skin.width + k];
      if (w == 0.0) continue;
      const std::uint16_t j = skin.joints[v * skin.width + k];
      initial[j].push_back({i, {w * share * u.x(), w * share * u.y(), w * share * u.z(), w * share}});
      double* m = result->joint_moments.data() + 4 * j;
      const Eigen::Vector3d absolute = rest[v].cast<double>();
      for (int c = 0; c < 3; ++c) m[c] += w * absolute[c] / double(n_original);
      m[3] += w / double(n_original);
    }
  }

  std::vector<std::vector<Entry>> entries(n);
  std::vector<std::array<double, 4>> current(n, {0, 0, 0, 0}), next(n, {0, 0, 0, 0});
  std::vector<std::uint32_t> stamp(n, 0), active, reached;
  std::uint32_t generation = 0;
  for (std::uint32_t j = 0; j < joint_count; ++j) {
    if (initial[j].empty()) continue;
    active.clear();
    ++generation;
    for (const auto& [i, value] : initial[j]) {
      if (stamp[i] != generation) stamp[i] = generation, active.push_back(i);
      for (int c = 0; c < 4; ++c) current[i][c] += value[c];
    }
    for (int sweep = 0; sweep < settings_.iterations; ++sweep) {
      // The vertices this sweep can reach: the active ones and their neighbours.
      ++generation;
      reached.clear();
      for (std::uint32_t i : active) {
        if (stamp[i] != generation) stamp[i] = generation, reached.push_back(i);
        rows.for_each_neighbour(i, [&](std::uint32_t k, float) {
          if (stamp[k] != generation) stamp[k] = generation, reached.push_back(k);
        });
      }
      for (std::uint32_t i : reached) {
        std::array<double, 4> sum;
        for (int c = 0; c < 4; ++c) sum[c] = double(rows.self(i)) * current[i][c];
        rows.for_each_neighbour(i, [&](std::uint32_t k, float weight) {
          for (int c = 0; c < 4; ++c) sum[c] += double(weight) * current[k][c];
        });
        next[i] = sum;
      }
      // reached includes every active vertex, so every nonzero entry of current is replaced.
      for (std::uint32_t i : reached) current[i] = next[i], next[i] = {0, 0, 0, 0};
      active.swap(reached);
    }
    for (std::uint32_t i : active) {
      const auto& q = current[i];
      if (q[0] != 0 || q[1] != 0 || q[2] != 0 || q[3] != 0) entries[i].push_back({j, q});
      current[i] = {0, 0, 0, 0};
    }
  }

  // Prune (merge small shares into the strongest joint) and pack.
  result->offsets.assign(n + 1, 0);
  result->excess.assign(n, 0.0f);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::vector<Entry>& list = entries[i];
    double total = 0;
    for (const Entry& e : list) total += std::abs(e.q[3]);
    if (prune > 0 && list.size() > 1 && total > 0) {
      const auto strongest = std::max_element(list.begin(), list.end(), [](const Entry& a, const Entry& b) {
        return a.q[3] != b.q[3] ? a.q[3] < b.q[3] : a.joint > b.joint;
      });
      Entry& keep = *strongest;
      // Smallest shares first, while the merged total stays within the threshold.
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
      std::vector<Entry> kept;
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (!merged[k]) continue;
        for (int c = 0; c < 4; ++c) keep.q[c] += list[k].q[c];
      }
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (!merged[k]) kept.push_back(list[k]);
      }
      list.swap(kept);
    }
    double sigma = 0;
    for (const Entry& e : list) sigma += e.q[3];
    result->excess[i] = static_cast<float>(sigma - 1.0);  // a vertex without weights: -1, LBS gives 0
    result->offsets[i + 1] = result->offsets[i] + static_cast<std::uint32_t>(list.size());
  }
  result->palette_offsets.reserve(result->offsets.back());
  result->q.reserve(4 * std::size_t(result->offsets.back()));
  for (std::uint32_t i = 0; i < n; ++i) {
    for (const Entry& e : entries[i]) {
      result->palette_offsets.push_back(16 * e.joint);
      for (int c = 0; c < 4; ++c) result->q.push_back(static_cast<float>(e.q[c]));
    }
  }
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
