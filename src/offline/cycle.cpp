// Cycle detection on a clip and the pose of its endless repetition.
#include <wobble/offline/cycle.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/core.h>

#include <wobble/error.hpp>
#include <wobble/rig.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace {

constexpr double kTimeTolerance = 1e-6;  // s: times this close are the same key

// The angle of the rotation from a to b, in double precision (acos of a float dot product loses
// small angles).
double rotation_degrees(const Quatf& a, const Quatf& b) {
  const Eigen::Quaterniond d = a.cast<double>().normalized().conjugate() * b.cast<double>().normalized();
  return 2 * std::atan2(d.vec().norm(), std::abs(d.w())) * 180 / std::numbers::pi;
}

struct Difference {
  double degrees = 0;
  std::size_t joint = 0;
};

// The largest difference of a joint's local rotation between two poses.
Difference rotation_difference(const Pose& a, const Pose& b) {
  Difference worst;
  for (std::size_t j = 0; j < a.local.size(); ++j) {
    const double d = rotation_degrees(a.local[j].rotation, b.local[j].rotation);
    if (d > worst.degrees) worst = {d, j};
  }
  return worst;
}

Pose pose_at(const Rig& rig, const Clip& clip, double t) {
  Pose pose;
  evaluate_pose(rig, &clip, static_cast<float>(t), pose);
  return pose;
}

// The shortest interval between the last two keys of the channels that end on the clip's end
// (0: no channel has two keys there).
double last_key_interval(const Clip& clip) {
  const double end = clip.end();
  double interval = 0;
  for (const Channel& channel : clip.channels) {
    const std::size_t n = channel.times.size();
    if (n < 2 || std::abs(channel.times[n - 1] - end) > kTimeTolerance) continue;
    const double h = static_cast<double>(channel.times[n - 1]) - channel.times[n - 2];
    if (h > kTimeTolerance && (interval == 0 || h < interval)) interval = h;
  }
  return interval;
}

// Joints with a translation channel and no animated ancestor: where root motion lives.
std::vector<bool> topmost_translated(const Rig& rig, const Clip& clip) {
  std::vector<bool> animated(rig.joint_count(), false), translated(rig.joint_count(), false);
  for (const Channel& channel : clip.channels) {
    if (channel.joint >= rig.joint_count()) continue;
    animated[channel.joint] = true;
    if (channel.path == ChannelPath::Translation) translated[channel.joint] = true;
  }
  std::vector<bool> topmost(rig.joint_count(), false);
  std::vector<bool> below_animated(rig.joint_count(), false);
  for (std::size_t j = 0; j < rig.joint_count(); ++j) {
    const int parent = rig.parents[j];
    below_animated[j] = parent >= 0 && (animated[parent] || below_animated[parent]);
    topmost[j] = translated[j] && !below_animated[j];
  }
  return topmost;
}

// Root motion per repetition: the translation gained over the period by the topmost translated
// joints. For a period beyond the last key it is extrapolated at the clip's mean speed, unless the
// ends differ no more than a key interval does (motion that returns, such as bobbing hips).
std::vector<Vec3f> root_advance(const Rig& rig, const Clip& clip, const Cycle& cycle, double key_interval) {
  std::vector<Vec3f> advance(rig.joint_count(), Vec3f::Zero());
  if (cycle.kind == CycleKind::Forced) return advance;
  const std::vector<bool> topmost = topmost_translated(rig, clip);
  const Pose first = pose_at(rig, clip, cycle.start);
  const double end_time = std::min(cycle.start + cycle.period, cycle.last_key);
  const Pose end = pose_at(rig, clip, end_time);
  const Pose before_end = pose_at(rig, clip, std::max(cycle.start, end_time - key_interval));
  const double covered = end_time - cycle.start;
  for (std::size_t j = 0; j < rig.joint_count(); ++j) {
    if (!topmost[j]) continue;
    const Vec3f gained = end.local[j].translation - first.local[j].translation;
    if (covered >= cycle.period - kTimeTolerance) {
      advance[j] = gained;
    } else if (covered > 0) {
      const float step = (end.local[j].translation - before_end.local[j].translation).norm();
      if (gained.norm() > 2 * step) advance[j] = gained * static_cast<float>(cycle.period / covered);
    }
  }
  return advance;
}

}  // namespace

std::string Cycle::describe() const {
  switch (kind) {
    case CycleKind::LastKeyRepeats:
      return fmt::format("a cycle of {:.4g} s: the last key repeats the first pose (to {:.3g} degrees)", period,
                         mismatch_degrees);
    case CycleKind::EndsOneKeyEarly:
      return fmt::format("a cycle of {:.4g} s: the clip ends one key interval ({:.4g} s) before the first pose repeats",
                         period, period - (last_key - start));
    case CycleKind::GivenPeriod:
      return fmt::format(
          "a cycle of {:.4g} s (given); the pose after one period differs from the first by up to "
          "{:.3g} degrees ('{}')",
          period, mismatch_degrees, mismatch_joint);
    case CycleKind::Forced:
      return fmt::format(
          "looped by force: a cycle of {:.4g} s whose end differs from its start by up to {:.3g} "
          "degrees ('{}')",
          period, mismatch_degrees, mismatch_joint);
  }
  return {};
}

