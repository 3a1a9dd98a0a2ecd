#pragma once
// An orbit camera (yaw, pitch, distance about a target, +Y up) and automatic framing.
#include <wobble/math.hpp>

namespace wobble::render {

struct OrbitCamera {
  Vec3f target = Vec3f::Zero();
  float yaw = 0.6f;          // radians about +Y; 0 looks along -Z (from +Z)
  float pitch = 0.25f;       // radians above the horizon, clamped to (-1.5, 1.5)
  float distance = 3.0f;     // from the target, scene units
  float fov_y = 0.7f;        // vertical field of view, radians
  float near_ratio = 0.01f;  // near plane = distance * near_ratio
  float far_ratio = 100.0f;  // far plane = distance * far_ratio

  Vec3f eye() const;
  Mat4f view() const;
  Mat4f projection(float aspect) const;
  Mat4f view_projection(float aspect) const { return projection(aspect) * view(); }
  // Puts the whole box in view (target at its centre, distance so that a vertical cylinder
  // around it fits with a margin, whatever the yaw), keeping yaw and pitch.
  void frame(const Eigen::AlignedBox3f& box, float aspect, float margin = 1.1f);
};

// A point projected to the screen: pixels from the top-left corner, depth in [0, 1] (visible
// when `in_front`).
struct ScreenPoint {
  Vec2f pixel = Vec2f::Zero();
  float depth = 0;
  bool in_front = false;
};
ScreenPoint project(const Mat4f& view_projection, const Vec3f& point, int width, int height);

}  // namespace wobble::render
