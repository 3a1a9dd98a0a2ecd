#pragma once
// Joint picking and dragging, as in the Dynamic Skinning paper's demo: click a joint to select
// it, drag to turn it about the viewing direction. The turn is kept as a rotation on top of the
// clip's local rotation (a pose override), so the clip keeps playing underneath and the effect
// reacts to the drag.
#include <map>

#include <wobble/math.hpp>
#include <wobble/pose.hpp>
#include <wobble/rig.hpp>
#include <wobble/render/camera.hpp>

namespace wobble::viewer {

class JointDrag {
 public:
  int selected = -1;

  // Selects the joint under `pixel` (within a few pixels) and starts dragging it; false if none.
  bool press(const Pose& pose, const Mat4f& view_projection, int width, int height, const Vec2f& pixel);
  // Turns the dragged joint by the angle the cursor swept about the joint's screen position.
  void move(const Rig& rig, const Pose& pose, const render::OrbitCamera& camera, const Mat4f& view_projection,
            int width, int height, const Vec2f& pixel);
  void release() { dragging_ = false; }
  bool dragging() const { return dragging_; }

  // Pre-multiplies the overridden joints' local rotations (call update_world afterwards).
  void apply(Pose& pose) const;
  void clear() { overrides_.clear(); }
  bool has_overrides() const { return !overrides_.empty(); }
  // Adds a local rotation to joint j's override (what move() does).
  void turn(int joint, const Quatf& local_delta);

 private:
  std::map<int, Quatf> overrides_;
  bool dragging_ = false;
  Vec2f last_pixel_ = Vec2f::Zero();
};

}  // namespace wobble::viewer
