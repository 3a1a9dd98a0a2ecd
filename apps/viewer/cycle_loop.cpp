#include "cycle_loop.hpp"

#include <fmt/core.h>

#include <wobble/error.hpp>

namespace wobble::viewer {

void CycleLoop::set_clip(const Rig& rig, const Clip* clip) {
  rig_ = &rig;
  clip_ = clip;
  cycle_.reset();
  started_ = false;
  description_.clear();
  if (!clip) return;
  try {
    cycle_ = find_cycle(rig, *clip);
    description_ = "seamless loop: " + cycle_->describe();
  } catch (const Error& error) {
    description_ = fmt::format("loops with a seam: {}", error.what());
  }
}

float CycleLoop::start() const { return clip_ ? clip_->start() : 0.0f; }

float CycleLoop::end() const {
  if (cycle_) return static_cast<float>(cycle_->start + cycle_->period);
  return clip_ ? clip_->end() : 0.0f;
}

void CycleLoop::pose(const Playback& playback, Pose& pose) const {
  sampler(playback)(playback.simulation_time(), pose);
}

PoseSampler CycleLoop::sampler(const Playback& playback) const {
  // In the steady state the cycle has always been playing; otherwise the pose before the last
  // jump is the one jumped to, held (as a bake's history before its first frame).
  const bool endless = active(playback, false);
  return [this, &playback, endless](double s, Pose& pose) {
    if (!cycle_) return evaluate_pose(*rig_, clip_, playback.clip_time_at(s), pose);
    const double t = endless ? playback.endless_time_at(s) : playback.played_time_at(s);
    evaluate_cycle_pose(*rig_, *clip_, *cycle_, t, pose);
  };
}

bool CycleLoop::active(const Playback& playback, bool posed) const {
  return cycle_ && playback.loop && playback.playing && playback.speed > 0 && !posed;
}

std::optional<CycleLoop::Start> CycleLoop::take_start(const Playback& playback) {
  if (started_ && started_speed_ == playback.speed) return std::nullopt;
  started_ = true;
  started_speed_ = playback.speed;
  // How far into its repetition the played time is, in clip seconds, then in simulation seconds.
  const double into_cycle = cycle_->phase(playback.played_time()) - cycle_->start;
  Start start;
  start.time = playback.simulation_time() - into_cycle / playback.speed;
  start.period = cycle_->period / playback.speed;
  start.clip_time = cycle_->start;
  return start;
}

}  // namespace wobble::viewer
