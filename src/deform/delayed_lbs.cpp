// Delayed LBS: per (vertex, joint) delays from distances along the skeleton, delayed local
// rotations composed along each chain, then the LBS blend.
#include <wobble/delayed_lbs.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/core.h>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"
#include "deform/describe.hpp"
#include "deform/vertex_costs.hpp"

namespace wobble {

namespace {

constexpr std::size_t kChunk = 1024;
constexpr std::size_t kMaxLevels = 1024;

using Affine = Eigen::Matrix<float, 3, 4>;

// Local transform with the given rotation, as Transform::matrix() builds it.
inline Affine local_matrix(const Transform& local, const Quatf& rotation) {
  Affine m;
  m.leftCols<3>() = rotation.normalized().toRotationMatrix() * local.scale.asDiagonal();
  m.col(3) = local.translation;
  return m;
}

inline Affine compose(const Affine& a, const Affine& b) {
  Affine m;
  m.leftCols<3>() = a.leftCols<3>() * b.leftCols<3>();
  m.col(3) = a.leftCols<3>() * b.col(3) + a.col(3);
  return m;
}

}  // namespace

std::string DelayedLbsParameters::validate() const { return dlbs_description().problems(this); }

float SkeletonDistances::distance(std::size_t v, std::uint32_t j) const {
  const auto first = joints.begin() + offsets[v], last = joints.begin() + offsets[v + 1];
  const auto found = std::lower_bound(first, last, j);
  return found != last && *found == j ? distances[found - joints.begin()] : -1.0f;
}

namespace {

// Bind-space joint positions, each joint's distance from its root along the bones, and the
// skinned children that make bones with it.
struct BindSkeleton {
  std::vector<Vec3f> position;
  std::vector<double> from_root;
  std::vector<std::vector<int>> skinned_children;
};

BindSkeleton bind_skeleton(const Rig& rig) {
  const std::size_t joint_count = rig.joint_count();
  BindSkeleton s{std::vector<Vec3f>(joint_count, Vec3f::Zero()), std::vector<double>(joint_count, 0.0),
                 std::vector<std::vector<int>>(joint_count)};
  for (std::size_t j = 0; j < joint_count; ++j) {
    if (rig.skinned[j]) s.position[j] = rig.inverse_bind[j].inverse().topRightCorner<3, 1>();
    const int parent = rig.parents[j];
    if (parent < 0) continue;
    const bool bone = rig.skinned[j] && rig.skinned[parent];
    const double length = bone ? (s.position[j] - s.position[parent]).cast<double>().norm() : 0.0;
    s.from_root[j] = s.from_root[parent] + (std::isfinite(length) ? length : 0.0);
    if (bone) s.skinned_children[parent].push_back(static_cast<int>(j));
  }
  return s;
}

// Distances between joints along the bones, with ancestor tests by the entry and exit order of a
// depth-first walk.
class TreeDistances {
 public:
  TreeDistances(const Rig& rig, const std::vector<double>& from_root)
      : rig_(rig), from_root_(from_root), enter_(rig.joint_count()), leave_(rig.joint_count()) {
    const auto children = rig.children();
    int clock = 0;
    std::vector<std::pair<int, std::size_t>> stack;
    for (std::size_t r = 0; r < rig.joint_count(); ++r) {
      if (rig.parents[r] >= 0) continue;
      stack.push_back({static_cast<int>(r), 0});
      enter_[r] = clock++;
      while (!stack.empty()) {
        auto& [j, next] = stack.back();
        if (next < children[j].size()) {
          const int c = children[j][next++];
          enter_[c] = clock++;
          stack.push_back({c, 0});
        } else {
          leave_[j] = clock++;
          stack.pop_back();
        }
      }
    }
  }

  double operator()(int a, int b) const {
    if (is_ancestor(a, b)) return from_root_[b] - from_root_[a];
    if (is_ancestor(b, a)) return from_root_[a] - from_root_[b];
    int lca = rig_.parents[a];
    while (lca >= 0 && !is_ancestor(lca, b)) lca = rig_.parents[lca];
    if (lca < 0) return from_root_[a] + from_root_[b];  // different trees: through a virtual common root
    return from_root_[a] + from_root_[b] - 2 * from_root_[lca];
  }

