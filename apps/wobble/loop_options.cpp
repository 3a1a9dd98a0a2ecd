#include "loop_options.hpp"

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

namespace wobble::cli {

void LoopOptions::add_to(CLI::App& app) {
  app.add_flag("--loop", loop, "the clip is a cycle: bake its periodic steady state, seamless at the loop's seam");
  app.add_option("--loop-period", period, "the cycle's period, seconds (default: detected from the clip; implies --loop)");
  app.add_flag("--loop-force", force, "loop the clip even though its end differs from its start (implies --loop)");
}

std::optional<Cycle> LoopOptions::cycle(const Character& character, std::size_t clip) const {
  if (!enabled()) return std::nullopt;
  CycleOptions options;
  options.force = force;
  if (!period.empty()) options.period = parse_real(period, "--loop-period", 1e-3, 1e6);
  try {
    return find_cycle(character.rig, character.clips.at(clip), options);
  } catch (const Error& error) {
    fail(character.source, "{}", error.what());
  }
}

}  // namespace wobble::cli
