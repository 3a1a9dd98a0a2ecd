#pragma once
// Baking: run a deformer stack over a clip at a fixed frame rate.
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <wobble/offline/bake_motion.hpp>
#include <wobble/character.hpp>
#include <wobble/offline/baked_frames.hpp>
#include <wobble/parameters.hpp>
#include <wobble/stack.hpp>

namespace wobble {

class DeformerStack;
class ThreadPool;

struct BakeOptions {
  std::size_t clip = 0;
  double fps = 60.0;
  std::optional<double> start;  // seconds; unset: the clip's start (a given NaN is an error, not "unset")
  std::optional<double> end;    // seconds; unset: the clip's end
  StackDescription stack = StackDescription::parse("lbs");
  StackSettings settings;  // keyed parameters follow the clip time of each frame
  // Around the frames: pre-roll (hold, the default, or S s of the previous frames), or a loop (the
  // clip's cycle in its periodic steady state; the frames then run on into the next cycles and
  // `end` defaults to one period after the start: a cycle, both ends). See bake_motion.hpp.
  MotionOptions motion;
  ThreadPool* pool = nullptr;
  std::function<void(std::size_t done, std::size_t total)> progress;  // may be empty
};

// Frame times t_k = start + k / fps for k = 0.. up to and including end (a last frame within
// 1e-6 s of end counts as end). Throws Error for fps <= 0, end < start or non-finite values.
std::vector<double> frame_times(double start, double end, double fps);

// How the bake sees the clip around its frames (its pre-roll or loop). Throws Error (naming the
// character's file) for a missing clip, or a loop over a clip that is no cycle.
BakeMotion bake_motion(const Character& character, const BakeOptions& options);

// The times of the frames bake() writes: frame_times over [start, end] with the options' defaults
// (the clip's first and last keys; one cycle, both ends, for a loop). Throws Error as bake().
std::vector<double> bake_frame_times(const Character& character, const BakeOptions& options);
// The same for a motion bake_motion(character, options) already made (it is not made again).
std::vector<double> bake_frame_times(const Character& character, const BakeMotion& motion, const BakeOptions& options);

// A loop whose stack has keyed parameters: the exact steady state (Deformer::start_periodic)
// holds the parameters of the cycle's start, so the history settles over whole cycles run before
// the first frame. Runs the cycle (frames at `fps` from the cycle's start) until the effect (the
// stack minus its base skinning) at the cycle's start changes by at most kLoopSettlingTolerance of
// the character's size from one cycle to the next (at most kMaxSettlingCycles; the change left
// is then in motion.describe() and warned about) and tells `motion` (BakeMotion::settle).
// Nothing to do for a stack without keys, or without a loop.
inline constexpr double kLoopSettlingTolerance = 1e-7;
inline constexpr std::size_t kMaxSettlingCycles = 100;
void settle_keyed_loop(const Character& character, BakeMotion& motion, const StackDescription& stack,
                       const StackSettings& settings, double fps, ThreadPool* pool = nullptr);

// Starts a bound stack's history for `motion`'s first frame: a loop's periodic steady state at
// motion.history_origin(), then the frames before the first frame (pre_roll_times), run and
// dropped.
void start_history(DeformerStack& stack, const Character& character, const BakeMotion& motion, double fps,
                   ThreadPool* pool = nullptr);

// Bakes world-space positions for every frame. Throws Error on bad options (a loop over a clip
// that is no cycle says how far apart its ends are), and before the first frame when all frames
// (positions and skinning matrices) would not fit in physical memory. motion_summary, when given, is set to the
// motion's one line (BakeMotion::describe: the loop's cycle, its settling, or the pre-roll).
BakedFrames bake(const Character& character, const BakeOptions& options, std::string* motion_summary = nullptr);

}  // namespace wobble
