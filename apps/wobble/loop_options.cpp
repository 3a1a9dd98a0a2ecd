#include "loop_options.hpp"

#include <wobble/error.hpp>

#include "value_options.hpp"

#include "core/fail.hpp"

namespace wobble::cli {

namespace {
constexpr double kMinPeriod = 1e-3, kMaxPeriod = 1e6;  // seconds
constexpr const char* kLoop = "--loop";
constexpr const char* kPeriod = "--loop-period";
constexpr const char* kForce = "--loop-force";
}  // namespace

void LoopOptions::add_to(CLI::App& app) {
  app.add_flag(kLoop, loop, "the clip is a cycle: bake its periodic steady state, seamless at the loop's seam");
  add_real_option(app, kPeriod, period, "the cycle's period, seconds (default: detected from the clip; implies --loop)",
                  kMinPeriod, kMaxPeriod);
  app.add_flag(kForce, force, "loop the clip even though its end differs from its start (implies --loop)");
}

const char* LoopOptions::given_flag() const {
  if (loop) return kLoop;
  if (force) return kForce;
  if (period) return kPeriod;
  return nullptr;
}

void LoopOptions::add_pre_roll_to(CLI::App& app) {
  app.add_option("--pre-roll", pre_roll,
                 "where the effects' history begins: hold (the first frame's pose held forever: no jolt) or S "
                 "seconds of the clip's previous frames (its cycle's, wrapped, for a cycle)")
      ->capture_default_str();
}

MotionOptions LoopOptions::motion() const {
  MotionOptions options;
  options.loop = enabled();
  options.cycle.force = force;
  if (period) options.cycle.period = *period;
  options.pre_roll = PreRoll::parse(pre_roll, "--pre-roll");
  return options;
}

std::optional<Cycle> LoopOptions::cycle(const Character& character, std::size_t clip) const {
  if (!enabled()) return std::nullopt;
  CycleOptions options;
  options.force = force;
  if (period) options.period = *period;
  try {
    return find_cycle(character.rig, character.clips.at(clip), options);
  } catch (const Error& error) {
    fail(character.source, "{}", error.what());
  }
}

}  // namespace wobble::cli
