#include <wobble/rig.hpp>

#include <algorithm>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

int Rig::find(const std::string& name) const {
  auto found = std::find(names.begin(), names.end(), name);
  return found == names.end() ? -1 : static_cast<int>(found - names.begin());
}

int Rig::depth(int j) const {
  int d = 0;
  for (int p = parents[j]; p >= 0; p = parents[p]) ++d;
  return d;
}

int Rig::max_depth() const {
  int result = 0;
  std::vector<int> depths(joint_count(), 0);
  for (std::size_t j = 0; j < joint_count(); ++j) {
    depths[j] = parents[j] < 0 ? 0 : depths[parents[j]] + 1;
    result = std::max(result, depths[j]);
  }
  return result;
}

std::vector<std::vector<int>> Rig::children() const {
  std::vector<std::vector<int>> result(joint_count());
  for (std::size_t j = 0; j < joint_count(); ++j) {
    if (parents[j] >= 0) result[parents[j]].push_back(static_cast<int>(j));
  }
  return result;
}

void Rig::check(const std::filesystem::path& source) const {
  const std::size_t n = parents.size();
  if (names.size() != n || rest_local.size() != n || inverse_bind.size() != n || skinned.size() != n) {
    fail(source, "rig arrays disagree in size ({} parents, {} names, {} rest transforms, {} inverse binds)", n,
         names.size(), rest_local.size(), inverse_bind.size());
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (parents[j] >= static_cast<int>(j) || parents[j] < -1) {
      fail(source, "joint {} '{}' has parent {}, which does not come before it (cycle or bad order)", j, names[j],
           parents[j]);
    }
    const Transform& t = rest_local[j];
    if (!t.translation.allFinite() || !t.rotation.coeffs().allFinite() || !t.scale.allFinite()) {
      fail(source, "joint {} '{}' has a non-finite rest transform", j, names[j]);
    }
    if (!inverse_bind[j].allFinite()) fail(source, "joint {} '{}' has a non-finite inverse bind matrix", j, names[j]);
  }
}

int Rig::add_joint(const std::string& name, int parent, const Transform& rest, const Mat4f& inverse_bind_matrix,
                   bool is_skinned) {
  if (parent >= static_cast<int>(joint_count())) fail_plain("joint '{}': parent {} does not exist yet", name, parent);
  names.push_back(name);
  parents.push_back(parent);
  rest_local.push_back(rest);
  inverse_bind.push_back(inverse_bind_matrix);
  skinned.push_back(is_skinned);
  return static_cast<int>(joint_count() - 1);
}

}  // namespace wobble
