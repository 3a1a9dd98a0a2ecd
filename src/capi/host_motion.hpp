#pragma once
// A host's own animation as the deformers' PoseSampler (wobble_stack_set_pose_sampler): the
// effects that read the motion at other times than the frame's (Dynamic Skinning's 60 Hz samples,
// a periodic start's cycle) get the host's joint world matrices at those times, turned into poses
// as a frame's are (FramePose).
#include <stdexcept>
#include <vector>

#include <wobble/deformer.hpp>
#include <wobble/rig.hpp>
#include <wobble/wobble.h>

#include "capi/frame_pose.hpp"

namespace wobble::capi {

// The host could not give a pose (the sampler returned nonzero, or gave matrices that are not
// finite): the call that asked fails with WOBBLE_FAILED.
struct HostFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class HostMotion {
 public:
  void set(wobble_pose_sampler sampler, void* user_data, const Rig& rig);
  bool empty() const { return sampler_ == nullptr; }
  // The host's sampler for the deformers; throws HostFailure when the host fails. Valid
  // while this object lives and until the next set().
  PoseSampler sampler(const Rig& rig);

 private:
  void sample(const Rig& rig, double time, Pose& out);

  wobble_pose_sampler sampler_ = nullptr;
  void* user_data_ = nullptr;
  std::vector<float> matrices_;  // the host's answer, 16 floats per joint
  FramePose pose_;
};

}  // namespace wobble::capi
