#include <wobble/render/camera.hpp>

#include <algorithm>
#include <cmath>

namespace wobble::render {

namespace {
float clamped_pitch(float pitch) { return std::clamp(pitch, -1.5f, 1.5f); }
}  // namespace

Vec3f OrbitCamera::eye() const {
  const float p = clamped_pitch(pitch);
  const Vec3f direction(std::sin(yaw) * std::cos(p), std::sin(p), std::cos(yaw) * std::cos(p));
  return target + distance * direction;
}

Mat4f OrbitCamera::view() const {
  const Vec3f e = eye();
  const Vec3f forward = (target - e).normalized();
  const Vec3f right = forward.cross(Vec3f::UnitY()).normalized();
  const Vec3f up = right.cross(forward);
  Mat4f m = Mat4f::Identity();
  m.block<1, 3>(0, 0) = right.transpose();
  m.block<1, 3>(1, 0) = up.transpose();
  m.block<1, 3>(2, 0) = -forward.transpose();
  m(0, 3) = -right.dot(e);
  m(1, 3) = -up.dot(e);
  m(2, 3) = forward.dot(e);
  return m;
}

Mat4f OrbitCamera::projection(float aspect) const {
  const float near_plane = std::max(distance * near_ratio, 1e-6f);
  const float far_plane = std::max(distance * far_ratio, near_plane * 2);
  const float f = 1.0f / std::tan(0.5f * fov_y);
  Mat4f m = Mat4f::Zero();
  m(0, 0) = f / aspect;
  m(1, 1) = f;
  m(2, 2) = (far_plane + near_plane) / (near_plane - far_plane);
  m(2, 3) = 2 * far_plane * near_plane / (near_plane - far_plane);
  m(3, 2) = -1;
  return m;
}

void OrbitCamera::frame(const Eigen::AlignedBox3f& box, float aspect, float margin) {
  if (box.isEmpty()) return;
  target = box.center();
  // A vertical cylinder around the box (characters stand upright) fits the view from any yaw:
  // its half height in the vertical field of view, its radius in the horizontal one, measured
  // from the cylinder's near side.
  const Vec3f half = 0.5f * box.sizes();
  const float radius = std::max(std::sqrt(half.x() * half.x() + half.z() * half.z()), 1e-6f);
  const float tan_y = std::tan(0.5f * fov_y), tan_x = tan_y * aspect;
  const float tilt = std::abs(std::sin(pitch));  // looking down, the depth shows up vertically
  const float fit = std::max((half.y() + tilt * radius) / tan_y, radius / tan_x);
  distance = margin * fit + radius;
}

ScreenPoint project(const Mat4f& view_projection, const Vec3f& point, int width, int height) {
  const Vec4f clip = view_projection * point.homogeneous();
  ScreenPoint result;
  result.in_front = clip.w() > 1e-9f;
  if (!result.in_front) return result;
  const Vec3f ndc = clip.head<3>() / clip.w();
  result.pixel = Vec2f((ndc.x() * 0.5f + 0.5f) * width, (0.5f - ndc.y() * 0.5f) * height);
  result.depth = ndc.z() * 0.5f + 0.5f;
  return result;
}

}  // namespace wobble::render
