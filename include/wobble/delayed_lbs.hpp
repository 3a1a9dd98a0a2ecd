#pragma once
// Delayed linear blend skinning (dLBS, Rohmer et al., TVCG 2026): the rotation of each joint
// reaches a vertex after a delay equal to the distance along the skeleton from the joint to the
// vertex's closest point on the bones, divided by a wave speed c, so that motion travels from the
// root to the extremities like a wave. For each vertex, the local transforms of the joints above
// it are taken with their own delayed rotations (translations and scales are not delayed) and
// composed along each chain (unit quaternions, spherical interpolation between sampled delays),
// then blended as in LBS. c -> infinity is LBS.
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include <wobble/lbs.hpp>
#include <wobble/math.hpp>
#include <wobble/pose.hpp>

namespace wobble {

struct Character;
struct Mesh;
struct Rig;
struct Skin;
class ThreadPool;

struct DelayedLbsParameters {
  double wave_speed = 4.0;        // c, in character sizes L (bind-pose bounding-box diagonal) per second
  double wave_speed_units = 0;    // > 0: c in scene units per second instead (overrides wave_speed)
  double delay_step = 1.0 / 240;  // s: rotations are sampled at delays k * delay_step and slerped between
  std::string validate() const;
};

// Distances along the skeleton, in scene units (bind pose), from every joint that acts on a vertex
// (the ancestors of its influences, themselves included) to the vertex's closest point on the
// bones. The bones of a vertex are the segments from each of its influencing joints to that
// joint's skinned children (a joint without skinned children is a point). Bones through joints
// that carry no bind (armature nodes, scene roots) have length 0. Rows by vertex, joints ascending.
struct SkeletonDistances {
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> joints;
  std::vector<float> distances;
  std::vector<Vec3f> closest_points;  // per vertex, bind space
  // Per vertex, the bone of the closest point: its joints (end -1: a point), its length and the
  // closest point's distance from the start along it. Every distance of the vertex's row is
  // affine in that offset: distance + slope * (offset' - offset), slope +1 or -1 per pair.
  std::vector<std::int32_t> bone_starts, bone_ends;
  std::vector<float> bone_lengths, bone_offsets;
  std::vector<std::int8_t> slopes;

  std::size_t vertex_count() const { return offsets.size() - 1; }
  // Distance from joint j to vertex v's closest bone point, or -1 when j does not act on v.
  float distance(std::size_t v, std::uint32_t j) const;
  static SkeletonDistances from(const Rig& rig, const Mesh& mesh, const Skin& skin);
};

class DelayedLbs {
 public:
  void bind(const Rig& rig, const Mesh& mesh, const Skin& skin, const DelayedLbsParameters& parameters);
  void bind(const Character& character, const DelayedLbsParameters& parameters);
  // Forgets the pose history kept for interactive use (no sampler).
  void reset();
  // Binds again with new parameters (live: new speeds), keeping the interactive pose history.
  void set_parameters(const Character& character, const DelayedLbsParameters& parameters);
  // Writes the deformed positions (and normals, when both spans are non-empty) for the pose of
  // time t. pose_at evaluates the animation at other times; when empty (interactive posing) the
  // delayed rotations come from the history of poses given to evaluate().
  void evaluate(const Pose& pose, double t, const PoseSampler& pose_at, std::span<Vec3f> positions,
                std::span<Vec3f> normals = {}, ThreadPool* pool = nullptr);

  float character_size() const { return size_; }
  double wave_speed_units() const { return speed_; }  // c in scene units per second
  const SkeletonDistances& distances() const { return distances_; }
  // Delay in seconds of joint j's rotation at vertex v (-1 when j does not act on v).
  float delay(std::size_t v, std::uint32_t j) const;
  double max_delay() const { return max_delay_; }

 private:
  void sample_levels(const Pose& pose, double t, const PoseSampler& pose_at);
  void bind_classes(const Skin& skin);
  void pack_class_skin(const std::vector<std::uint32_t>& vertex_bone);
  void class_palette(const Pose& pose, ThreadPool* pool);
  void evaluate_exact(const Pose& pose, std::span<Vec3f> positions, std::span<Vec3f> normals, bool with_normals,
                      ThreadPool* pool) const;

  bool bound_ = false;
  float size_ = 1;
  double speed_ = 1, step_ = 1.0 / 240, max_delay_ = 0;
  std::size_t vertex_count_ = 0, joint_count_ = 0, max_row_ = 0, levels_ = 1;
  std::vector<int> parents_;
  std::vector<Mat4f> inverse_bind_;
  std::vector<Vec3f> rest_positions_, rest_normals_;
  SkeletonDistances distances_;
  std::vector<std::int32_t> parent_slot_;  // per pair: slot of the parent joint in the row, -1 for a root
  std::vector<std::uint16_t> level_;       // per pair: delay = (level + fraction) * step
  std::vector<float> fraction_;
  std::vector<std::uint32_t> influence_offsets_{0};  // per vertex influences (skin order)
  std::vector<std::uint32_t> influence_slot_;
  std::vector<float> influence_weight_;
  std::vector<std::uint32_t> influence_joint_;
  // Delay classes: vertices on one bone share their delays at positions k * class_spacing_ along
  // it; a vertex blends the skinning matrices of the two classes around it (a packed LBS skin
  // over a palette of one matrix per (class, influence joint)). Empty when the palette would not
  // fit 16-bit indices (then every vertex composes its own chain: evaluate_exact).
  struct BoneClasses {
    std::int32_t start = 0, end = -1;
    float length = 0;                   // scene units
    std::uint32_t levels = 1;           // classes at offsets 0, spacing, ..., (levels - 1) spacing
    std::uint32_t palette_offset = 0;   // palette entry of (class k, influence i): offset + k * influences.size() + i
    std::vector<std::uint32_t> joints;  // the bone's chain joints, ascending (parents first)
    std::vector<float> base_distances;  // per chain joint: distance at offset 0
    std::vector<std::int8_t> slopes;
    std::vector<std::int32_t> parent_slots;      // per chain joint: its parent's index in joints, -1 at a root
    std::vector<std::uint32_t> influences;       // joints that skin a vertex of the bone
    std::vector<std::uint32_t> influence_slots;  // their index in joints
  };
  std::vector<BoneClasses> bones_;
  double class_spacing_ = 0;  // scene units along a bone
  PackedSkin class_skin_;
  std::vector<Mat4f> class_palette_;
  // Per frame: local rotations at delays 0, step, 2 step, ... (levels_ x joints).
  std::vector<Quatf> level_rotations_;
  Pose scratch_;
  // Interactive history: times and local rotations of past frames, oldest first.
  std::deque<std::pair<double, std::vector<Quatf>>> history_;
};

}  // namespace wobble
