#pragma once
// The options every command that plays a clip shares: which clip, at what frame rate, over which
// time range, on how many threads.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include <wobble/offline/bake.hpp>
#include <wobble/parallel.hpp>

namespace wobble::cli {

struct ClipOptions {
  // Ranges of the flags: frame rates in frames per second, times in seconds, and at most 1024
  // worker threads (more than any machine wobble runs on has cores; 0 is not a thread count).
  static constexpr double kMinFps = 1e-3, kMaxFps = 1e4, kMaxSeconds = 1e7;
  static constexpr auto kMaxThreads = static_cast<std::int64_t>(ThreadPool::kMaxThreads);

  std::string clip = "0";
  double fps = 60;
  std::optional<double> start, end;  // unset: the clip's first and last keys
  std::size_t threads = 0;           // 0 (not given): one per hardware thread

  // Adds --clip, --fps (with this default and help), --start, --end, --threads.
  void add_to(CLI::App& app, double default_fps, const std::string& fps_help);
  // Bake options for this clip range (the clip resolved on the character; throws Error if absent).
  BakeOptions bake_options(const Character& character) const;
};

}  // namespace wobble::cli
