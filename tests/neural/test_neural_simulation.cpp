// Reduced simulation on the shipped model's fields (PhysSkin++ III-D): a pinned bar under gravity
// stays finite and pinned, and sags by an amount comparable to the same simulation on skinning
// eigenmodes of the same count.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <wobble/io.hpp>
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
  bool finite = true;
};

HangingRun hang(physics::Scene scene, int frames) {
  const std::vector<Vec3d> rest = scene.positions(0);
  HangingRun run;
  for (int f = 0; f < frames; ++f) {
    scene.advance_frame();
    const std::vector<Vec3d> now = scene.positions(0);
    for (std::size_t v = 0; v < now.size(); ++v) {
      run.finite = run.finite && now[v].allFinite();
      if (rest[v].x() < -0.9) run.pinned_motion = std::max(run.pinned_motion, (now[v] - rest[v]).norm());
      if (rest[v].x() > 0.9 && f >= frames - 100) run.tip_sag += (rest[v].y() - now[v].y()) / (4.0 * 100);
    }
  }
  return run;
}

}  // namespace

TEST(NeuralSimulation, PinnedBarStaysFiniteAndSagsLikeEigenmodes) {
  const fs::path shipped = fs::path(WOBBLE_SOURCE_DIR) / "models/physskin_small.pt";
  if (!fs::exists(shipped)) GTEST_SKIP() << "no shipped model at " << shipped;
  const NeuralFieldModel model(shipped);
  const fs::path bar = write_bar();
  physics::QuickSceneOptions q;
  q.pin = "x<-0.9";
  q.material = {1e7, 0.45, 1000};
  q.fps = 100;
  q.substeps = 2;
  q.points = 500;
  q.handles = model.handles() + 1;  // eigenmodes: as many fields as the model's, constant included
  const HangingRun eigen = hang(physics::quick_scene(bar, q), 300);
  q.field_source = [&model](const Mesh& mesh, bool constant_column) { return model.fields_for(mesh, constant_column); };
  const HangingRun neural = hang(physics::quick_scene(bar, q), 300);
  EXPECT_TRUE(neural.finite);
  EXPECT_LT(neural.pinned_motion, 0.02);
  EXPECT_GT(neural.tip_sag, 0.0);
  EXPECT_GT(neural.tip_sag, 0.2 * eigen.tip_sag) << "neural " << neural.tip_sag << ", eigenmodes " << eigen.tip_sag;
  EXPECT_LT(neural.tip_sag, 2.0 * eigen.tip_sag) << "neural " << neural.tip_sag << ", eigenmodes " << eigen.tip_sag;
  fs::remove(bar);
}