double Cycle::phase(double t, std::int64_t* repetition) const {
  double cycles = std::floor((t - start) / period);
  double phase = t - start - cycles * period;
  // Rounding: a time a hair below a whole number of periods belongs to the next repetition.
  if (phase > period - 1e-9 * std::max(1.0, std::abs(t))) phase = 0, cycles += 1;
  if (phase < 0) phase = 0;
  if (repetition) *repetition = static_cast<std::int64_t>(cycles);
  return start + phase;
}

Cycle find_cycle(const Rig& rig, const Clip& clip, const CycleOptions& options) {
  if (!(options.tolerance_degrees >= 0)) fail_plain("loop: the tolerance must be a number of degrees >= 0");
  Cycle cycle;
  cycle.start = clip.start();
  cycle.last_key = clip.end();
  const double duration = cycle.last_key - cycle.start;
  const double interval = last_key_interval(clip);
  const Pose first = pose_at(rig, clip, cycle.start);
  const Difference ends = rotation_difference(first, pose_at(rig, clip, cycle.last_key));
  auto finish = [&](CycleKind kind, double period, Difference mismatch) {
    cycle.kind = kind;
    cycle.period = period;
    cycle.mismatch_degrees = mismatch.degrees;
    cycle.mismatch_joint = mismatch.joint < rig.names.size() ? rig.names[mismatch.joint] : std::string();
    cycle.advance = root_advance(rig, clip, cycle, interval);
    return cycle;
  };

  if (options.period > 0) {
    if (!std::isfinite(options.period)) fail_plain("--loop-period: must be a finite number of seconds");
    Cycle given = cycle;
    given.kind = CycleKind::GivenPeriod;
    given.period = options.period;
    given.advance.assign(rig.joint_count(), Vec3f::Zero());
    Pose after;
    evaluate_cycle_pose(rig, clip, given, cycle.start + options.period - 1e-9, after);
    return finish(CycleKind::GivenPeriod, options.period, rotation_difference(first, after));
  }
  if (!(duration > kTimeTolerance)) fail_plain("clip '{}' has no duration: it cannot loop", clip.name);
  if (ends.degrees <= options.tolerance_degrees) return finish(CycleKind::LastKeyRepeats, duration, ends);
  // Ends one key interval early: the step from the last key back to the first pose is no larger
  // than the steps next to it.
  double step = 0;
  if (interval > 0 && interval < duration) {
    step = std::max(
        rotation_difference(pose_at(rig, clip, cycle.last_key - interval), pose_at(rig, clip, cycle.last_key)).degrees,
        rotation_difference(first, pose_at(rig, clip, cycle.start + interval)).degrees);
    if (ends.degrees <= 1.5 * step + options.tolerance_degrees) {
      return finish(CycleKind::EndsOneKeyEarly, duration + interval, ends);
    }
  }
  if (options.force) return finish(CycleKind::Forced, duration, ends);
  fail_plain(
      "clip '{}' is not a cycle: at its end the joints' local rotations are up to {:.3g} degrees from its start "
      "('{}'; tolerance {:.3g} degrees, one key interval moves them up to {:.3g} degrees); give the period with "
      "--loop-period S, or loop it anyway with --loop-force",
      clip.name, ends.degrees, rig.names[ends.joint], options.tolerance_degrees, step);
}

void evaluate_cycle_pose(const Rig& rig, const Clip& clip, const Cycle& cycle, double t, Pose& pose) {
  std::int64_t repetition = 0;
  const double phase = cycle.phase(t, &repetition);
  // Local transforms only: the world matrices are made once, after the edits below.
  if (phase <= cycle.last_key) {
    evaluate_local_pose(rig, &clip, static_cast<float>(phase), pose);
  } else {
    // Between the last key and the next repetition's first pose.
    thread_local Pose first;
    evaluate_local_pose(rig, &clip, static_cast<float>(cycle.last_key), pose);
    evaluate_local_pose(rig, &clip, static_cast<float>(cycle.start), first);
    const float u = static_cast<float>((phase - cycle.last_key) / (cycle.start + cycle.period - cycle.last_key));
    for (std::size_t j = 0; j < pose.local.size(); ++j) {
      Transform& local = pose.local[j];
      const Transform& next = first.local[j];
      const Vec3f next_translation = next.translation + (cycle.advance.empty() ? Vec3f::Zero() : cycle.advance[j]);
      local.rotation = slerp_shortest(local.rotation, next.rotation, u);
      local.translation += u * (next_translation - local.translation);
      local.scale += u * (next.scale - local.scale);
    }
  }
  if (repetition != 0 && !cycle.advance.empty()) {
    for (std::size_t j = 0; j < pose.local.size(); ++j) {
      pose.local[j].translation += static_cast<float>(repetition) * cycle.advance[j];
    }
  }
  update_world(rig, pose);
}

}  // namespace wobble
