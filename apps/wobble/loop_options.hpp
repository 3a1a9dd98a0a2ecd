#pragma once
// The seamless-loop flags shared by the commands that play a clip (bake, render, simulate --rig):
//   --loop            the clip is a cycle: the effect is its periodic steady state (no seam)
//   --loop-period S   the cycle's period in seconds, instead of detecting it (implies --loop)
//   --loop-force      loop a clip whose end differs from its start (implies --loop)
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include <wobble/character.hpp>
#include <wobble/cycle.hpp>

namespace wobble::cli {

struct LoopOptions {
  bool loop = false, force = false;
  std::string period;  // as typed (strict parsing: parse.hpp)

  void add_to(CLI::App& app);
  bool enabled() const { return loop || force || !period.empty(); }
  // The clip's cycle when looping (nullopt otherwise). Throws Error: a bad --loop-period, or a
  // clip that is no cycle (the message says how far apart its ends are).
  std::optional<Cycle> cycle(const Character& character, std::size_t clip) const;
};

}  // namespace wobble::cli
