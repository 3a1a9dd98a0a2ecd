#pragma once
// The seamless-loop flags shared by the commands that play a clip (bake, render, simulate --rig):
//   --loop            the clip is a cycle: the effect is its periodic steady state (no seam)
//   --loop-period S   the cycle's period in seconds, instead of detecting it (implies --loop)
//   --loop-force      loop a clip whose end differs from its start (implies --loop)
//   --pre-roll hold|S where the history begins (bake, render; see bake_motion.hpp)
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include <wobble/offline/bake_motion.hpp>
#include <wobble/character.hpp>
#include <wobble/offline/cycle.hpp>

namespace wobble::cli {

struct LoopOptions {
  bool loop = false, force = false;
  std::optional<double> period;  // seconds; read strictly when given (value_options.hpp)
  std::string pre_roll = "hold";

  void add_to(CLI::App& app);
  void add_pre_roll_to(CLI::App& app);
  // The bake's motion options (loop, period or force, pre-roll); throws Error for bad values.
  MotionOptions motion() const;
  // The first loop flag given (as written on the command line), or null: for messages.
  const char* given_flag() const;
  bool enabled() const { return given_flag() != nullptr; }
  // The clip's cycle when looping (nullopt otherwise). Throws Error for a clip that is no cycle
  // (the message says how far apart its ends are).
  std::optional<Cycle> cycle(const Character& character, std::size_t clip) const;
};

}  // namespace wobble::cli
