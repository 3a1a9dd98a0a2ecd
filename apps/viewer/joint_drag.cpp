#include "joint_drag.hpp"

#include <cmath>

#include <wobble/render/renderer.hpp>
#include <wobble/rig.hpp>

namespace wobble::viewer {

bool JointDrag::press(const Pose& pose, const Mat4f& view_projection, int width, int height, const Vec2f& pixel) {
  const int joint = render::pick_joint(render::joint_positions(pose), view_projection, width, height, pixel);
  if (joint < 0) return false;
  selected = joint;
  dragging_ = true;
  last_pixel_ = pixel;
  return true;
}

void JointDrag::move(const Rig& rig, const Pose& pose, const render::OrbitCamera& camera, const Mat4f& view_projection,
                     int width, int height, const Vec2f& pixel) {
  if (!dragging_ || selected < 0 || selected >= static_cast<int>(pose.world.size())) return;
  const Vec3f joint = pose.world[selected].block<3, 1>(0, 3);
  const render::ScreenPoint centre = render::project(view_projection, joint, width, height);
  const Vec2f u = last_pixel_ - centre.pixel, v = pixel - centre.pixel;
  last_pixel_ = pixel;
  if (u.norm() < 2 || v.norm() < 2) return;  // too close to the centre to tell an angle
  // Pixels run down: a positive angle here is clockwise on screen; a positive turn about the
  // axis toward the viewer is counter-clockwise.
  const float angle = std::atan2(u.x() * v.y() - u.y() * v.x(), u.dot(v));
  const Vec3f toward_viewer = (camera.eye() - camera.target).normalized();
  const Quatf world_turn(Eigen::AngleAxisf(-angle, toward_viewer));
  // Into the parent's frame: local' = P^-1 R P local.
  Quatf parent = Quatf::Identity();
  if (const int p = selected < static_cast<int>(rig.parents.size()) ? rig.parents[selected] : -1; p >= 0)
    parent = Transform::from_matrix(pose.world[p]).rotation.normalized();
  turn(selected, parent.conjugate() * world_turn * parent);
}

void JointDrag::turn(int joint, const Quatf& local_delta) {
  auto [it, inserted] = overrides_.try_emplace(joint, Quatf::Identity());
  it->second = (local_delta * it->second).normalized();
}

void JointDrag::apply(Pose& pose) const {
  for (const auto& [joint, delta] : overrides_)
    if (joint < static_cast<int>(pose.local.size()))
      pose.local[joint].rotation = (delta * pose.local[joint].rotation).normalized();
}

}  // namespace wobble::viewer
