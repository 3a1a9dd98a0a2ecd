// Learned rig-complementary fields (PhysSkin++ III-E) driving the runtime's rig-complementary
// dynamics: the shipped clonk model (models/physskin_clonk_rig.pt) against independent
// expectations (LBS of the skin, the L_comp closed form, an untrained network, eigenmodes).
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <wobble/io/files.hpp>
#include <wobble/lbs.hpp>
#include <wobble/neural/neural_field.hpp>
#include <wobble/fields/shape_sample.hpp>
#include <wobble/physics/rig_complementary.hpp>

#include "neural/losses.hpp"
#include "neural/network.hpp"

using namespace wobble;
using namespace wobble::neural;
using namespace wobble::fields;
namespace fs = std::filesystem;

namespace {

const fs::path kRigModel = fs::path(WOBBLE_SOURCE_DIR) / "models/physskin_clonk_rig.pt";

const Character& clonk() {
  static const Character c = load_character(fs::path(WOBBLE_BUNDLED_ASSETS) / "clonk.glb");
  return c;
}

// Small sampling, so that each simulator builds in a fraction of a second.
physics::RigComplementaryOptions small_options(const NeuralFieldModel* model) {
  physics::RigComplementaryOptions o;
  o.points = 400;
  o.sample_grid = 16;
  o.field_grid = 16;
  o.handles = 8;
  if (model) o.fields = model->fields_for(clonk().mesh, false);
  return o;
}

// An untrained network of the model's sizes (fixed seed), as a model file.
NeuralFieldModel untrained_like(const NeuralFieldModel& model) {
  torch::manual_seed(5);
  SkinningNetwork network(NetworkConfig::from_json(model.network(), "untrained"));
  const fs::path file = fs::temp_directory_path() / "wobble_neural_rig_untrained.pt";
  save_network(network, file.string());
  NeuralFieldModel out(file);
  fs::remove(file);
  return out;
}

// The skin's own LBS of the bind-space vertices (the runtime's job, single precision).
std::vector<Vec3f> skin_lbs(const Character& c, const Pose& pose) {
  const PackedSkin packed = PackedSkin::from(c.skin);
  std::vector<Vec3f> out(c.mesh.vertex_count());
  const LbsJob job{.skinning_matrices = pose.skinning,
                   .skin = &packed,
                   .in_positions = c.mesh.positions,
                   .in_normals = {},
                   .out_positions = out,
                   .out_normals = {}};
  job.run();
  return out;
}

double character_size(const Character& c) {
  const auto b = c.mesh.bounds();
  return (b.max() - b.min()).norm();
}

}  // namespace

TEST(NeuralRig, TheSubspaceIsTheLearnedFieldsWithoutTheConstant) {
  const NeuralFieldModel model(kRigModel);
  physics::RigComplementary sim(clonk(), small_options(&model));
  ASSERT_EQ(sim.body().handle_count(), model.handles());
  // The neural sampler and the simulator normalise the mesh the same way (one physics frame).
  const ShapeSample sample = make_shape_sample(clonk().mesh, "clonk", ShapeSampleOptions{}, 1);
  EXPECT_LT((sample.normalization.center - sim.normalization().center).norm(), 1e-12);
  EXPECT_NEAR(sample.normalization.scale, sim.normalization().scale, 1e-12);
  // A complementary state moves each vertex by sum_i W_i(X) Z_i [X; 1] with W the model's fields.
  const int m = model.handles(), q = 4 * m;
  Eigen::VectorXd z = Eigen::VectorXd::LinSpaced(sim.body().dofs(), -0.05, 0.05);
  sim.world().body(0).set_state(z, z);
  Pose pose;
  rest_pose(clonk().rig, pose);
  update_world(clonk().rig, pose);
  const std::vector<Vec3f> moved = sim.vertex_positions(pose), rig = skin_lbs(clonk(), pose);
  const auto field = model.fields_for(clonk().mesh, false);
  double largest = 0, error = 0;
  for (std::size_t v = 0; v < clonk().mesh.vertex_count(); v += 97) {
    const Vec3d X = sim.normalization().to_normalized(clonk().mesh.positions[v].cast<double>());
    const Eigen::RowVectorXd W = field->evaluate(std::span(&X, 1), false).W.row(0);
    Vec3d u = Vec3d::Zero();
    for (int d = 0; d < 3; ++d)
      for (int i = 0; i < m; ++i)
        for (int a = 0; a < 4; ++a) u[d] += W[i] * (a < 3 ? X[a] : 1.0) * z[d * q + 4 * i + a];
    const Vec3d expected = rig[v].cast<double>() + u / sim.normalization().scale;
    error = std::max(error, (moved[v].cast<double>() - expected).norm());
    largest = std::max(largest, u.norm() / sim.normalization().scale);
  }
  EXPECT_GT(largest, 1e-3 * character_size(clonk()));  // the state does move the vertices
  EXPECT_LT(error, 1e-5 * character_size(clonk()));
}

