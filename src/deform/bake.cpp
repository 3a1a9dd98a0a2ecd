#include <wobble/bake.hpp>

#include <cmath>
#include <cstdint>

#include <unistd.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>

namespace wobble {

std::vector<double> frame_times(double start, double end, double fps) {
  if (!std::isfinite(fps) || fps <= 0) fail_plain("frame rate must be a positive number of frames per second (got {})", fps);
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
  const double bytes = static_cast<double>(frames) * (static_cast<double>(character.mesh.vertex_count()) * sizeof(Vec3f) +
                                                      static_cast<double>(character.rig.joint_count()) * sizeof(Mat4f));
  const std::uint64_t memory = physical_memory_bytes();
  constexpr double kGiB = double(1 << 30);
  if (memory > 0 && bytes > static_cast<double>(memory))
    fail(character.source, "{} frames of {} vertices need {:.1f} GiB, more than this machine's memory ({:.1f} GiB)",
         frames, character.mesh.vertex_count(), bytes / kGiB, static_cast<double>(memory) / kGiB);
}

}  // namespace

BakedFrames bake(const Character& character, const BakeOptions& options) {
  if (character.clips.empty()) fail(character.source, "has no animation clips to bake");
  if (options.clip >= character.clips.size()) {
    fail(character.source, "has no clip {} (it has {})", options.clip, character.clips.size());
  }
  if (character.mesh.vertex_count() == 0) fail(character.source, "has no mesh to deform (skeleton only)");
  const Clip& clip = character.clips[options.clip];
  const double start = std::isnan(options.start) ? clip.start() : options.start;
  const double end = std::isnan(options.end) ? clip.end() : options.end;
  const std::vector<double> times = frame_times(start, end, options.fps);
  check_bake_fits(times.size(), character);

  DeformerStack stack(options.stack, options.settings);
  stack.bind(character);

  BakedFrames baked;
  baked.times.assign(times.begin(), times.end());
  baked.positions.resize(times.size());
  baked.skinning.resize(times.size());
  Pose pose;
  std::vector<Vec3f> normals;
  const PoseSampler pose_at = clip_sampler(character.rig, clip);
  for (std::size_t k = 0; k < times.size(); ++k) {
    evaluate_pose(character.rig, &clip, static_cast<float>(times[k]), pose);
    FrameInput frame{character, pose, times[k], pose_at, options.pool};
    stack.evaluate(frame, baked.positions[k], normals);
    for (const Vec3f& p : baked.positions[k]) {
      if (!p.allFinite()) fail(character.source, "deformer stack '{}' produced a non-finite position at t = {} s",
                               options.stack.text(), times[k]);
    }
    baked.skinning[k] = pose.skinning;
    if (options.progress) options.progress(k + 1, times.size());
  }
  return baked;
}

}  // namespace wobble
