#pragma once
// How a baked cycle meets itself when it is played in a loop. The effect at a frame is the
// stack's positions minus those of its base skinning alone; a looping player goes from the
// cycle's last frame (N-1) to its first (0): the seam jump is the largest change of a vertex's
// effect there, to compare with the largest change between successive frames inside the cycle.
#include <cstddef>
#include <string>

#include <wobble/io.hpp>

namespace wobble {

struct SeamJump {
  double seam = 0;    // scene units: max_v |d_0(v) - d_{N-1}(v)|
  double inside = 0;  // scene units: max over k < N-1 and v of |d_{k+1}(v) - d_k(v)|
  std::size_t frames_per_cycle = 0;
  std::string describe(double size) const;  // with shares of the character size
};

// stack and base: bakes of the same frames (the first N at least). Throws Error if they do not fit.
SeamJump seam_jump(const BakedFrames& stack, const BakedFrames& base, std::size_t frames_per_cycle);

}  // namespace wobble
