#include "capi/host_motion.hpp"

#include <cmath>

#include <wobble/error.hpp>

#include <fmt/core.h>

namespace wobble::capi {

void HostMotion::set(wobble_pose_sampler sampler, void* user_data, const Rig& rig) {
  sampler_ = sampler;
  user_data_ = user_data;
  matrices_.assign(16 * rig.joint_count(), 0.0f);
  pose_.prepare(rig);
}

PoseSampler HostMotion::sampler(const Rig& rig) {
  if (empty()) return {};
  return [this, &rig](double time, Pose& out) { sample(rig, time, out); };
}

void HostMotion::sample(const Rig& rig, double time, Pose& out) {
  const auto joints = static_cast<std::uint32_t>(rig.joint_count());
  const int status = sampler_(time, matrices_.data(), joints, user_data_);
  if (status != 0) throw HostFailure(fmt::format("the pose sampler failed at {} s (it returned {})", time, status));
  const wobble_frame frame{time, matrices_.data(), joints, nullptr};
  try {
    pose_.set(rig, frame);
  } catch (const Error& e) {
    throw HostFailure(fmt::format("the pose sampler at {} s: {}", time, e.what()));
  }
  out = pose_.pose;
}

}  // namespace wobble::capi
