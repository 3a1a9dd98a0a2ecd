// The animation a bake sees: the clip held before the history begins, its cycle repeated for a
// loop or a pre-roll over the previous cycle.
#include <wobble/offline/bake_motion.hpp>

#include <cmath>

#include <fmt/core.h>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace {

// Frames begin + k / fps before `end` (exclusive, within 1e-9 s).
void append_frames(std::vector<double>& times, double begin, double end, double fps) {
  for (std::size_t k = 0;; ++k) {
    const double t = begin + static_cast<double>(k) / fps;
    if (t >= end - 1e-9) break;
    times.push_back(t);
  }
}

}  // namespace

PreRoll PreRoll::parse(std::string_view text, std::string_view what) {
  PreRoll pre_roll;
  if (text == "hold") return pre_roll;
  pre_roll.hold = false;
  try {
    pre_roll.seconds = parse_real(text, what, 0, 1e5);
  } catch (const Error&) {
    fail_plain("{}: '{}' is neither 'hold' nor a number of seconds >= 0", what, text);
  }
  return pre_roll;
}

std::string PreRoll::describe() const {
  return hold ? std::string("hold (the first pose held forever)") : fmt::format("{} s of the previous frames", seconds);
}

BakeMotion::BakeMotion(const Character& character, const Clip& clip, const MotionOptions& options, double first_frame)
    : character_(character), clip_(clip), pre_roll_(options.pre_roll), first_frame_(first_frame) {
  if (!std::isfinite(first_frame)) fail_plain("the first frame's time must be finite");
  if (options.loop) {
    cycle_ = find_cycle(character.rig, clip, options.cycle);
    periodic_ = true;
  } else if (!pre_roll_.hold) {
    try {
      cycle_ = find_cycle(character.rig, clip);  // a cycle's previous frames are its end
    } catch (const Error&) {
      cycle_.reset();  // not a cycle: its first pose is held before it
    }
  }
  history_start_ = periodic_ || pre_roll_.hold ? first_frame : first_frame - pre_roll_.seconds;
}

void BakeMotion::pose(double t, Pose& pose) const {
  if (periodic_) return evaluate_cycle_pose(character_.rig, clip_, *cycle_, t, pose);
  const double held = std::max(t, history_start_);  // before the history begins: its first pose, held
  if (cycle_ && held < clip_.start()) return evaluate_cycle_pose(character_.rig, clip_, *cycle_, held, pose);
  evaluate_pose(character_.rig, &clip_, static_cast<float>(held), pose);
}

PoseSampler BakeMotion::pose_sampler() const {
  return [this](double t, Pose& other) { pose(t, other); };
}

double BakeMotion::clip_time(double t) const {
  if (periodic_) return cycle_->phase(t);
  const double held = std::max(t, history_start_);
  return cycle_ && held < clip_.start() ? cycle_->phase(held) : held;
}

void BakeMotion::settle(std::size_t cycles, double residual) {
  if (!periodic_ && cycles > 0) fail_plain("settling cycles without a loop");
  settling_ = cycles;
  settling_residual_ = residual;
}

std::vector<double> BakeMotion::pre_roll_times(double fps) const {
  std::vector<double> times;
  if (!(fps > 0)) fail_plain("frame rate must be a positive number of frames per second (got {})", fps);
  // The frames of a bake started where the history begins, up to (not including) the first frame:
  // with a loop, from the start of the cycle that holds the first frame.
  // Settling cycles each start on their cycle's start, so that their frames fall on the same
  // instants of the cycle as those of the cycle holding the first frame.
  if (periodic_) {
    for (std::size_t c = settling_; c > 0; --c) {
      const double begin = cycle_start() - static_cast<double>(c) * cycle_->period;
      append_frames(times, begin, begin + cycle_->period, fps);
    }
  }
  append_frames(times, periodic_ ? cycle_start() : history_start_, first_frame_, fps);
  return times;
}

double BakeMotion::history_origin() const { return cycle_start() - static_cast<double>(settling_) * cycle_->period; }

double BakeMotion::cycle_start() const {
  if (!periodic_) fail_plain("cycle_start() without a loop");
  return cycle_->start + std::floor((first_frame_ - cycle_->start) / cycle_->period + 1e-9) * cycle_->period;
}

std::string BakeMotion::describe() const {
  if (periodic_) {
    std::string text = "loop: " + cycle_->describe();
    if (settling_ > 0) {
      text += fmt::format(
          "; keyed parameters: {} cycle{} run before the first to settle the history (the effect's "
          "change over the last: {:.1e} of the size)",
          settling_, settling_ == 1 ? "" : "s", settling_residual_);
    }
    return text;
  }
  std::string text = "pre-roll: " + pre_roll_.describe();
  if (!pre_roll_.hold) text += cycle_ ? " (the cycle's, wrapped)" : " (the first pose held before the clip)";
  return text;
}

}  // namespace wobble
