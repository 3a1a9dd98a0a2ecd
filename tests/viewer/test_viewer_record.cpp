// The viewer's deformation path against a bake (the CLI's path): wobble-viewer --record writes the
// positions it drew, frame by frame at the fixed 1/60 s step; keyed parameters follow the clip
// time in both, and both start from rest at the clip's first frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <wobble/offline/bake.hpp>
#include <wobble/io/files.hpp>

#include "viewer_runs.hpp"

using namespace wobble;
using namespace wobble::test;

namespace {

const char* const kClonk = WOBBLE_BUNDLED_ASSETS "/clonk.glb";

std::vector<std::vector<Vec3f>> record_in_viewer(const std::filesystem::path& settings, int frames,
                                                 const std::string& flags = "--no-loop") {
  const std::filesystem::path pc2 = viewer_scratch("record.pc2");
  std::filesystem::remove(pc2);
  std::string log;
  const int code = run_viewer(std::string("'") + kClonk + "' --clip Walk --deformer lbs,dynamic --settings '" +
                                  settings.string() + "' --no-ui --size 320x240 --record '" + pc2.string() +
                                  "' --frame " + std::to_string(frames) + " " + flags,
                              log);
  EXPECT_EQ(code, 0) << log;
  return code == 0 ? read_pc2(pc2) : std::vector<std::vector<Vec3f>>{};
}

BakedFrames bake_at_60hz(const Character& clonk, const std::filesystem::path& settings, double end, bool loop = false) {
  BakeOptions options;
  options.motion.loop = loop;
  options.clip = clonk.require_clip("Walk");
  options.fps = 60;
  options.start = 0;
  options.end = end;
  options.stack = StackDescription::parse("lbs,dynamic");
  options.settings = StackSettings::from_file(settings.string());
  return bake(clonk, options);
}

float largest_difference(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  float largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, (a[i] - b[i]).norm());
  return largest;
}

}  // namespace

TEST(ViewerRecording, KeyedParametersGiveTheBakesNumbers) {
  const std::filesystem::path keyed = viewer_scratch("keyed.json");
  const std::filesystem::path constant = viewer_scratch("constant.json");
  // Amplitude keyed down to nothing between 0.1 s and 0.35 s, frequency raised at 0.2 s.
  std::ofstream(keyed) << R"({"dynamic": {"amplitude": {"keys": [[0.1, 0.5], [0.35, 0.0]]},
                                          "frequency": {"keys": [[0.0, 2.0], [0.2, 5.0]], "interpolation": "step"}}})";
  std::ofstream(constant) << R"({"dynamic": {"amplitude": 0.5, "frequency": 2.0}})";
  const int frames = 30;  // the viewer's frame k shows clip time k / 60 s
  const Character clonk = load_character(kClonk);
  const BakedFrames baked = bake_at_60hz(clonk, keyed, (frames - 1) / 60.0);
  const BakedFrames steady = bake_at_60hz(clonk, constant, (frames - 1) / 60.0);
  const auto recorded = record_in_viewer(keyed, frames);
  ASSERT_EQ(recorded.size(), static_cast<std::size_t>(frames));
  ASSERT_EQ(baked.positions.size(), static_cast<std::size_t>(frames));
  for (int k = 0; k < frames; ++k)
    EXPECT_LT(largest_difference(recorded[k], baked.positions[k]), 1e-4f) << "viewer frame " << k;
  // The keys matter: after the amplitude reached zero the keyed bake and the constant one differ.
  EXPECT_GT(largest_difference(baked.positions[frames - 1], steady.positions[frames - 1]), 1e-2f);
}

// The viewer loops a cycle in its periodic steady state: over the Walk's seam (2.4 s = frame 144)
// every frame it drew equals `wobble bake --loop` at 60 fps.
TEST(ViewerRecording, ALoopedCycleGivesTheLoopedBakesNumbers) {
  const std::filesystem::path constant = viewer_scratch("loop.json");
  std::ofstream(constant) << R"({"dynamic": {"amplitude": 0.5, "frequency": 2.0}})";
  const int frames = 170;
  const Character clonk = load_character(kClonk);
  const BakedFrames looped = bake_at_60hz(clonk, constant, (frames - 1) / 60.0, true);
  const BakedFrames cold = bake_at_60hz(clonk, constant, (frames - 1) / 60.0);
  const auto recorded = record_in_viewer(constant, frames, "");  // the viewer loops by default
  ASSERT_EQ(recorded.size(), static_cast<std::size_t>(frames));
  float largest = 0;
  for (int k = 0; k < frames; ++k) largest = std::max(largest, largest_difference(recorded[k], looped.positions[k]));
  EXPECT_LT(largest, 1e-4f);
  // Not the bake from rest: at the first frame the steady state already moves.
  EXPECT_GT(largest_difference(recorded[0], cold.positions[0]), 1e-2f);
}