TEST(NeuralRig, WalkStaysFiniteAndZeroComplementaryCoordinatesGiveTheRig) {
  const NeuralFieldModel model(kRigModel);
  const Character& c = clonk();
  physics::RigComplementary sim(c, small_options(&model));
  const Clip& walk = c.clips[c.require_clip("Walk")];
  const double dt = 1.0 / 120.0, size = character_size(c);
  Pose pose;
  double largest = 0;
  for (int step = 0; step < 1200; ++step) {  // 10 s: the clip loops
    const double t = walk.start() + std::fmod(step * dt, static_cast<double>(walk.duration()));
    evaluate_pose(c.rig, &walk, static_cast<float>(t), pose);
    sim.step(pose, dt);
    ASSERT_TRUE(sim.body().z().allFinite()) << "step " << step;
    if (step % 60 == 0) {
      const std::vector<Vec3f> positions = sim.vertex_positions(pose), rig = skin_lbs(c, pose);
      for (std::size_t v = 0; v < positions.size(); ++v) {
        ASSERT_TRUE(positions[v].allFinite());
        largest = std::max(largest, static_cast<double>((positions[v] - rig[v]).norm()));
      }
    }
  }
  // Secondary motion exists and stays a fraction of the character.
  EXPECT_GT(largest, 1e-4 * size);
  EXPECT_LT(largest, 0.5 * size);
  // With the complementary coordinates zero, the output is the rig's own LBS.
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(sim.body().dofs());
  sim.world().body(0).set_state(zero, zero);
  const std::vector<Vec3f> positions = sim.vertex_positions(pose), rig = skin_lbs(c, pose);
  for (std::size_t v = 0; v < positions.size(); ++v) ASSERT_LT((positions[v] - rig[v]).norm(), 1e-5 * size) << v;
}

TEST(NeuralRig, RestPoseWithoutForcingStaysAtRest) {
  const NeuralFieldModel model(kRigModel);
  physics::RigComplementaryOptions options = small_options(&model);
  options.rig_inertia = false;
  physics::RigComplementary sim(clonk(), options);
  // The rig at rest: identity skinning, F = I, no elastic force, so z = 0 is the solution.
  Pose pose;
  rest_pose(clonk().rig, pose);
  update_world(clonk().rig, pose);
  for (Mat4f& s : pose.skinning) s.setIdentity();
  for (int step = 0; step < 100; ++step) sim.step(pose, 1.0 / 60.0);
  EXPECT_LT(sim.body().z().cwiseAbs().maxCoeff(), 1e-9);
}

TEST(NeuralRig, LearnedFieldsAreMoreComplementaryThanAnUntrainedNetwork) {
  const NeuralFieldModel model(kRigModel);
  const NeuralFieldModel untrained = untrained_like(model);
  physics::RigComplementary learned_sim(clonk(), small_options(&model));
  physics::RigComplementary untrained_sim(clonk(), small_options(&untrained));
  const physics::Complementarity learned = learned_sim.complementarity(), initial = untrained_sim.complementarity();
  EXPECT_GT(learned.relative, 0.0);
  EXPECT_LT(learned.relative, 0.5 * initial.relative) << "untrained " << initial.relative;
  // Hand check: ||J_rig^T B||_F^2 is the training loss's closed form at the simulator's samples.
  const auto& samples = learned_sim.samples();
  const auto values = learned_sim.body().field().evaluate(samples, false);
  torch::Tensor X = torch::empty({static_cast<long>(samples.size()), 3}, torch::kFloat64);
  for (std::size_t p = 0; p < samples.size(); ++p)
    for (int c = 0; c < 3; ++c) X[static_cast<long>(p)][c] = samples[p][c];
  auto tensor = [](const Eigen::MatrixXd& m) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> r = m;
    return torch::from_blob(const_cast<double*>(r.data()), {r.rows(), r.cols()}, torch::kFloat64).clone();
  };
  const double loss = complementarity_loss(tensor(values.W), X, tensor(learned_sim.rig_weights())).item<double>();
  EXPECT_NEAR(learned.absolute * learned.absolute, loss, 1e-9 * loss);
  // Constrained eigenmodes are complementary by construction: the measure is ~0 for them.
  physics::RigComplementary eigen_sim(clonk(), small_options(nullptr));
  EXPECT_LT(eigen_sim.complementarity().relative, 1e-3);  // eigensolver tolerance
}
