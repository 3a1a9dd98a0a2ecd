// The transform update: for each frame on its own, each free bone's rigid transform in turn, the
// others held (Gauss-Seidel sweeps). With the others held, a bone's best transform is the
// weighted Procrustes fit of its vertices to what the other bones leave of their targets.
//
// Those Procrustes sums need no pass over the vertices per bone: with p~ = [p; 1], bone b's
//   sum_v w_vb p~_v (y_v - sum_{c != b} w_vc M_c p~_v)^T = P_b - sum_{c != b} Q_bc M_c^T,
// P_b = sum_v w_vb p~_v y_v^T (per frame) and Q_bc = sum_v w_vb w_vc p~_v p~_v^T (the same in
// every frame while the weights hold). So a sweep costs per bone only its neighbouring bones.
#include <algorithm>

#include <wobble/parallel.hpp>

#include "offline/decomposition_problem.hpp"
#include "offline/procrustes.hpp"

namespace wobble::decomposition {
namespace {

// Per free bone: every bone that shares a vertex with it (itself included) and their Q_bc.
struct PairSums {
  struct Pair {
    std::uint32_t bone;
    Eigen::Matrix4d sum;
  };
  std::vector<std::vector<Pair>> of_free;
};

PairSums pair_sums(const Problem& problem, const Skin& weights) {
  PairSums sums;
  sums.of_free.resize(problem.free);
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    const auto bones = weights.joints_of(v);
    const auto values = weights.weights_of(v);
    const Eigen::Matrix4d outer = problem.rest[v] * problem.rest[v].transpose();
    for (std::size_t a = 0; a < bones.size(); ++a) {
      if (bones[a] < problem.fixed) continue;
      auto& pairs = sums.of_free[bones[a] - problem.fixed];
      for (std::size_t b = 0; b < bones.size(); ++b) {
        const double product = static_cast<double>(values[a]) * static_cast<double>(values[b]);
        const auto it = std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) { return p.bone == bones[b]; });
        if (it == pairs.end())
          pairs.push_back({bones[b], product * outer});
        else
          it->sum += product * outer;
      }
    }
  }
  return sums;
}

// P_b = sum_v w_vb p~_v y_v(f)^T for every free bone, in frame f ([free bone], 4 x 3).
void target_products(const Problem& problem, const Skin& weights, std::size_t frame,
                     std::vector<Eigen::Matrix<double, 4, 3>>& out) {
  out.assign(problem.free, Eigen::Matrix<double, 4, 3>::Zero());
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    const auto bones = weights.joints_of(v);
    const auto values = weights.weights_of(v);
    const Eigen::RowVector3d target = problem.target(frame, v).transpose();
    for (std::size_t k = 0; k < bones.size(); ++k)
      if (bones[k] >= problem.fixed)
        out[bones[k] - problem.fixed] += static_cast<double>(values[k]) * problem.rest[v] * target;
  }
}

void fit_bone(const Problem& problem, const State& state, const PairSums& pairs,
              const Eigen::Matrix<double, 4, 3>& products, std::size_t frame, std::size_t bone,
              BoneTransform& transform) {
  const std::uint32_t self = static_cast<std::uint32_t>(problem.fixed + bone);
  Eigen::Matrix<double, 4, 3> cross = products;
  Eigen::Matrix4d own = Eigen::Matrix4d::Zero();
  for (const auto& pair : pairs.of_free[bone]) {
    if (pair.bone == self)
      own = pair.sum;
    else
      cross.noalias() -= pair.sum * bone_transform(problem, state, frame, pair.bone).transpose();
  }
  // The Procrustes sums of ProcrustesSums::add_weighted over the bone's vertices, from p~'s parts.
  ProcrustesSums sums;
  sums.weight = own(3, 3);
  sums.source = own.block<3, 1>(0, 3);
  sums.target = cross.row(3).transpose();
  sums.cross = cross.topRows<3>();
  fit_rigid(sums, transform);
}

}  // namespace

void update_transforms(const Problem& problem, State& state) {
  const PairSums pairs = pair_sums(problem, state.weights);
  parallel_for(problem.pool, problem.frames, 1, [&](std::size_t begin, std::size_t end) {
    std::vector<Eigen::Matrix<double, 4, 3>> products;
    for (std::size_t f = begin; f < end; ++f) {
      target_products(problem, state.weights, f, products);
      for (int sweep = 0; sweep < problem.parameters.transform_sweeps; ++sweep)
        for (std::size_t b = 0; b < problem.free; ++b)
          fit_bone(problem, state, pairs, products[b], f, b, state.free[f][b]);
    }
  });
}

}  // namespace wobble::decomposition