 private:
  bool is_ancestor(int a, int b) const { return enter_[a] <= enter_[b] && leave_[b] <= leave_[a]; }  // a above or = b

  const Rig& rig_;
  const std::vector<double>& from_root_;
  std::vector<int> enter_, leave_;
};

// The closest point to p over the bones of a vertex's influences: the bone from `start` to `end`
// (-1: the joint's point alone) at parameter s.
struct ClosestBone {
  int start = -1, end = -1;
  double s = 0;
};

ClosestBone closest_bone(const Rig& rig, const BindSkeleton& skeleton, const Vec3f& p,
                         std::span<const std::uint32_t> joints, std::span<const float> weights) {
  double best = std::numeric_limits<double>::infinity();
  ClosestBone closest;
  for (std::size_t k = 0; k < joints.size(); ++k) {
    if (!(weights[k] > 0)) continue;
    const int u = static_cast<int>(joints[k]);
    auto consider = [&](int end) {
      const Vec3d a = skeleton.position[u].cast<double>();
      const Vec3d b = end >= 0 ? skeleton.position[end].cast<double>() : a;
      const Vec3d ab = b - a;
      const double length2 = ab.squaredNorm();
      const double s = length2 > 0 ? std::clamp((p.cast<double>() - a).dot(ab) / length2, 0.0, 1.0) : 0.0;
      const double d = (a + s * ab - p.cast<double>()).squaredNorm();
      if (d < best) best = d, closest = {u, end, s};
    };
    if (skeleton.skinned_children[u].empty() || !rig.skinned[u]) {
      consider(-1);
    } else {
      for (int c : skeleton.skinned_children[u]) consider(c);
    }
  }
  return closest;
}

}  // namespace

SkeletonDistances SkeletonDistances::from(const Rig& rig, const Mesh& mesh, const Skin& skin) {
  const std::size_t n = mesh.vertex_count();
  if (skin.vertex_count() != n) fail_plain("dlbs: the skin has {} vertices, the mesh {}", skin.vertex_count(), n);
  const BindSkeleton skeleton = bind_skeleton(rig);
  const TreeDistances tree_distance(rig, skeleton.from_root);
  HierarchicalWeights chains = HierarchicalWeights::from(rig, skin);
  SkeletonDistances result;
  result.offsets = chains.offsets;
  result.joints = chains.joints;
  result.distances.resize(chains.joints.size());
  result.slopes.resize(chains.joints.size());
  result.closest_points.resize(n);
  result.bone_starts.resize(n);
  result.bone_ends.resize(n);
  result.bone_lengths.resize(n);
  result.bone_offsets.resize(n);
  for (std::size_t v = 0; v < n; ++v) {
    ClosestBone bone = closest_bone(rig, skeleton, mesh.positions[v], skin.joints_of(v), skin.weights_of(v));
    if (bone.start < 0) {  // no influence (cannot happen on a normalised skin): the vertex's first chain joint
      bone.start = result.offsets[v] < result.offsets[v + 1] ? static_cast<int>(result.joints[result.offsets[v]]) : 0;
    }
    const Vec3d a = skeleton.position[bone.start].cast<double>();
    const Vec3d b = bone.end >= 0 ? skeleton.position[bone.end].cast<double>() : a;
    result.closest_points[v] = (a + bone.s * (b - a)).cast<float>();
    const double length = (b - a).norm();
    result.bone_starts[v] = bone.start;
    result.bone_ends[v] = bone.end;
    result.bone_lengths[v] = static_cast<float>(length);
    result.bone_offsets[v] = static_cast<float>(bone.s * length);
    for (std::uint32_t k = result.offsets[v]; k < result.offsets[v + 1]; ++k) {
      const int j = static_cast<int>(result.joints[k]);
      const double via_start = tree_distance(j, bone.start) + bone.s * length;
      const double via_end = bone.end >= 0 ? tree_distance(j, bone.end) + (1 - bone.s) * length : via_start;
      result.distances[k] = static_cast<float>(std::min(via_start, via_end));
      result.slopes[k] = via_end < via_start ? -1 : 1;
    }
  }
  return result;
}

void DelayedLbs::bind(const Character& character, const DelayedLbsParameters& parameters) {
  bind(character.rig, character.mesh, character.skin, parameters);
}

void DelayedLbs::bind(const Rig& rig, const Mesh& mesh, const Skin& skin, const DelayedLbsParameters& parameters) {
  if (std::string problem = parameters.validate(); !problem.empty()) fail_plain("dlbs: {}", problem);
  if (rig.empty()) fail_plain("dlbs: the character has no skeleton");
  bound_ = false;
  vertex_count_ = mesh.vertex_count();
  joint_count_ = rig.joint_count();
  size_ = mesh.size();
  if (!(size_ > 0) || !std::isfinite(size_)) size_ = 1;
  speed_ = parameters.wave_speed_units > 0 ? parameters.wave_speed_units : parameters.wave_speed * size_;
  parents_ = rig.parents;
  inverse_bind_ = rig.inverse_bind;
  rest_positions_ = mesh.positions;
  rest_normals_ = mesh.normals;
  distances_ = SkeletonDistances::from(rig, mesh, skin);

  // Delays, quantised on a grid of step_ (interpolated between levels).
  double longest = 0;
  for (float d : distances_.distances) longest = std::max(longest, static_cast<double>(d));
  max_delay_ = longest / speed_;
  step_ = std::max(parameters.delay_step, max_delay_ / static_cast<double>(kMaxLevels - 2));
  const std::size_t pairs = distances_.joints.size();
  level_.resize(pairs);
  fraction_.resize(pairs);
  parent_slot_.resize(pairs);
  levels_ = 1;
  max_row_ = 0;
  for (std::size_t v = 0; v < vertex_count_; ++v) {
    const std::uint32_t first = distances_.offsets[v], last = distances_.offsets[v + 1];
    max_row_ = std::max<std::size_t>(max_row_, last - first);
    for (std::uint32_t k = first; k < last; ++k) {
      const double r = static_cast<double>(distances_.distances[k]) / speed_ / step_;
      const double level = std::floor(r);
      level_[k] = static_cast<std::uint16_t>(level);
      fraction_[k] = static_cast<float>(r - level);
      levels_ = std::max<std::size_t>(levels_, level_[k] + (fraction_[k] > 0 ? 2 : 1));
      const int parent = parents_[distances_.joints[k]];
      parent_slot_[k] = -1;
      if (parent >= 0) {
        // The parent acts on the vertex too (rows are closed under ancestors) and comes earlier.
        const auto row_first = distances_.joints.begin() + first, row_last = distances_.joints.begin() + k;
        const auto found = std::lower_bound(row_first, row_last, static_cast<std::uint32_t>(parent));
        parent_slot_[k] = static_cast<std::int32_t>(found - row_first);
      }
    }
  }
  // Influences, with their slot in the vertex's row.
  influence_offsets_.assign(1, 0);
  influence_slot_.clear();
  influence_weight_.clear();
  influence_joint_.clear();
  for (std::size_t v = 0; v < vertex_count_; ++v) {
    const auto joints = skin.joints_of(v);
    const auto weights = skin.weights_of(v);
    const auto row_first = distances_.joints.begin() + distances_.offsets[v];
    const auto row_last = distances_.joints.begin() + distances_.offsets[v + 1];
    for (std::size_t k = 0; k < joints.size(); ++k) {
      if (!(weights[k] > 0)) continue;
      const auto found = std::lower_bound(row_first, row_last, joints[k]);
      influence_slot_.push_back(static_cast<std::uint32_t>(found - row_first));
      influence_weight_.push_back(weights[k]);
      influence_joint_.push_back(joints[k]);
    }
    influence_offsets_.push_back(static_cast<std::uint32_t>(influence_slot_.size()));
  }
  level_rotations_.assign(levels_ * joint_count_, Quatf::Identity());
  scratch_.resize(joint_count_);
  history_.clear();
  bind_classes(skin);
  bound_ = true;
}

void DelayedLbs::bind_classes(const Skin& skin) {
  bones_.clear();
  class_palette_.clear();
  // Class spacing: half a delay step of travel, so that blending the two classes around a vertex
  // stays within the accuracy of the delay steps themselves.
  class_spacing_ = 0.5 * step_ * speed_;
  std::map<std::pair<std::int32_t, std::int32_t>, std::uint32_t> bone_of;
  std::vector<std::uint32_t> vertex_bone(vertex_count_);
  for (std::size_t v = 0; v < vertex_count_; ++v) {
    const auto key = std::make_pair(distances_.bone_starts[v], distances_.bone_ends[v]);
    auto [it, fresh] = bone_of.try_emplace(key, static_cast<std::uint32_t>(bones_.size()));
    if (fresh) {
      BoneClasses bone;
      bone.start = key.first, bone.end = key.second;
      bone.length = distances_.bone_lengths[v];
      bone.levels = 1 + static_cast<std::uint32_t>(bone.length > 0 ? std::ceil(bone.length / class_spacing_) : 0);
      bones_.push_back(std::move(bone));
    }
    vertex_bone[v] = it->second;
  }
  // Each bone's chain joints (the union of its vertices' rows) with their distances at offset 0.
  std::vector<std::vector<std::int32_t>> chain_index(bones_.size());
  for (std::size_t v = 0; v < vertex_count_; ++v) {
    BoneClasses& bone = bones_[vertex_bone[v]];
    auto& index = chain_index[vertex_bone[v]];
    if (index.empty()) index.assign(joint_count_, -1);
    for (std::uint32_t k = distances_.offsets[v]; k < distances_.offsets[v + 1]; ++k) {
      const std::uint32_t j = distances_.joints[k];
      if (index[j] >= 0) continue;
      index[j] = 0;
      bone.joints.push_back(j);
    }
    for (std::uint32_t i = influence_offsets_[v]; i < influence_offsets_[v + 1]; ++i) {
      const std::uint32_t j = influence_joint_[i];
      if (std::find(bone.influences.begin(), bone.influences.end(), j) == bone.influences.end())
        bone.influences.push_back(j);
    }
  }
  std::size_t palette = 0;
  for (std::size_t b = 0; b < bones_.size(); ++b) {
    BoneClasses& bone = bones_[b];
    std::sort(bone.joints.begin(), bone.joints.end());
    auto& index = chain_index[b];
    for (std::size_t i = 0; i < bone.joints.size(); ++i) index[bone.joints[i]] = static_cast<std::int32_t>(i);
    bone.base_distances.assign(bone.joints.size(), 0.0f);
    bone.slopes.assign(bone.joints.size(), 1);
    bone.parent_slots.resize(bone.joints.size());
    for (std::size_t i = 0; i < bone.joints.size(); ++i) {
      const int parent = parents_[bone.joints[i]];
      bone.parent_slots[i] = parent >= 0 ? index[parent] : -1;
    }
    bone.influence_slots.clear();
    for (std::uint32_t u : bone.influences) bone.influence_slots.push_back(static_cast<std::uint32_t>(index[u]));
    bone.palette_offset = static_cast<std::uint32_t>(palette);
    palette += static_cast<std::size_t>(bone.levels) * bone.influences.size();
  }
  if (palette > 65536) {  // 16-bit palette indices: every vertex composes its own chain instead
    bones_.clear();
    return;
  }
  // Distances at offset 0, from each bone's vertices (the same for all of them up to rounding:
  // the first one that has the joint sets it).
  std::vector<std::vector<bool>> seen(bones_.size());
  for (std::size_t v = 0; v < vertex_count_; ++v) {
    BoneClasses& bone = bones_[vertex_bone[v]];
    auto& done = seen[vertex_bone[v]];
    if (done.empty()) done.assign(bone.joints.size(), false);
    for (std::uint32_t k = distances_.offsets[v]; k < distances_.offsets[v + 1]; ++k) {
      const std::size_t i = static_cast<std::size_t>(chain_index[vertex_bone[v]][distances_.joints[k]]);
      if (done[i]) continue;
      done[i] = true;
      bone.slopes[i] = distances_.slopes[k];
      bone.base_distances[i] =
          distances_.distances[k] - static_cast<float>(distances_.slopes[k]) * distances_.bone_offsets[v];
    }
  }
  pack_class_skin(vertex_bone);
  class_palette_.assign(palette, Mat4f::Identity());
}

// The packed skin: each influence twice, at the classes below and above the vertex's offset.
void DelayedLbs::pack_class_skin(const std::vector<std::uint32_t>& vertex_bone) {
  std::size_t width = 1;
  for (std::size_t v = 0; v < vertex_count_; ++v)
    width = std::max<std::size_t>(width, 2 * (influence_offsets_[v + 1] - influence_offsets_[v]));
  class_skin_.width = static_cast<std::uint32_t>(width);
  class_skin_.joints.assign(vertex_count_ * width, 0);
  class_skin_.weights.assign(vertex_count_ * width, 0.0f);
  for (std::size_t v = 0; v < vertex_count_; ++v) {
    const BoneClasses& bone = bones_[vertex_bone[v]];
    const std::uint32_t intervals = bone.levels - 1;
    const double r = intervals > 0 ? distances_.bone_offsets[v] / bone.length * intervals : 0.0;
    const std::uint32_t k = std::min<std::uint32_t>(static_cast<std::uint32_t>(r), intervals > 0 ? intervals - 1 : 0);
    const float f = intervals > 0 ? static_cast<float>(std::clamp(r - k, 0.0, 1.0)) : 0.0f;
    const std::uint32_t upper = intervals > 0 ? k + 1 : k;
    const std::size_t count = bone.influences.size();
    std::size_t slot = v * width;
    for (std::uint32_t i = influence_offsets_[v]; i < influence_offsets_[v + 1]; ++i) {
      const auto at =
          std::find(bone.influences.begin(), bone.influences.end(), influence_joint_[i]) - bone.influences.begin();
      class_skin_.joints[slot] = static_cast<std::uint16_t>(bone.palette_offset + k * count + at);
      class_skin_.weights[slot++] = influence_weight_[i] * (1 - f);
      class_skin_.joints[slot] = static_cast<std::uint16_t>(bone.palette_offset + upper * count + at);
      class_skin_.weights[slot++] = influence_weight_[i] * f;
    }
  }
}

// The skinning matrix of every (class, influence joint): the chain's delayed local rotations
// composed from the root, the same as evaluate_exact() does for one vertex at the class's offset.
void DelayedLbs::class_palette(const Pose& pose, ThreadPool* pool) {
  auto body = [&](std::size_t bone_begin, std::size_t bone_end) {
    std::vector<Affine> world;
    for (std::size_t b = bone_begin; b < bone_end; ++b) {
      const BoneClasses& bone = bones_[b];
      world.resize(bone.joints.size());
      const std::uint32_t intervals = bone.levels - 1;
      for (std::uint32_t k = 0; k < bone.levels; ++k) {
        const double offset = intervals > 0 ? bone.length * k / intervals : 0.0;  // spread evenly over the bone
        for (std::size_t i = 0; i < bone.joints.size(); ++i) {
          const std::uint32_t j = bone.joints[i];
          const double delay_levels =
              std::max(0.0, (bone.base_distances[i] + bone.slopes[i] * offset) / speed_ / step_);
          std::size_t level = static_cast<std::size_t>(delay_levels);
          float fraction = static_cast<float>(delay_levels - static_cast<double>(level));
          if (level + 1 >= levels_) level = levels_ - 1, fraction = 0;
          const Quatf* at = level_rotations_.data() + level * joint_count_;
          const Quatf rotation = fraction > 0 ? slerp_shortest(at[j], at[joint_count_ + j], fraction) : at[j];
          const Affine local = local_matrix(pose.local[j], rotation);
          const std::int32_t parent = bone.parent_slots[i];
          world[i] = parent < 0 ? local : compose(world[static_cast<std::size_t>(parent)], local);
        }
        for (std::size_t u = 0; u < bone.influences.size(); ++u) {
          const Affine& w = world[bone.influence_slots[u]];
          const Mat4f& inverse_bind = inverse_bind_[bone.influences[u]];
          Mat4f& m = class_palette_[bone.palette_offset + k * bone.influences.size() + u];
          m.setIdentity();
          m.topLeftCorner<3, 3>() = w.leftCols<3>() * inverse_bind.topLeftCorner<3, 3>();
          m.topRightCorner<3, 1>() = w.leftCols<3>() * inverse_bind.topRightCorner<3, 1>() + w.col(3);
        }
      }
    }
  };
  parallel_for(pool, bones_.size(), 1, body);
}

void DelayedLbs::reset() { history_.clear(); }

void DelayedLbs::set_parameters(const Character& character, const DelayedLbsParameters& parameters) {
  auto history = std::move(history_);
  bind(character, parameters);
  history_ = std::move(history);
}

float DelayedLbs::delay(std::size_t v, std::uint32_t j) const {
  const float d = distances_.distance(v, j);
  return d < 0 ? -1.0f : static_cast<float>(d / speed_);
}

void DelayedLbs::sample_levels(const Pose& pose, double t, const PoseSampler& pose_at) {
  for (std::size_t j = 0; j < joint_count_; ++j) level_rotations_[j] = pose.local[j].rotation;
  if (levels_ <= 1) return;
  if (pose_at) {
    for (std::size_t m = 1; m < levels_; ++m) {
      pose_at(t - static_cast<double>(m) * step_, scratch_);
      for (std::size_t j = 0; j < joint_count_; ++j)
        level_rotations_[m * joint_count_ + j] = scratch_.local[j].rotation;
    }
    return;
  }
  // Interactive: keep the poses of the last max_delay seconds and interpolate between them.
  if (!history_.empty() && t < history_.back().first - 1e-9) history_.clear();
  if (history_.empty() || t > history_.back().first) {
    std::vector<Quatf> rotations(joint_count_);
    for (std::size_t j = 0; j < joint_count_; ++j) rotations[j] = pose.local[j].rotation;
    history_.emplace_back(t, std::move(rotations));
  }
  const double horizon = t - static_cast<double>(levels_) * step_;
  while (history_.size() > 2 && history_[1].first <= horizon) history_.pop_front();
  for (std::size_t m = 1; m < levels_; ++m) {
    const double time = t - static_cast<double>(m) * step_;
    Quatf* out = level_rotations_.data() + m * joint_count_;
    if (time <= history_.front().first) {
      std::copy(history_.front().second.begin(), history_.front().second.end(), out);
      continue;
    }
    std::size_t i = history_.size() - 1;
    while (i > 0 && history_[i - 1].first >= time) --i;
    // history_[i-1].first < time <= history_[i].first
    const auto& [t0, r0] = history_[i - 1];
    const auto& [t1, r1] = history_[i];
    const float alpha = static_cast<float>((time - t0) / (t1 - t0));
    for (std::size_t j = 0; j < joint_count_; ++j) out[j] = slerp_shortest(r0[j], r1[j], alpha);
  }
}

void DelayedLbs::evaluate(const Pose& pose, double t, const PoseSampler& pose_at, std::span<Vec3f> positions,
                          std::span<Vec3f> normals, ThreadPool* pool) {
  if (!bound_) fail_plain("dlbs: evaluate() before bind()");
  if (positions.size() != vertex_count_)
    fail_plain("dlbs: {} positions, the character has {} vertices", positions.size(), vertex_count_);
  if (pose.local.size() != joint_count_)
    fail_plain("dlbs: the pose has {} joints, the rig {}", pose.local.size(), joint_count_);
  const bool with_normals =
      !normals.empty() && normals.size() == vertex_count_ && rest_normals_.size() == vertex_count_;
  sample_levels(pose, t, pose_at);
  if (bones_.empty()) return evaluate_exact(pose, positions, normals, with_normals, pool);
  class_palette(pose, pool);
  LbsJob job{class_palette_, &class_skin_, rest_positions_, {}, positions, {}, true};
  if (with_normals) {
    job.in_normals = rest_normals_;
    job.out_normals = normals;
  }
  job.run(pool);
}

// Per vertex: its chain's delayed rotations composed from the root, then the LBS blend.
void DelayedLbs::evaluate_exact(const Pose& pose, std::span<Vec3f> positions, std::span<Vec3f> normals,
                                bool with_normals, ThreadPool* pool) const {
  auto body = [&](std::size_t chunk_begin, std::size_t chunk_end) {
    std::vector<Affine> world(std::max<std::size_t>(max_row_, 1));
    for (std::size_t c = chunk_begin; c < chunk_end; ++c) {
      const std::size_t first = c * kChunk, last = std::min(vertex_count_, first + kChunk);
      for (std::size_t v = first; v < last; ++v) {
        const std::uint32_t row = distances_.offsets[v];
        for (std::uint32_t k = row; k < distances_.offsets[v + 1]; ++k) {
          const std::uint32_t j = distances_.joints[k];
          const Quatf* level = level_rotations_.data() + level_[k] * joint_count_;
          const Quatf rotation =
              fraction_[k] > 0 ? slerp_shortest(level[j], level[joint_count_ + j], fraction_[k]) : level[j];
          const Affine local = local_matrix(pose.local[j], rotation);
          const std::int32_t parent = parent_slot_[k];
          world[k - row] = parent < 0 ? local : compose(world[parent], local);
        }
        Affine blend = Affine::Zero();
        for (std::uint32_t i = influence_offsets_[v]; i < influence_offsets_[v + 1]; ++i) {
          const Mat4f& inverse_bind = inverse_bind_[influence_joint_[i]];
          const Affine& w = world[influence_slot_[i]];
          Affine skinning;
          skinning.leftCols<3>() = w.leftCols<3>() * inverse_bind.topLeftCorner<3, 3>();
          skinning.col(3) = w.leftCols<3>() * inverse_bind.topRightCorner<3, 1>() + w.col(3);
          blend += influence_weight_[i] * skinning;
        }
        positions[v] = blend.leftCols<3>() * rest_positions_[v] + blend.col(3);
        if (with_normals) {
          Vec3f n = blend.leftCols<3>() * rest_normals_[v];
          const float length = n.norm();
          normals[v] = length > 0 ? Vec3f(n / length) : n;
        }
      }
    }
  };
  const std::size_t chunks = (vertex_count_ + kChunk - 1) / kChunk;
  parallel_for(pool, chunks, 1, body);
}

namespace {

class DelayedLbsDeformer final : public Deformer {
 public:
  explicit DelayedLbsDeformer(DelayedLbsParameters parameters) : parameters_(parameters) {}
  const DeformerDescription& description() const override { return dlbs_description(); }
  void bind(const Character& character) override {
    bind_skinned(character, "dlbs", [&] { dlbs_.bind(character, parameters_); });
    bound_ = &character;
  }
  // New speeds re-quantise the delays; the interactive pose history is kept.
  void update(const DeformerSettings& settings) override {
    parameters_ = settings.as<DelayedLbsParameters>();
    if (bound_) dlbs_.set_parameters(*bound_, parameters_);
  }
  void reset() override { dlbs_.reset(); }
  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    dlbs_.evaluate(frame.pose, frame.time, frame.pose_at, positions, normals,
                   pool_worth_using(frame.pool, positions.size(), deform::vertex_cost_ns::kDelayedLbs));
  }

