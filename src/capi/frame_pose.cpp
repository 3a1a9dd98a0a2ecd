#include "capi/frame_pose.hpp"

#include <algorithm>
#include <cmath>

#include "core/fail.hpp"

namespace wobble::capi {

namespace {

// A parent whose column lengths agree to this share, with columns as orthogonal, has a uniform
// scale: its children's local transforms are read from the world parts directly, off by about
// that share from the exact inverse. Animation data in single precision is only that uniform
// (clonk's Walk: column lengths 2e-6 apart).
constexpr float kUniformScale = 1e-5f;

// T R S of a joint's local matrix (the general case): the scale from the column lengths (a
// negative determinant into x, as Transform::from_matrix), the rotation from the normalised
// columns, without from_matrix's re-orthonormalisation (engines' matrices are TRS).
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

FramePose::WorldParts world_parts(const Mat4f& m) {
  FramePose::WorldParts parts;
  parts.rotation = m.topLeftCorner<3, 3>();
  parts.scale = Vec3f(parts.rotation.col(0).norm(), parts.rotation.col(1).norm(), parts.rotation.col(2).norm());
  const float largest = parts.scale.maxCoeff(), smallest = parts.scale.minCoeff();
  const bool mirrored = parts.rotation.determinant() < 0;
  const Mat3f& m3 = parts.rotation;
  const float shear = std::max(
      {std::abs(m3.col(0).dot(m3.col(1))), std::abs(m3.col(0).dot(m3.col(2))), std::abs(m3.col(1).dot(m3.col(2)))});
  parts.uniform = !mirrored && smallest > 0 && largest - smallest <= kUniformScale * largest &&
                  shear <= kUniformScale * largest * largest;
  if (mirrored) parts.scale.x() = -parts.scale.x();
  for (int c = 0; c < 3; ++c) {
    if (parts.scale[c] != 0) parts.rotation.col(c) /= parts.scale[c];
  }
  parts.translation = m.topRightCorner<3, 1>();
  return parts;
}

}  // namespace

void FramePose::prepare(const Rig& rig) {
  pose.resize(rig.joint_count());
  parts_.resize(rig.joint_count());
}

void FramePose::set(const Rig& rig, const wobble_frame& frame) {
  const std::size_t joints = rig.joint_count();
  if (frame.joint_count != joints)
    fail_plain("frame: {} joint matrices for a character of {} joints", frame.joint_count, joints);
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
  // Local = parent world^-1 * world. With a parent of uniform scale s (the usual case) that is
  // rotation R_parent^T R, scale S / s, translation R_parent^T (t - t_parent) / s, read from each
  // joint's world parts; other parents (non-uniform or mirrored scale) take the full inverse.
  for (std::size_t j = 0; j < joints; ++j) parts_[j] = world_parts(pose.world[j]);
  for (std::size_t j = 0; j < joints; ++j) {
    const int parent = rig.parents[j];
    Transform& local = pose.local[j];
    const WorldParts& own = parts_[j];
    if (parent < 0) {
      local.translation = own.translation;
      local.rotation = Quatf(own.rotation).normalized();
      local.scale = own.scale;
    } else if (const WorldParts& up = parts_[parent]; up.uniform) {
      const float inverse_scale = 3.0f / up.scale.sum();
      local.translation = inverse_scale * (up.rotation.transpose() * (own.translation - up.translation));
      local.rotation = Quatf(Mat3f(up.rotation.transpose() * own.rotation)).normalized();
      local.scale = inverse_scale * own.scale;
    } else {
      local = local_transform(Eigen::Affine3f(pose.world[parent]).inverse(Eigen::Affine).matrix() * pose.world[j]);
    }
  }
}

}  // namespace wobble::capi
