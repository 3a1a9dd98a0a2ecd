#pragma once
// The synthetic characters of tests/runtime/chain_rigs.hpp, baked: a deformer stack run over
// their clip at a fixed frame rate (wobble::offline's bake.hpp: for wobble_tests and the offline
// tests, not the runtime's), and what the tests compare baked frames with.
#include <algorithm>
#include <optional>
#include <string>

#include <wobble/offline/bake.hpp>
#include <wobble/character.hpp>

#include <nlohmann/json.hpp>

#include "runtime/chain_rigs.hpp"
#include "runtime/frame_distance.hpp"

namespace wobble::test {

inline BakedFrames bake_stack(const Character& c, const std::string& stack, const nlohmann::json& settings, double fps,
                              std::optional<double> end = std::nullopt, ThreadPool* pool = nullptr,
                              std::size_t clip = 0) {
  BakeOptions options;
  options.clip = clip;
  options.fps = fps;
  options.stack = StackDescription::parse(stack);
  options.settings = settings_of(settings);
  options.end = end;
  options.pool = pool;
  return bake(c, options);
}

// Largest |a - b| over all vertices of all frames.
inline double max_difference(const BakedFrames& a, const BakedFrames& b) {
  double m = 0;
  for (std::size_t f = 0; f < a.positions.size(); ++f) m = std::max(m, max_distance(a.positions[f], b.positions[f]));
  return m;
}

inline bool all_finite_frames(const BakedFrames& baked) {
  for (const auto& frame : baked.positions) {
    for (const Vec3f& p : frame) {
      if (!p.allFinite()) return false;
    }
  }
  return true;
}

}  // namespace wobble::test
