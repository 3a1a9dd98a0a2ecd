// The transform update: for each frame on its own, each free bone's rigid transform in turn, the
// others held (Gauss-Seidel sweeps). With the others held, a bone's best transform is the
// weighted Procrustes fit of its vertices to what the other bones leave of their targets.
#include <wobble/parallel.hpp>

#include "offline/decomposition_problem.hpp"
#include "offline/procrustes.hpp"

namespace wobble::decomposition {
namespace {

// The vertices of each free bone with their weights (compressed rows by bone).
struct BoneSupport {
  std::vector<std::uint32_t> offsets, vertices;
  std::vector<double> weights;
};

BoneSupport free_bone_support(const Problem& problem, const Skin& weights) {
  BoneSupport support;
  support.offsets.assign(problem.free + 1, 0);
  for (std::uint32_t bone : weights.joints)
    if (bone >= problem.fixed) ++support.offsets[bone - problem.fixed + 1];
  for (std::size_t b = 0; b < problem.free; ++b) support.offsets[b + 1] += support.offsets[b];
  support.vertices.resize(support.offsets.back());
  support.weights.resize(support.offsets.back());
  std::vector<std::uint32_t> next(support.offsets.begin(), support.offsets.end() - 1);
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    const auto bones = weights.joints_of(v);
    const auto values = weights.weights_of(v);
    for (std::size_t k = 0; k < bones.size(); ++k) {
      if (bones[k] < problem.fixed) continue;
      const std::uint32_t at = next[bones[k] - problem.fixed]++;
      support.vertices[at] = static_cast<std::uint32_t>(v);
      support.weights[at] = values[k];
    }
  }
  return support;
}

// The model's positions in frame f: sum_b w_vb M_b(f) p~_v.
void model_positions(const Problem& problem, const State& state, std::size_t frame, std::vector<Eigen::Vector3d>& model) {
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    const auto bones = state.weights.joints_of(v);
    const auto values = state.weights.weights_of(v);
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    for (std::size_t k = 0; k < bones.size(); ++k)
      sum += static_cast<double>(values[k]) * (bone_transform(problem, state, frame, bones[k]) * problem.rest[v]);
    model[v] = sum;
  }
}

void fit_bone(const Problem& problem, const BoneSupport& support, std::size_t frame, std::size_t bone,
              BoneTransform& transform, std::vector<Eigen::Vector3d>& model) {
  ProcrustesSums sums;
  for (std::uint32_t at = support.offsets[bone]; at < support.offsets[bone + 1]; ++at) {
    const std::uint32_t v = support.vertices[at];
    const double w = support.weights[at];
    const Eigen::Vector3d others = model[v] - w * (transform * problem.rest[v]);
    sums.add_weighted(w, problem.rest[v].head<3>(), problem.target(frame, v) - others);
  }
  BoneTransform next;
  if (!fit_rigid(sums, next)) return;
  for (std::uint32_t at = support.offsets[bone]; at < support.offsets[bone + 1]; ++at) {
    const std::uint32_t v = support.vertices[at];
    model[v] += support.weights[at] * ((next - transform) * problem.rest[v]);
  }
  transform = next;
}

}  // namespace

void update_transforms(const Problem& problem, State& state) {
  const BoneSupport support = free_bone_support(problem, state.weights);
  parallel_for(problem.pool, problem.frames, 1, [&](std::size_t begin, std::size_t end) {
    std::vector<Eigen::Vector3d> model(problem.vertices);
    for (std::size_t f = begin; f < end; ++f) {
      model_positions(problem, state, f, model);
      for (int sweep = 0; sweep < problem.parameters.transform_sweeps; ++sweep)
        for (std::size_t b = 0; b < problem.free; ++b) fit_bone(problem, support, f, b, state.free[f][b], model);
    }
  });
}

}  // namespace wobble::decomposition
