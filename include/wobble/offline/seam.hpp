#pragma once
// How a baked cycle meets itself when it is played in a loop. The effect at a frame is the
// stack's positions minus those of its base skinning alone. A cycle of N frames is baked with
// both ends, frames 0..N, frame N one period after frame 0: the same instant of the next cycle,
// where a looping player goes back to frame 0. The seam jump is the largest change of a vertex's
// effect from frame N to frame 0 (zero for a seamless loop), to compare with the largest change
// between successive frames inside the cycle.
#include <cstddef>
#include <string>

#include <wobble/offline/baked_frames.hpp>

namespace wobble {

struct SeamJump {
  double seam = 0;    // scene units: max_v |d_N(v) - d_0(v)|
  double inside = 0;  // scene units: max over k < N and v of |d_{k+1}(v) - d_k(v)|
  std::size_t frames_per_cycle = 0;
  std::string describe(double size) const;  // with shares of the character size
};

// stack and base: bakes of the same frames (the first N + 1 at least). Throws Error if they do not fit.
SeamJump seam_jump(const BakedFrames& stack, const BakedFrames& base, std::size_t frames_per_cycle);

}  // namespace wobble
