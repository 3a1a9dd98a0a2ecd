#include <wobble/render/framing.hpp>

#include <algorithm>

namespace wobble::render {

Eigen::AlignedBox3f bounds_of(std::span<const Vec3f> points) {
  Eigen::AlignedBox3f box;
  for (const Vec3f& p : points) box.extend(p);
  return box;
}

void FollowFraming::update(const Eigen::AlignedBox3f& box, float aspect, OrbitCamera& camera) {
  if (box.isEmpty()) return;
  const float radius = 0.5f * box.diagonal().norm();
  if (!started_) {
    target_ = box.center();
    radius_ = radius;
    started_ = true;
  } else {
    target_ += follow_ * (box.center() - target_);
    radius_ = std::max(radius_, radius);
  }
  // Frame a box of the largest radius seen, centred on the eased target.
  const Vec3f half = Vec3f::Constant(radius_ / std::sqrt(3.0f));
  camera.frame(Eigen::AlignedBox3f(target_ - half, target_ + half), aspect);
}

}  // namespace wobble::render
