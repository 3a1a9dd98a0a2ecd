#pragma once
// Baking: run a deformer stack over a clip at a fixed frame rate.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/io.hpp>
#include <wobble/parameters.hpp>
#include <wobble/stack.hpp>

namespace wobble {

class ThreadPool;

struct BakeOptions {
  std::size_t clip = 0;
  double fps = 60.0;
  double start = std::numeric_limits<double>::quiet_NaN();  // NaN: the clip's start
  double end = std::numeric_limits<double>::quiet_NaN();    // NaN: the clip's end
  StackDescription stack = StackDescription::parse("lbs");
  StackSettings settings;  // keyed parameters follow the clip time of each frame
  ThreadPool* pool = nullptr;
  std::function<void(std::size_t done, std::size_t total)> progress;  // may be empty
};

// Frame times t_k = start + k / fps for k = 0.. up to and including end (a last frame within
// 1e-6 s of end counts as end). Throws Error for fps <= 0, end < start or non-finite values.
std::vector<double> frame_times(double start, double end, double fps);

// Bakes world-space positions for every frame. Throws Error on bad options, and before the first
// frame when all frames (positions and skinning matrices) would not fit in physical memory.
BakedFrames bake(const Character& character, const BakeOptions& options);

}  // namespace wobble
