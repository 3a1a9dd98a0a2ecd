#pragma once
// Pose evaluation: sample a clip into local transforms, then local -> world -> skinning matrices.
#include <functional>
#include <span>
#include <vector>

#include <wobble/math.hpp>

namespace wobble {

struct Rig;
struct Clip;

struct Pose {
  std::vector<Transform> local;  // per joint, relative to the parent
  std::vector<Mat4f> world;      // per joint, model (world) space
  std::vector<Mat4f> skinning;   // world * inverse_bind: bind space -> world space

  void resize(std::size_t joints);
};

// Evaluates the animation at any time into a pose (the clip the frames come from): effects that
// sample at their own rate or delay joints use it.
using PoseSampler = std::function<void(double time, Pose& pose)>;
// The sampler of a clip (evaluate_pose at the time); rig and clip must outlive it.
PoseSampler clip_sampler(const Rig& rig, const Clip& clip);

// Local transforms of the rest pose.
void rest_pose(const Rig& rig, Pose& pose);
// Local transforms from the clip at time t (joints without a channel keep their rest values),
// then world and skinning matrices. clip may be null (rest pose).
void evaluate_pose(const Rig& rig, const Clip* clip, float t, Pose& pose);
// As evaluate_pose, the local transforms only (for callers that edit them before update_world).
void evaluate_local_pose(const Rig& rig, const Clip* clip, float t, Pose& pose);
// World and skinning matrices from pose.local (the local transforms must be set).
void update_world(const Rig& rig, Pose& pose);

}  // namespace wobble
