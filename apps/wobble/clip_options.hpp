#pragma once
// The options every command that plays a clip shares: which clip, at what frame rate, over which
// time range, on how many threads.
#include <cstddef>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include <wobble/bake.hpp>

namespace wobble::cli {

struct ClipOptions {
  std::string clip = "0";
  double fps = 60;
  double start = std::numeric_limits<double>::quiet_NaN();
  double end = std::numeric_limits<double>::quiet_NaN();
  std::size_t threads = 0;

  // Adds --clip, --fps (with this default and help), --start, --end, --threads.
  void add_to(CLI::App& app, double default_fps, const std::string& fps_help);
  // Bake options for this clip range (the clip resolved on the character; throws Error if absent).
  BakeOptions bake_options(const Character& character) const;
};

}  // namespace wobble::cli
