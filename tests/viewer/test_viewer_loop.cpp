// The viewer's loop playback of a cycle (CycleLoop over Playback, driven as Viewer::deform drives
// it, without a window) against `wobble bake --loop`: clonk's Walk played at several display
// rates, with dropped frames, over the seam and after a scrub, equals the bake at the same clip
// times: the viewer plays the periodic steady state.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/io/files.hpp>

#include "cycle_loop.hpp"
#include "playback.hpp"

using namespace wobble;
using namespace wobble::viewer;

namespace {

const Character& clonk() {
  static const Character c = load_character(std::filesystem::path(WOBBLE_BUNDLED_ASSETS) / "clonk.glb");
  return c;
}

// The viewer's CPU path, one display frame after another.
class LoopingViewer {
 public:
  LoopingViewer() : stack_(DeformerStack::parse("lbs,dynamic")) {
    const Character& c = clonk();
    loop_.set_clip(c.rig, &c.clips[c.require_clip("Walk")]);
    playback_.set_range(loop_.start(), loop_.end());
    stack_.bind(c);
  }
  // Advances by dt (s) and deforms; returns the positions of this frame.
  const std::vector<Vec3f>& frame(double dt) {
    playback_.advance(dt);
    Pose pose;
    loop_.pose(playback_, pose);
    if (playback_.take_jump()) {
      stack_.reset();
      loop_.restart();
    }
    const PoseSampler pose_at = loop_.sampler(playback_);
    if (loop_.active(playback_, false)) {
      if (const auto start = loop_.take_start(playback_))
        stack_.start_periodic(pose_at, start->time, start->period, start->clip_time);
    }
    FrameInput input{clonk(), pose, playback_.simulation_time(), pose_at, nullptr, playback_.clip_time()};
    stack_.evaluate(input, positions_, normals_);
    return positions_;
  }
  Playback& playback() { return playback_; }
  const CycleLoop& loop() const { return loop_; }

 private:
  Playback playback_;
  CycleLoop loop_;
  DeformerStack stack_;
  std::vector<Vec3f> positions_, normals_;
};

// `wobble bake --loop` of the Walk at `fps` from the cycle's start over `seconds` (into the next cycles).
BakedFrames looped_bake(double fps, double seconds) {
  BakeOptions options;
  options.clip = clonk().require_clip("Walk");
  options.fps = fps;
  options.end = clonk().clips[options.clip].start() + seconds;
  options.stack = StackDescription::parse("lbs,dynamic");
  options.motion.loop = true;
  return bake(clonk(), options);
}

double largest_difference(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  double m = 0;
  for (std::size_t v = 0; v < a.size(); ++v) m = std::max<double>(m, (a[v] - b[v]).norm());
  return m;
}

}  // namespace

TEST(ViewerLoop, TheWalkIsACycleAndItsRangeIsThePeriod) {
  LoopingViewer viewer;
  ASSERT_TRUE(viewer.loop().cycle().has_value());
  EXPECT_NEAR(viewer.playback().end() - viewer.playback().start(), 2.4, 1e-6);
  EXPECT_NE(viewer.loop().description().find("seamless loop: a cycle of 2.4 s"), std::string::npos)
      << viewer.loop().description();
  CycleLoop jump;
  jump.set_clip(clonk().rig, &clonk().clips[clonk().require_clip("BowJump")]);
  EXPECT_FALSE(jump.cycle().has_value());
  EXPECT_NE(jump.description().find("loops with a seam"), std::string::npos) << jump.description();
}

// Two cycles and a half at 24, 30 and 60 frames per second: every frame equals the bake's.
TEST(ViewerLoop, EveryDisplayRateShowsTheBakedLoop) {
  const double size = clonk().mesh.size();
  for (double rate : {24.0, 30.0, 60.0}) {
    const BakedFrames baked = looped_bake(rate, 6.0);
    LoopingViewer viewer;
    double error = 0;
    // The first frame shows the clip's start (a jump's frame), each next one 1 / rate later.
    for (std::size_t k = 0; k < baked.positions.size(); ++k)
      error = std::max(error, largest_difference(viewer.frame(1 / rate), baked.positions[k]));
    EXPECT_LE(error, 1e-5 * size) << rate << " frames per second";
  }
}

// Frames dropped at random (steps of 1 to 7 ticks of 1/120 s), then a scrub back to mid-cycle:
// each frame shown equals the bake at its clip time.
TEST(ViewerLoop, DroppedFramesAndAScrubStillShowTheBakedLoop) {
  const double size = clonk().mesh.size(), tick = 1.0 / 120;
  const BakedFrames baked = looped_bake(120, 6.0);
  LoopingViewer viewer;
  std::size_t k = 0;
  double error = largest_difference(viewer.frame(tick), baked.positions[0]);
  for (int step : {1, 3, 1, 7, 2, 5, 1, 1, 6, 4}) {
    for (int repeat = 0; repeat < 20; ++repeat) {  // 20 x 31 ticks: 5.2 s, over two seams
      k += static_cast<std::size_t>(step);
      error = std::max(error, largest_difference(viewer.frame(step * tick), baked.positions[k]));
    }
  }
  EXPECT_GT(k, 2 * 288u) << "over two seams (a cycle is 288 ticks)";
  EXPECT_LE(error, 1e-5 * size);
  // A scrub to 1.2 s: the steady state starts there at once (no transient), as the bake's frame at 1.2 s.
  viewer.playback().scrub(1.2f);
  EXPECT_LE(largest_difference(viewer.frame(tick), baked.positions[144]), 1e-5 * size);
  EXPECT_LE(largest_difference(viewer.frame(tick), baked.positions[145]), 1e-5 * size);
}
