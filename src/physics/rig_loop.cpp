// Rig-complementary physics run cycle after cycle until one cycle repeats the one before.
#include <wobble/physics/rig_loop.hpp>

#include <algorithm>
#include <cmath>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

namespace {

double largest_change(const std::vector<std::vector<Vec3f>>& a, const std::vector<std::vector<Vec3f>>& b) {
  double change = 0;
  for (std::size_t f = 0; f < a.size(); ++f) {
    for (std::size_t v = 0; v < a[f].size(); ++v) change = std::max<double>(change, (a[f][v] - b[f][v]).norm());
  }
  return change;
}

}  // namespace

RigLoop simulate_rig_loop(RigComplementary& sim, const Character& character, const Clip& clip, const Cycle& cycle,
                          const RigLoopOptions& options) {
  if (!(options.fps > 0) || !std::isfinite(options.fps))
    fail_plain("loop: fps must be a positive number (got {})", options.fps);
  if (options.substeps < 1) fail_plain("loop: substeps must be at least 1 (got {})", options.substeps);
  if (options.max_cycles < 2)
    fail_plain("loop: at least 2 cycles are needed to measure the residual (got {})", options.max_cycles);
  if (!(options.tolerance >= 0)) fail_plain("loop: the tolerance must be >= 0 (got {})", options.tolerance);
  const int frames = std::max(1, static_cast<int>(std::lround(cycle.period * options.fps)));
  RigLoop loop;
  loop.frame_period = cycle.period / frames;
  const double dt = loop.frame_period / options.substeps;
  const double size = std::max(1e-30f, character.mesh.size());
  auto pose_at = [&](double t, Pose& pose) { evaluate_cycle_pose(character.rig, clip, cycle, t, pose); };

  Pose pose;
  pose_at(cycle.start, pose);
  sim.step(pose, dt);  // the history begins at the cycle's first pose
  // Per cycle: the positions and poses of frames 1..N (frame N ends the cycle: the next one's seam).
  std::vector<std::vector<Vec3f>> previous{sim.vertex_positions(pose)}, current;
  std::vector<std::vector<Mat4f>> previous_skinning{pose.skinning}, skinning;
  for (int c = 0; c < options.max_cycles; ++c) {
    if (c > 0) {
      previous = std::move(current);
      previous_skinning = std::move(skinning);
    }
    current.clear();
    skinning.clear();
    for (int f = 1; f <= frames; ++f) {
      const double t = cycle.start + (static_cast<double>(c) * frames + f) * loop.frame_period;
      for (int s = options.substeps - 1; s >= 0; --s) {
        pose_at(t - s * dt, pose);
        sim.step(pose, dt);
      }
      current.push_back(sim.vertex_positions(pose));
      skinning.push_back(pose.skinning);
    }
    loop.cycles = c + 1;
    if (c > 0) {
      loop.residual = largest_change(current, previous) / size;
      if (options.progress) options.progress(loop.cycles, loop.residual);
      if (loop.residual <= options.tolerance) break;
    }
  }
  loop.converged = loop.residual <= options.tolerance;
  // One cycle, both ends: the frame that ended the cycle before, then this cycle's frames.
  loop.frames.times.push_back(static_cast<float>(cycle.start));
  loop.frames.positions.push_back(std::move(previous.back()));
  loop.frames.skinning.push_back(std::move(previous_skinning.back()));
  for (int f = 0; f < frames; ++f) {
    loop.frames.times.push_back(static_cast<float>(cycle.start + (f + 1) * loop.frame_period));
    loop.frames.positions.push_back(std::move(current[f]));
    loop.frames.skinning.push_back(std::move(skinning[f]));
  }
  return loop;
}

}  // namespace wobble::physics
