#include <wobble/offline/bake.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <unistd.h>

#include <fmt/core.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/log.hpp>

#include "core/fail.hpp"

namespace wobble {

std::vector<double> frame_times(double start, double end, double fps) {
  if (!std::isfinite(fps) || fps <= 0)
    fail_plain("frame rate must be a positive number of frames per second (got {})", fps);
  if (!std::isfinite(start) || !std::isfinite(end)) fail_plain("start and end times must be finite");
  if (end < start) fail_plain("end time {} s is before start time {} s", end, start);
  std::vector<double> times;
  // Index-based so that rounding does not accumulate over long clips.
  const double frames = std::floor((end - start) * fps + 1e-6 * fps);
  if (!(frames <= 10'000'000)) fail_plain("{} frames requested: too many (at most 10000001)", frames + 1);
  const auto last = static_cast<std::size_t>(frames);
  times.reserve(last + 1);
  for (std::size_t k = 0; k <= last; ++k) times.push_back(std::min(end, start + static_cast<double>(k) / fps));
  return times;
}

namespace {

// The machine's physical memory in bytes (0 when unknown).
std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

// A bake keeps every frame (positions and skinning matrices) until it is written: refuse one that
// cannot fit in memory before the first frame, rather than fail hours later.
void check_bake_fits(std::size_t frames, const Character& character) {
  const double bytes =
      static_cast<double>(frames) * (static_cast<double>(character.mesh.vertex_count()) * sizeof(Vec3f) +
                                     static_cast<double>(character.rig.joint_count()) * sizeof(Mat4f));
  const std::uint64_t memory = physical_memory_bytes();
  constexpr double kGiB = double(1 << 30);
  if (memory > 0 && bytes > static_cast<double>(memory))
    fail(character.source, "{} frames of {} vertices need {:.1f} GiB, more than this machine's memory ({:.1f} GiB)",
         frames, character.mesh.vertex_count(), bytes / kGiB, static_cast<double>(memory) / kGiB);
}

const Clip& bake_clip(const Character& character, const BakeOptions& options) {
  if (character.clips.empty()) fail(character.source, "has no animation clips to bake");
  if (options.clip >= character.clips.size()) {
    fail(character.source, "has no clip {} (it has {})", options.clip, character.clips.size());
  }
  return character.clips[options.clip];
}

double first_frame(const Clip& clip, const BakeOptions& options) { return options.start.value_or(clip.start()); }

std::vector<double> frame_times_of(const Clip& clip, const BakeMotion& motion, const BakeOptions& options) {
  // A loop bakes one cycle by default, both ends (the last frame is the next cycle's first).
  const double default_end = motion.periodic() ? motion.cycle_start() + motion.cycle()->period : clip.end();
  return frame_times(first_frame(clip, options), options.end.value_or(default_end), options.fps);
}

FrameInput frame_at(const Character& character, const BakeMotion& motion, const Pose& pose, double t,
                    const PoseSampler& pose_at, ThreadPool* pool) {
  FrameInput frame{character, pose, t, pose_at, pool};
  frame.clip_time = motion.clip_time(t);
  return frame;
}

// The effect: the stack's positions minus those of its base skinning alone (the rest mesh without one).
std::vector<Vec3f> effect_of(const std::vector<Vec3f>& positions, const std::vector<Vec3f>& base) {
  std::vector<Vec3f> effect(positions.size());
  for (std::size_t v = 0; v < positions.size(); ++v) effect[v] = positions[v] - base[v];
  return effect;
}

double largest_change(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  double largest = 0;
  for (std::size_t v = 0; v < a.size(); ++v) largest = std::max(largest, static_cast<double>((a[v] - b[v]).norm()));
  return largest;
}

}  // namespace

BakeMotion bake_motion(const Character& character, const BakeOptions& options) {
  const Clip& clip = bake_clip(character, options);
  try {
    return BakeMotion(character, clip, options.motion, first_frame(clip, options));
  } catch (const Error& error) {
    fail(character.source, "{}", error.what());
  }
}

std::vector<double> bake_frame_times(const Character& character, const BakeOptions& options) {
  return bake_frame_times(character, bake_motion(character, options), options);
}

std::vector<double> bake_frame_times(const Character& character, const BakeMotion& motion, const BakeOptions& options) {
  return frame_times_of(bake_clip(character, options), motion, options);
}

void settle_keyed_loop(const Character& character, BakeMotion& motion, const StackDescription& stack,
                       const StackSettings& settings, double fps, ThreadPool* pool) {
  if (!motion.periodic()) return;
  DeformerStack probe(stack, settings);
  if (!probe.keyed()) return;
  probe.bind(character);
  DeformerStack base = stack.base() ? DeformerStack::parse(stack.base()->name) : DeformerStack();
  base.bind(character);
  const PoseSampler pose_at = motion.pose_sampler();
  const double start = motion.cycle_start(), period = motion.cycle()->period;
  probe.start_periodic(pose_at, start, period, motion.clip_time(start));
  const double size = character.mesh.size();
  Pose pose;
  std::vector<Vec3f> positions, base_positions, normals, previous;
  double change = 0;
  // Boundary c (the start of cycle c) after c cycles of the probe: its effect against boundary c - 1's.
  for (std::size_t c = 0; c <= kMaxSettlingCycles; ++c) {
    const double begin = start + static_cast<double>(c) * period;
    for (std::size_t k = 0;; ++k) {
      const double t = begin + static_cast<double>(k) / fps;
      if (k > 0 && (t >= begin + period - 1e-9 || c == kMaxSettlingCycles)) break;
      motion.pose(t, pose);
      probe.evaluate(frame_at(character, motion, pose, t, pose_at, pool), positions, normals);
      if (k > 0) continue;
      base.evaluate(frame_at(character, motion, pose, t, pose_at, pool), base_positions, normals);
      std::vector<Vec3f> effect = effect_of(positions, base_positions);
      if (c > 0) {
        change = largest_change(effect, previous);
        if (change <= kLoopSettlingTolerance * size) return motion.settle(c, change / size);
      }
      previous = std::move(effect);
    }
  }
  motion.settle(kMaxSettlingCycles, change / size);
  warn(
      fmt::format("{}: the keyed loop's history did not settle in {} cycles: the effect at the cycle's start still "
                  "changes by {:.2g} of the size per cycle (a long damping?)",
                  character.source.string(), kMaxSettlingCycles, change / size));
}

void start_history(DeformerStack& stack, const Character& character, const BakeMotion& motion, double fps,
                   ThreadPool* pool) {
  const PoseSampler pose_at = motion.pose_sampler();
  if (motion.periodic()) {
    const double origin = motion.history_origin();
    stack.start_periodic(pose_at, origin, motion.cycle()->period, motion.clip_time(origin));
  }
  Pose pose;
  std::vector<Vec3f> positions, normals;
  for (double t : motion.pre_roll_times(fps)) {
    motion.pose(t, pose);
    stack.evaluate(frame_at(character, motion, pose, t, pose_at, pool), positions, normals);
  }
}

BakedFrames bake(const Character& character, const BakeOptions& options, std::string* motion_summary) {
  bake_clip(character, options);
  if (character.mesh.vertex_count() == 0) fail(character.source, "has no mesh to deform (skeleton only)");
  BakeMotion motion = bake_motion(character, options);
  const std::vector<double> times = frame_times_of(character.clips[options.clip], motion, options);
  check_bake_fits(times.size(), character);
  settle_keyed_loop(character, motion, options.stack, options.settings, options.fps, options.pool);
  if (motion_summary) *motion_summary = motion.describe();

  DeformerStack stack(options.stack, options.settings);
  stack.bind(character);
  start_history(stack, character, motion, options.fps, options.pool);

  BakedFrames baked;
  baked.times.assign(times.begin(), times.end());
  baked.positions.resize(times.size());
  baked.skinning.resize(times.size());
  Pose pose;
  std::vector<Vec3f> normals;
  const PoseSampler pose_at = motion.pose_sampler();
  for (std::size_t k = 0; k < times.size(); ++k) {
    motion.pose(times[k], pose);
    stack.evaluate(frame_at(character, motion, pose, times[k], pose_at, options.pool), baked.positions[k], normals);
    for (const Vec3f& p : baked.positions[k]) {
      if (!p.allFinite())
        fail(character.source, "deformer stack '{}' produced a non-finite position at t = {} s", options.stack.text(),
             times[k]);
    }
    baked.skinning[k] = pose.skinning;
    if (options.progress) options.progress(k + 1, times.size());
  }
  return baked;
}

}  // namespace wobble
