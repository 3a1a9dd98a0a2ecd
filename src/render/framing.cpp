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
  const Vec3f half = 0.5f * box.sizes();
  if (!started_) {
    target_ = box.center();
    half_ = half;
    started_ = true;
  } else {
    target_ += follow_ * (box.center() - target_);
    half_ = half_.cwiseMax(half);
  }
  // The largest extents seen, centred on the eased target.
  camera.frame(Eigen::AlignedBox3f(target_ - half_, target_ + half_), aspect);
}

}  // namespace wobble::render
