#include <wobble/offline/decomposed_character.hpp>

#include <fmt/core.h>

#include "core/fail.hpp"

namespace wobble {
namespace {

Mat4f translation_matrix(const Vec3f& t) {
  Mat4f m = Mat4f::Identity();
  m.topRightCorner<3, 1>() = t;
  return m;
}

// Translation and rotation channels of joint `joint` from its world transforms (its parent is
// the identity root), one key per frame.
void add_bone_channels(Clip& clip, std::uint32_t joint, std::span<const float> times,
                       const std::vector<std::vector<BoneTransform>>& transforms, std::size_t bone,
                       const Vec3f& centre) {
  Channel translation{joint, ChannelPath::Translation, Interpolation::Linear, {times.begin(), times.end()}, {}};
  Channel rotation{joint, ChannelPath::Rotation, Interpolation::Linear, {times.begin(), times.end()}, {}};
  Quatf previous = Quatf::Identity();
  for (const auto& frame : transforms) {
    const BoneTransform& m = frame[bone];
    // world = M * bind, bind a translation to the centre: its translation is R c + T.
    const Eigen::Vector3d t = m.leftCols<3>() * centre.cast<double>() + m.col(3);
    translation.values.insert(translation.values.end(), {float(t.x()), float(t.y()), float(t.z())});
    previous = continuous_rotation(m.leftCols<3>(), previous);
    rotation.values.insert(rotation.values.end(), {previous.x(), previous.y(), previous.z(), previous.w()});
  }
  clip.channels.push_back(std::move(translation));
  clip.channels.push_back(std::move(rotation));
}

}  // namespace

Quatf continuous_rotation(const Eigen::Matrix3d& rotation, const Quatf& previous) {
  Quatf q = Eigen::Quaterniond(rotation).normalized().cast<float>();
  if (q.dot(previous) < 0) q.coeffs() = -q.coeffs();
  return q;
}

Character decomposed_character(const Mesh& rest, const Decomposition& result, std::span<const float> times,
                               const std::string& clip_name) {
  if (result.fixed_bones != 0) fail_plain("decomposed_character: the decomposition has fixed bones");
  if (times.size() != result.transforms.size())
    fail_plain("decomposed_character: {} times for {} frames", times.size(), result.transforms.size());
  if (result.weights.vertex_count() != rest.vertex_count())
    fail_plain("decomposed_character: weights of {} vertices for a mesh of {}", result.weights.vertex_count(),
               rest.vertex_count());
  Character character;
  character.mesh = rest;
  character.rig.add_joint("decomposition_root", -1, Transform{}, Mat4f::Identity(), false);
  const int digits = static_cast<int>(fmt::format("{}", result.free_bones - 1).size());
  Clip clip;
  clip.name = clip_name;
  for (std::size_t b = 0; b < result.free_bones; ++b) {
    const Vec3f& centre = result.centres[b];
    Transform bind;
    bind.translation = centre;
    const int joint =
        character.rig.add_joint(fmt::format("bone_{:0{}}", b, digits), 0, bind, translation_matrix(-centre), true);
    add_bone_channels(clip, static_cast<std::uint32_t>(joint), times, result.transforms, b, centre);
  }
  // Bone b is joint b + 1 (the root is joint 0).
  character.skin = result.weights;
  for (std::uint32_t& joint : character.skin.joints) ++joint;
  character.clips.push_back(std::move(clip));
  return character;
}

}  // namespace wobble
