#include "clip_options.hpp"

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

#include "value_options.hpp"
#include "core/fail.hpp"

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
  options.start = start;
  options.end = end;
  const double first = start.value_or(character.clips[options.clip].start());
  if (end && *end < first) {
    fail_plain("--end: {} s is before the first frame at {} s{}", format_real(*end), format_real(first),
               start ? "" : " (the clip's start; --start moves it)");
  }
  return options;
}

}  // namespace wobble::cli
