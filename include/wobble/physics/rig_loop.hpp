#pragma once
// Seamless loops for rig-complementary physics (`wobble simulate --rig ... --loop`). The dynamics
// are not linear, so unlike Dynamic Skinning there is no closed form for the periodic state: the
// cycle is played again and again (from the clip's first pose, where the history begins) until
// the motion over one cycle repeats the cycle before it: the largest change of a vertex between
// two successive cycles, at the same frames, divided by the character size, is the residual.
#include <functional>
#include <limits>

#include <wobble/offline/cycle.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/rig_complementary.hpp>

namespace wobble::physics {

struct RigLoopOptions {
  double fps = 30;          // frames per second; a cycle gets round(period * fps) frames, evenly spaced
  int substeps = 4;         // implicit steps per frame
  double tolerance = 1e-4;  // residual (share of the character size) at which the loop has converged
  int max_cycles = 30;      // played at most
  std::function<void(int cycles, double residual)> progress;  // after each cycle; may be empty
};

struct RigLoop {
  BakedFrames frames;       // one cycle, both ends: frames[0] and frames.back() meet at the seam
  double frame_period = 0;  // s between frames: period / round(period * fps)
  int cycles = 0;           // cycles played
  double residual = std::numeric_limits<double>::infinity();  // of the last cycle against the one before
  bool converged = false;                                     // residual <= tolerance
};

// Plays `cycle` of `clip` on a fresh simulation (sim must not have stepped yet).
RigLoop simulate_rig_loop(RigComplementary& sim, const Character& character, const Clip& clip, const Cycle& cycle,
                          const RigLoopOptions& options);

}  // namespace wobble::physics
