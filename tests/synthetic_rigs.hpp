#pragma once
// The synthetic characters of tests/runtime/chain_rigs.hpp, baked: a deformer stack run over
// their clip at a fixed frame rate (bake.hpp, not the runtime tests': they stay in wobble_tests).
#include <optional>
#include <string>

#include <wobble/offline/bake.hpp>
#include <wobble/character.hpp>

#include <nlohmann/json.hpp>

#include "runtime/chain_rigs.hpp"

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

}  // namespace wobble::test
