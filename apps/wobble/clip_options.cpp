#include "clip_options.hpp"

namespace wobble::cli {

void ClipOptions::add_to(CLI::App& app, double default_fps, const std::string& fps_help) {
  fps = default_fps;
  app.add_option("--clip", clip, "clip name or index")->capture_default_str();
  app.add_option("--fps", fps, fps_help)->capture_default_str();
  app.add_option("--start", start, "first frame time, seconds (default: clip start)");
  app.add_option("--end", end, "last frame time, seconds, included (default: clip end)");
  app.add_option("--threads", threads, "worker threads (0: all cores)")->capture_default_str();
}

BakeOptions ClipOptions::bake_options(const Character& character) const {
  BakeOptions options;
  options.clip = character.require_clip(clip);
  options.fps = fps;
  options.start = start;
  options.end = end;
  return options;
}

}  // namespace wobble::cli
