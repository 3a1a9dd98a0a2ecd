#include "playback.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace wobble::viewer {

void Playback::set_range(float start, float end) {
  start_ = start;
  end_ = std::max(start, end);
  clip_time_ = start_;
  mark_jump();
}

void Playback::mark_jump() {
  jumped_ = true;
  hold_ = true;
  played_time_ = clip_time_;
  jump_simulation_time_ = simulation_time_;
  jump_clip_time_ = clip_time_;
}

float Playback::wrap(double t) const {
  const double length = end_ - start_;
  if (length <= 0) return start_;
  if (loop) return static_cast<float>(start_ + std::fmod(std::fmod(t - start_, length) + length, length));
  return static_cast<float>(std::clamp(t, static_cast<double>(start_), static_cast<double>(end_)));
}

void Playback::advance(double dt) {
  if (std::exchange(hold_, false)) return;
  simulation_time_ += dt;
  if (!playing) return;
  played_time_ = (loop ? played_time_ : clip_time_) + dt * speed;
  clip_time_ = wrap(played_time_);
  if (!loop) played_time_ = clip_time_;  // held at the end
}

void Playback::scrub(float t) {
  clip_time_ = std::clamp(t, start_, end_);
  mark_jump();
}

bool Playback::take_jump() {
  const bool jumped = jumped_;
  jumped_ = false;
  return jumped;
}

double Playback::endless_time_at(double s) const {
  return playing ? played_time_ + (s - simulation_time_) * speed : played_time_;
}

double Playback::played_time_at(double s) const {
  if (!playing) return played_time_;
  if (s <= jump_simulation_time_) return jump_clip_time_;
  // Without a loop the played time is the clip time: it holds at the clip's ends.
  if (!loop) return wrap(clip_time_ + (s - simulation_time_) * speed);
  return endless_time_at(s);
}

float Playback::clip_time_at(double s) const { return wrap(played_time_at(s)); }

}  // namespace wobble::viewer
