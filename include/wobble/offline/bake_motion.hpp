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
//
// Keyed parameters follow the clip time of each frame (clip_time): for a loop the time wrapped
// into the cycle, so a keyed loop repeats its keys every cycle. A key beyond the cycle's end (or
// before its start) is never reached: it only shapes the interpolation toward it from the last
// key inside. The exact steady state holds the parameters of the cycle's start, so a keyed loop
// also settles its history over whole cycles run before the first frame (settle(), see
// settle_keyed_loop in bake.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/offline/cycle.hpp>
#include <wobble/pose.hpp>

namespace wobble {

struct PreRoll {
  bool hold = true;  // false: `seconds` of the clip's previous frames
  double seconds = 0;
  // "hold" or a number of seconds >= 0 (strict: parse.hpp); throws Error naming `what`.
  static PreRoll parse(std::string_view text, std::string_view what = "--pre-roll");
  std::string describe() const;
};

struct MotionOptions {
  bool loop = false;
  CycleOptions cycle;  // with loop: the period or force, if given
  PreRoll pre_roll;
};

class BakeMotion {
 public:
  // first_frame: the time of the first frame written (s). Throws Error for a loop over a clip
  // that is no cycle (the message says how far apart its ends are).
  BakeMotion(const Character& character, const Clip& clip, const MotionOptions& options, double first_frame);

  // The pose at time t (frames and pose_at alike).
  void pose(double t, Pose& pose) const;
  PoseSampler pose_sampler() const;
  // The clip time of t, which keyed parameters follow: wrapped into the cycle for a loop (and for
  // pre-roll over a cycle's previous frames), held at the history's start before it.
  double clip_time(double t) const;
  // A loop: `cycles` whole cycles run before the cycle that holds the first frame, so that a keyed
  // loop's history settles (pre_roll_times then begins at history_origin()); `residual`: the
  // effect's change over the last of them, a share of the character's size (for describe()).
  void settle(std::size_t cycles, double residual);
  std::size_t settling_cycles() const { return settling_; }
  // The times to run before the first frame, not written, oldest first: pre-roll S, or with a loop
  // the settling cycles' frames, then those from the cycle's start to a first frame later in it.
  std::vector<double> pre_roll_times(double fps) const;
  // The loop's cycle, or a cycle found for pre-roll S (nullopt: none).
  const std::optional<Cycle>& cycle() const { return cycle_; }
  bool periodic() const { return periodic_; }
  // With periodic(): where the cycle that holds the first frame starts.
  double cycle_start() const;
  // With periodic(): where the history starts in the periodic steady state: cycle_start(), or the
  // settling cycles before it.
  double history_origin() const;
  // One line for the bake's summary ("loop: a cycle of 2.4 s ...", "pre-roll: hold").
  std::string describe() const;

 private:
  const Character& character_;
  const Clip& clip_;
  std::optional<Cycle> cycle_;
  bool periodic_ = false;
  PreRoll pre_roll_;
  double first_frame_ = 0, history_start_ = 0;
  std::size_t settling_ = 0;
  double settling_residual_ = 0;
};

}  // namespace wobble