 private:
  DelayedLbsParameters parameters_;
  DelayedLbs dlbs_;
  const Character* bound_ = nullptr;
};

}  // namespace

const DeformerDescription& dlbs_description() {
  static const DeformerDescription description = [] {
    // One chain per parameter (key, accessor, unit, range, help), laid out by hand:
    // clang-format off
    describe::Fields<DelayedLbsParameters> f;
    f.number("wave_speed", [](auto& p) -> auto& { return p.wave_speed; })
        .unit("character sizes/s").above(0, 1e12).soft(0.25, 20).help("wave speed c of the joint rotations");
    f.number("wave_speed_units", [](auto& p) -> auto& { return p.wave_speed_units; })
        .unit("scene units/s").range(0, 1e12).soft(0, 100)
        .help("wave speed c in scene units per second; above 0 it replaces wave_speed");
    f.number("delay_step", [](auto& p) -> auto& { return p.delay_step; })
        .unit("s").above(0, 1).soft(1.0 / 960, 1.0 / 30).help("sampling step of the delays");
    // clang-format on
    return f.deformer(
        "dlbs", DeformerStage::Base,
        "delayed linear blend skinning: joint rotations reach vertices as a wave (replaces lbs)",
        [](const DeformerSettings& s) {
          return std::unique_ptr<Deformer>(std::make_unique<DelayedLbsDeformer>(s.as<DelayedLbsParameters>()));
        });
  }();
  return description;
}

}  // namespace wobble
