#pragma once
// Cycles: whether a clip loops, and its pose at any time of an endless repetition (seamless
// loops, pre-roll over the previous cycle).
//
// A clip is a cycle when the joints' local rotations at its end equal those at its start within
// a tolerance; translations may differ (root motion: a walk that advances is a cycle too). Two
// conventions are recognised:
//   - the last key repeats the first pose: the period is end - start;
//   - the clip ends one key interval before the first pose repeats (many game exports): the
//     rotations from the last key to the first pose change no more than over a key interval
//     inside the clip; the period is end - start + that interval, and in the gap after the last
//     key the pose goes from the last key to the first pose (slerp, as between keys).
// The period may also be given (--loop-period), or a clip treated as a cycle of its own length
// anyway (--loop-force).
#include <cstdint>
#include <string>
#include <vector>

#include <wobble/clip.hpp>
#include <wobble/math.hpp>
#include <wobble/pose.hpp>

namespace wobble {

struct Rig;

enum class CycleKind { LastKeyRepeats, EndsOneKeyEarly, GivenPeriod, Forced };

struct CycleOptions {
  double period = 0;               // s; > 0: the period is given, not detected
  bool force = false;              // a cycle of the clip's own duration, whatever its poses
  double tolerance_degrees = 0.5;  // largest difference of a joint's local rotation that still repeats
};

struct Cycle {
  CycleKind kind = CycleKind::LastKeyRepeats;
  double start = 0;             // clip time where the cycle starts (the clip's first key), s
  double period = 0;            // s
  double last_key = 0;          // the clip's last key, s (a pose after it, within the period, is interpolated)
  double mismatch_degrees = 0;  // largest joint rotation between the start and the end of one period
  std::string mismatch_joint;
  // Local translation gained per cycle (root motion), per joint: zero except on the topmost
  // animated joints of a clip that advances.
  std::vector<Vec3f> advance;

  // One line: which convention was found, the period, how well the ends match.
  std::string describe() const;
  // The clip time of t on the endless repetition (in [start, start + period)), and which
  // repetition t is in (0 for the first, -1 for the one before).
  double phase(double t, std::int64_t* repetition = nullptr) const;
};

// Finds the clip's cycle. Throws Error, naming the clip and saying how far apart its end and start
// poses are, when it is no cycle and neither a period nor force is given.
Cycle find_cycle(const Rig& rig, const Clip& clip, const CycleOptions& options = {});

// The pose at time t of the cycle repeated forever (before and after the clip too): rotations
// and scales repeat, translations advance by `advance` per repetition.
void evaluate_cycle_pose(const Rig& rig, const Clip& clip, const Cycle& cycle, double t, Pose& pose);

}  // namespace wobble
