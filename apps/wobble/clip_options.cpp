#include "clip_options.hpp"

#include "value_options.hpp"

namespace wobble::cli {

void ClipOptions::add_to(CLI::App& app, double default_fps, const std::string& fps_help) {
  fps = default_fps;
  app.add_option("--clip", clip, "clip name or index")->capture_default_str();
  add_real_option(app, "--fps", fps, fps_help, kMinFps, kMaxFps);
  add_real_option(app, "--start", start, "first frame time, seconds (default: clip start)", -kMaxSeconds, kMaxSeconds)
      ->default_str("clip start");
  add_real_option(app, "--end", end, "last frame time, seconds, included (default: clip end)", -kMaxSeconds,
                  kMaxSeconds)
      ->default_str("clip end");
  add_integer_option(app, "--threads", threads,
                     "worker threads, 1 to " + std::to_string(kMaxThreads) + " (default: one per core)", 1, kMaxThreads)
      ->default_str("cores");
}

BakeOptions ClipOptions::bake_options(const Character& character) const {
  BakeOptions options;
  options.clip = character.require_clip(clip);
  options.fps = fps;
  options.start = start.value_or(std::numeric_limits<double>::quiet_NaN());
  options.end = end.value_or(std::numeric_limits<double>::quiet_NaN());
  return options;
}

}  // namespace wobble::cli
