#pragma once
// A frame's pose from the engine's joint world matrices: world as given, skinning = world *
// inverse bind, local as given, or else parent world^-1 * world decomposed (for the deformers that
// read the joints' local rotations). Sized once; set() does not allocate.
#include <vector>

#include <wobble/pose.hpp>
#include <wobble/rig.hpp>
#include <wobble/wobble.h>

namespace wobble::capi {

class FramePose {
 public:
  Pose pose;

  void prepare(const Rig& rig);
  // Throws Error for a joint count other than the rig's, NULL matrices, non-finite numbers or a
  // non-finite time.
  void set(const Rig& rig, const wobble_frame& frame);

  // A world matrix split: rotation (normalised columns), scale (column lengths, a negative
  // determinant into x), translation; uniform: equal positive scales.
  struct WorldParts {
    Mat3f rotation;
    Vec3f scale;
    Vec3f translation;
    bool uniform = false;
  };

 private:
  std::vector<WorldParts> parts_;  // per joint, kept between frames
};

}  // namespace wobble::capi
