// Reduced simulation on the shipped model's fields (PhysSkin++ III-D): a pinned bar, and an unseen
// shape over 10,000 steps, under gravity stay finite and pinned, and sag and swing like the same
// simulation on skinning eigenmodes of the same count (sag within 0.2x to 2x, period within 20%).
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include <wobble/io/files.hpp>
#include <wobble/neural/neural_field.hpp>
#include <wobble/physics/scene.hpp>

#include "../box_mesh.hpp"

using namespace wobble;
using namespace wobble::neural;
namespace fs = std::filesystem;

namespace {

// A 2 x 0.25 x 0.25 bar along x, written as OBJ.
fs::path write_bar() {
  const Mesh m = test::box_mesh(1.0f, 0.125f, 0.125f);
  const fs::path file = fs::temp_directory_path() / "wobble_neural_bar.obj";
  write_obj(file, m, m.positions);
  return file;
}

struct HangingRun {
  double tip_sag = 0;        // rest minus current height of the free end, mean over the last 100 frames
  double pinned_motion = 0;  // largest displacement of a pinned-end vertex
  double period = 0;         // frames between upward crossings of the tip's mean height, first `analysed` frames
  int crossings = 0;
  bool finite = true;
};

// Which vertices are pinned (rest coordinate `axis` below `pinned_below`) and which are the free
// end (above `tip_above`); gravity pulls along -y.
struct Cantilever {
  int axis = 0;
  double pinned_below = -0.9, tip_above = 0.9;
};

// Runs `frames` frames; the swing is measured over the first `analysed` ones (the sag settles).
HangingRun hang(physics::Scene scene, const Cantilever& c, int frames, int analysed) {
  const std::vector<Vec3d> rest = scene.positions(0);
  HangingRun run;
  std::vector<double> tip;  // mean height of the free end per frame
  for (int f = 0; f < frames; ++f) {
    scene.advance_frame();
    const std::vector<Vec3d> now = scene.positions(0);
    double height = 0, sag = 0;
    int count = 0;
    for (std::size_t v = 0; v < now.size(); ++v) {
      run.finite = run.finite && now[v].allFinite();
      if (rest[v][c.axis] < c.pinned_below) run.pinned_motion = std::max(run.pinned_motion, (now[v] - rest[v]).norm());
      if (rest[v][c.axis] > c.tip_above) height += now[v].y(), sag += rest[v].y() - now[v].y(), ++count;
    }
    if (f < analysed) tip.push_back(height / count);
    if (f >= analysed - 100 && f < analysed) run.tip_sag += sag / (count * 100.0);
  }
  // The oscillation about the resting sag: upward crossings of its mean, interpolated in time.
  double settled = 0;
  for (int f = analysed - 100; f < analysed; ++f) settled += tip[f] / 100;
  std::vector<double> crossings;
  for (int f = 1; f < analysed; ++f)
    if (tip[f - 1] < settled && tip[f] >= settled)
      crossings.push_back(f - 1 + (settled - tip[f - 1]) / (tip[f] - tip[f - 1]));
  run.crossings = static_cast<int>(crossings.size());
  if (crossings.size() >= 2)
    run.period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  return run;
}

// The neural run against the eigenmodes of the same count: finite, pinned, sagging within 0.2x to
// 2x and swinging at their frequency within 20%.
void expect_like_eigenmodes(const HangingRun& neural, const HangingRun& eigen, const std::string& shape) {
  ASSERT_GE(neural.crossings, 2) << shape;
  ASSERT_GE(eigen.crossings, 2) << shape;
  EXPECT_NEAR(neural.period / eigen.period, 1.0, 0.2)
      << shape << ": neural " << neural.period << " frames, eigenmodes " << eigen.period;
  std::printf("%s: tip sag %.4f (eigenmodes %.4f), period %.2f frames (eigenmodes %.2f)\n", shape.c_str(),
              neural.tip_sag, eigen.tip_sag, neural.period, eigen.period);
  EXPECT_TRUE(neural.finite) << shape;
  EXPECT_GT(neural.tip_sag, 0.2 * eigen.tip_sag)
      << shape << ": neural " << neural.tip_sag << ", eigenmodes " << eigen.tip_sag;
  EXPECT_LT(neural.tip_sag, 2.0 * eigen.tip_sag)
      << shape << ": neural " << neural.tip_sag << ", eigenmodes " << eigen.tip_sag;
}

const fs::path kShipped = fs::path(WOBBLE_SOURCE_DIR) / "models/physskin_small.pt";

}  // namespace

TEST(NeuralSimulation, PinnedBarStaysFiniteAndSagsAndSwingsLikeEigenmodes) {
  if (!fs::exists(kShipped)) GTEST_SKIP() << "no shipped model at " << kShipped;
  const NeuralFieldModel model(kShipped);
  const fs::path bar = write_bar();
  physics::QuickSceneOptions q;
  q.settings.pin = "x<-0.9";
  q.settings.youngs_modulus = 1e7;
  q.settings.fps = 100;
  q.settings.substeps = 2;
  q.settings.points = 500;
  q.settings.handles = model.handles() + 1;  // eigenmodes: as many fields as the model's, constant included
  const HangingRun eigen = hang(physics::quick_scene(bar, q), {}, 300, 300);
  q.field_source = [&model](const Mesh& mesh, bool constant_column) { return model.fields_for(mesh, constant_column); };
  const HangingRun neural = hang(physics::quick_scene(bar, q), {}, 300, 300);
  expect_like_eigenmodes(neural, eigen, "bar");
  EXPECT_LT(neural.pinned_motion, 0.02);
  fs::remove(bar);
}

// femur is in the validation split (configs/corpus.json): no training saw it. 10,000 steps.
TEST(NeuralSimulation, UnseenShapeStaysFiniteOver10000StepsAndSwingsLikeEigenmodes) {
  const fs::path femur = fs::path(WOBBLE_SHARED_ASSETS) / "shapes/femur.off";
  if (!fs::exists(kShipped) || !fs::exists(femur)) GTEST_SKIP() << "no shipped model or no " << femur;
  const NeuralFieldModel model(kShipped);
  physics::QuickSceneOptions q;
  q.settings.pin = "z<-0.45";  // femur: 1 long along z, its file coordinates
  q.settings.youngs_modulus = 1e6;
  q.settings.fps = 100;
  q.settings.substeps = 2;
  q.settings.points = 300;
  q.settings.handles = model.handles() + 1;
  const Cantilever ends{2, -0.45, 0.45};
  const HangingRun eigen = hang(physics::quick_scene(femur, q), ends, 300, 300);
  q.field_source = [&model](const Mesh& mesh, bool constant_column) { return model.fields_for(mesh, constant_column); };
  const HangingRun neural = hang(physics::quick_scene(femur, q), ends, 5000, 300);  // 5,000 frames of 2 substeps
  expect_like_eigenmodes(neural, eigen, "femur");
  EXPECT_LT(neural.pinned_motion, 0.01);
}
