// Hierarchical weights beta_ij = sum of the vertex's skin weights over j and its descendants:
// each influence (k, w) adds w to k and to every ancestor of k.
#include <algorithm>

#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/rig.hpp>
#include <wobble/skin.hpp>

#include "core/fail.hpp"

namespace wobble {

float HierarchicalWeights::beta(std::size_t v, std::uint32_t j) const {
  const auto first = joints.begin() + offsets[v], last = joints.begin() + offsets[v + 1];
  const auto found = std::lower_bound(first, last, j);
  return found != last && *found == j ? betas[found - joints.begin()] : 0.0f;
}

HierarchicalWeights HierarchicalWeights::from(const Rig& rig, const Skin& skin) {
  const std::size_t joint_count = rig.joint_count();
  HierarchicalWeights result;
  const std::size_t n = skin.vertex_count();
  result.offsets.reserve(n + 1);
  std::vector<double> sums(joint_count, 0.0);
  std::vector<std::uint32_t> touched;
  for (std::size_t v = 0; v < n; ++v) {
    touched.clear();
    const auto joints = skin.joints_of(v);
    const auto weights = skin.weights_of(v);
    for (std::size_t k = 0; k < joints.size(); ++k) {
      if (joints[k] >= joint_count)
        fail_plain("skin: vertex {} uses joint {}, the rig has {}", v, joints[k], joint_count);
      if (!(weights[k] > 0)) continue;
      for (int j = static_cast<int>(joints[k]); j >= 0; j = rig.parents[j]) {
        if (sums[j] == 0.0) touched.push_back(static_cast<std::uint32_t>(j));
        sums[j] += weights[k];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::uint32_t j : touched) {
      const float beta = static_cast<float>(sums[j]);
      sums[j] = 0.0;
      if (beta > 0) {
        result.joints.push_back(j);
        result.betas.push_back(beta);
      }
    }
    result.offsets.push_back(static_cast<std::uint32_t>(result.joints.size()));
  }
  return result;
}

}  // namespace wobble
