#pragma once
// Rig: the skeleton (joint names, parents in topological order, rest local transforms) and the
// bind (one inverse bind matrix per joint). Joints that only carry a transform for the skinned
// joints below them (an armature node, a scene root) are joints too, marked not skinned.
#include <filesystem>
#include <string>
#include <vector>

#include <wobble/math.hpp>

namespace wobble {

struct Rig {
  std::vector<std::string> names;
  std::vector<int> parents;           // -1 for a root; parents[j] < j always (topological order)
  std::vector<Transform> rest_local;  // rest pose, local to the parent
  std::vector<Mat4f> inverse_bind;    // bind space -> joint space; identity for helper joints
  std::vector<bool> skinned;          // part of the source's skin (may carry weights)

  std::size_t joint_count() const { return parents.size(); }
  bool empty() const { return parents.empty(); }
  // Index of the first joint with that name, or -1.
  int find(const std::string& name) const;
  // Number of ancestors of j (0 for a root).
  int depth(int j) const;
  int max_depth() const;
  // Children lists, built on demand.
  std::vector<std::vector<int>> children() const;
  // Checks sizes, topological order and finite values; throws Error naming `source` and the joint.
  void check(const std::filesystem::path& source) const;
  // Appends a joint and returns its index (parent must already exist).
  int add_joint(const std::string& name, int parent, const Transform& rest, const Mat4f& inverse_bind, bool skinned);
};

}  // namespace wobble
