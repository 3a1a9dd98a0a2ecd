#pragma once
// Automatic framing that follows a moving character: the camera keeps its angles, its distance
// fits the largest extents seen so far (no pumping), its target eases toward the current centre.
#include <span>

#include <wobble/math.hpp>
#include <wobble/render/camera.hpp>

namespace wobble::render {

class FollowFraming {
 public:
  // follow in [0, 1]: the share of the way the target moves toward the centre per update
  // (1: locked on the character).
  explicit FollowFraming(float follow = 1.0f) : follow_(follow) {}
  void reset() { started_ = false; }
  void update(const Eigen::AlignedBox3f& box, float aspect, OrbitCamera& camera);

 private:
  float follow_;
  bool started_ = false;
  Vec3f half_ = Vec3f::Zero();  // largest half extents seen
  Vec3f target_ = Vec3f::Zero();
};

// Bounds of a point set (empty box for no points).
Eigen::AlignedBox3f bounds_of(std::span<const Vec3f> points);

}  // namespace wobble::render
