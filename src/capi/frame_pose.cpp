#include "capi/frame_pose.hpp"

#include <cmath>

#include "core/fail.hpp"

namespace wobble::capi {

namespace {

// T R S of a joint's local matrix, quickly (a frame's worth of joints): the scale from the column
// lengths (a negative determinant into x, as Transform::from_matrix), the rotation from the
// normalised columns, without from_matrix's re-orthonormalisation (engines' matrices are TRS).
Transform local_transform(const Mat4f& m) {
  Transform t;
  t.translation = m.topRightCorner<3, 1>();
  Mat3f rotation = m.topLeftCorner<3, 3>();
  t.scale = Vec3f(rotation.col(0).norm(), rotation.col(1).norm(), rotation.col(2).norm());
  if (rotation.determinant() < 0) t.scale.x() = -t.scale.x();
  for (int c = 0; c < 3; ++c) {
    if (t.scale[c] != 0) rotation.col(c) /= t.scale[c];
  }
  t.rotation = Quatf(rotation).normalized();
  return t;
}

}  // namespace

void FramePose::prepare(const Rig& rig) { pose.resize(rig.joint_count()); }

void FramePose::set(const Rig& rig, const wobble_frame& frame) {
  const std::size_t joints = rig.joint_count();
  if (frame.joint_count != joints) fail_plain("frame: {} joint matrices for a character of {} joints", frame.joint_count, joints);
  if (!frame.joint_world_matrices) fail_plain("frame: joint_world_matrices is NULL");
  if (!std::isfinite(frame.time)) fail_plain("frame: time is not finite");
  for (std::size_t j = 0; j < joints; ++j) {
    pose.world[j] = Eigen::Map<const Mat4f>(frame.joint_world_matrices + 16 * j);
    if (!pose.world[j].allFinite()) fail_plain("frame: the world matrix of joint {} is not finite", j);
  }
  for (std::size_t j = 0; j < joints; ++j) pose.skinning[j] = pose.world[j] * rig.inverse_bind[j];
  if (frame.joint_local_transforms) {
    for (std::size_t j = 0; j < joints; ++j) {
      const float* t = frame.joint_local_transforms + 10 * j;
      Transform& local = pose.local[j];
      local.translation = Vec3f(t[0], t[1], t[2]);
      local.rotation = Quatf(t[6], t[3], t[4], t[5]);  // (w, x, y, z)
      local.scale = Vec3f(t[7], t[8], t[9]);
      const float norm = local.rotation.norm();
      if (!local.translation.allFinite() || !local.scale.allFinite() || !(std::abs(norm - 1.0f) < 1e-3f)) {
        fail_plain("frame: the local transform of joint {} is not finite or its rotation not a unit quaternion", j);
      }
    }
    return;
  }
  for (std::size_t j = 0; j < joints; ++j) {
    const int parent = rig.parents[j];
    const Mat4f local = parent < 0 ? pose.world[j]
                                   : Mat4f(Eigen::Affine3f(pose.world[parent]).inverse(Eigen::Affine).matrix() * pose.world[j]);
    pose.local[j] = local_transform(local);
  }
}

}  // namespace wobble::capi
