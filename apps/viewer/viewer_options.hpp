#pragma once
// wobble-viewer's options: from the command line on the desktop, from the page's URL query
// (?deformer=lbs&timer=1) in the browser.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "physics_options.hpp"

namespace wobble::viewer {

struct ViewerOptions {
  std::filesystem::path file;  // empty: the first bundled character
  std::string clip;            // name or index; empty: the first clip
  std::string deformer = "lbs,dynamic";
  std::filesystem::path settings;  // settings JSON, as `wobble bake --settings` reads it
  bool gpu = false;                // start on the GPU skinning path
  int width = 1280, height = 720;
  bool ui = true;  // false: the picture only (screenshots)
  bool skeleton = false;
  bool loop = true;  // --no-loop: play the clip once and hold its end
  // Automation: render `frame` frames (1/60 s of animation each), save, exit.
  std::filesystem::path screenshot;
  int frame = 60;
  // Automation: render `frame` frames and write the CPU path's positions as a PC2 point cache.
  std::filesystem::path record;
  // Benchmark: render this many frames (fixed 1/60 s steps), print median frame times, exit.
  int benchmark_frames = 0;
  // Soak runs (scripts/soak.py): a JSON line per second of wall time (soak_log.hpp), and an end
  // after this many seconds of wall time (0: none). The animation runs in real time unless an
  // automation above fixes the step.
  std::filesystem::path soak_log;
  double soak_seconds = 0;
  // Replace the character by the procedural cylinder with about this many vertices.
  long cylinder_vertices = 0;
  bool timer_loop = false;  // web: a timer-driven main loop instead of requestAnimationFrame
  bool help = false;
  // Deformer parameters by flag (--frequency 3, ?frequency=3), read strictly at start.
  std::vector<std::pair<std::string, std::string>> parameters;
  PhysicsOptions physics;  // --physics and its settings (physics_options.hpp)

  bool fixed_step() const {
    return !screenshot.empty() || !record.empty() || benchmark_frames > 0 || physics.stop_frame > 0;
  }
};

std::string viewer_usage();
// Throws Error (one line) for an unknown option or a bad value. Values are read whole
// (include/wobble/parse.hpp) and range-checked; "--name=value" and "--name value" both work, and
// switches take an optional "=true" / "=false".
ViewerOptions parse_viewer_options(const std::vector<std::string>& arguments);
// "a=1&b&c=x%2Cy" -> {"--a=1", "--b", "--c=x,y"} (the web page's URL query).
std::vector<std::string> arguments_from_query(const std::string& query);

}  // namespace wobble::viewer
