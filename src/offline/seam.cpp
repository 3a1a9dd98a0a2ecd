// The effect's jump at the seam of a baked cycle.
#include <wobble/offline/seam.hpp>

#include <algorithm>

#include <fmt/core.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace {

double largest_change(const BakedFrames& stack, const BakedFrames& base, std::size_t a, std::size_t b) {
  double change = 0;
  for (std::size_t v = 0; v < stack.positions[a].size(); ++v) {
    const Vec3f da = stack.positions[a][v] - base.positions[a][v], db = stack.positions[b][v] - base.positions[b][v];
    change = std::max<double>(change, (da - db).norm());
  }
  return change;
}

}  // namespace

std::string SeamJump::describe(double size) const {
  return fmt::format(
      "the effect jumps by {:.4g} ({:.2g}% of the size) from the cycle's last frame to the next cycle's "
      "first; at most {:.4g} ({:.2g}%) between frames inside the cycle ({} frames)",
      seam, 100 * seam / size, inside, 100 * inside / size, frames_per_cycle);
}

SeamJump seam_jump(const BakedFrames& stack, const BakedFrames& base, std::size_t frames_per_cycle) {
  if (frames_per_cycle < 2) fail_plain("seam: a cycle needs at least 2 frames (got {})", frames_per_cycle);
  if (stack.positions.size() <= frames_per_cycle || base.positions.size() <= frames_per_cycle) {
    fail_plain("seam: {} and {} frames baked, a cycle of {} frames needs {} (both ends)", stack.positions.size(),
               base.positions.size(), frames_per_cycle, frames_per_cycle + 1);
  }
  for (std::size_t k = 0; k <= frames_per_cycle; ++k) {
    if (stack.positions[k].size() != base.positions[k].size())
      fail_plain("seam: frame {} has different vertex counts", k);
  }
  SeamJump jump;
  jump.frames_per_cycle = frames_per_cycle;
  jump.seam = largest_change(stack, base, frames_per_cycle, 0);
  for (std::size_t k = 0; k < frames_per_cycle; ++k)
    jump.inside = std::max(jump.inside, largest_change(stack, base, k, k + 1));
  return jump;
}

}  // namespace wobble
