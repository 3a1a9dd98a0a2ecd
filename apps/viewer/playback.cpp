#include "playback.hpp"

#include <algorithm>
#include <cmath>

namespace wobble::viewer {

void Playback::set_range(float start, float end) {
  start_ = start;
  end_ = std::max(start, end);
  clip_time_ = start_;
  played_time_ = start_;
  jumped_ = true;
}

float Playback::wrap(double t) const {
  const double length = end_ - start_;
  if (length <= 0) return start_;
  if (loop) return static_cast<float>(start_ + std::fmod(std::fmod(t - start_, length) + length, length));
  return static_cast<float>(std::clamp(t, static_cast<double>(start_), static_cast<double>(end_)));
}

void Playback::advance(double dt) {
  simulation_time_ += dt;
  if (!playing) return;
  played_time_ = (loop ? played_time_ : clip_time_) + dt * speed;
  clip_time_ = wrap(played_time_);
  if (!loop) played_time_ = clip_time_;  // held at the end
}

void Playback::scrub(float t) {
  clip_time_ = std::clamp(t, start_, end_);
  played_time_ = clip_time_;
  jumped_ = true;
}

bool Playback::take_jump() {
  const bool jumped = jumped_;
  jumped_ = false;
  return jumped;
}

double Playback::played_time_at(double s) const {
  if (!playing) return played_time_;
  // Without a loop the played time is the clip time: it holds at the clip's ends.
  if (!loop) return wrap(clip_time_ + (s - simulation_time_) * speed);
  return played_time_ + (s - simulation_time_) * speed;
}

float Playback::clip_time_at(double s) const { return wrap(played_time_at(s)); }

}  // namespace wobble::viewer
