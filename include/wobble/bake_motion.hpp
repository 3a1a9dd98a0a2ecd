#pragma once
// How a bake sees the animation around the frames it writes: the pose at any time (the frames'
// poses and the deformers' pose_at) and where the effects' history begins.
//
//   pre-roll hold (default)  the history begins at the first frame, as if its pose had been held
//                            forever: no jolt at the first frame, and a clip that starts from
//                            rest starts with no effect at all
//   pre-roll S seconds       the history begins S s before the first frame, over the clip's
//                            previous frames: the cycle's end when the clip is a cycle, its first
//                            pose held before its start otherwise; the frames before the first are
//                            run (at the bake's frame rate) but not written, so the result at t
//                            equals a bake started S s earlier, sliced
//   loop                     the clip is a cycle repeated forever and the history is its periodic
//                            steady state (Deformer::start_periodic): no seam; pre-roll is moot
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/cycle.hpp>
#include <wobble/pose.hpp>

namespace wobble {

struct PreRoll {
  bool hold = true;    // false: `seconds` of the clip's previous frames
  double seconds = 0;
  // "hold" or a number of seconds >= 0 (strict: parse.hpp); throws Error naming `what`.
  static PreRoll parse(std::string_view text, std::string_view what = "--pre-roll");
  std::string describe() const;
};

struct MotionOptions {
  bool loop = false;
  CycleOptions cycle;      // with loop: the period or force, if given
  PreRoll pre_roll;
};

class BakeMotion {
 public:
  // first_frame: the time of the first frame written (s). Throws Error for a loop over a clip
  // that is no cycle (the message says how far apart its ends are).
  BakeMotion(const Character& character, const Clip& clip, const MotionOptions& options, double first_frame);

  // The pose at time t (frames and pose_at alike).
  void pose(double t, Pose& pose) const;
  // The times to run before the first frame, not written, oldest first: pre-roll S, or with a loop
  // those from the cycle's start to a first frame later in the cycle.
  std::vector<double> pre_roll_times(double fps) const;
  // The loop's cycle, or a cycle found for pre-roll S (nullopt: none).
  const std::optional<Cycle>& cycle() const { return cycle_; }
  bool periodic() const { return periodic_; }
  // With periodic(): where the cycle that holds the first frame starts (the history's origin).
  double cycle_start() const;
  // One line for the bake's summary ("loop: a cycle of 2.4 s ...", "pre-roll: hold").
  std::string describe() const;

 private:
  const Character& character_;
  const Clip& clip_;
  std::optional<Cycle> cycle_;
  bool periodic_ = false;
  PreRoll pre_roll_;
  double first_frame_ = 0, history_start_ = 0;
};

}  // namespace wobble
