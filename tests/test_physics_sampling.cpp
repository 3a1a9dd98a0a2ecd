// Sample points and skinning fields: winding numbers on closed and open meshes, normalisation,
// volumes, sharp edges, eigenmodes (rest state, constant mode, gradients), rig weights.
#include <cmath>

#include <gtest/gtest.h>

#include <wobble/physics/rig_weights_field.hpp>

#include "box_mesh.hpp"
#include "physics_fixtures.hpp"

using namespace wobble;
using namespace wobble::physics;
using namespace wobble::fields;

TEST(PhysicsSampling, WindingNumberSeparatesInsideAndOutside) {
  const Mesh box = test::box_mesh(1, 1, 1);
  const auto v = to_double(box.positions);
  EXPECT_NEAR(winding_number(v, box.triangles, Vec3d(0.1, -0.2, 0.3)), 1.0, 1e-9);
  EXPECT_NEAR(winding_number(v, box.triangles, Vec3d(2.5, 0, 0)), 0.0, 1e-9);
  // The hierarchical evaluation agrees with the direct sum (far field approximated).
  const std::vector<Vec3d> probes{{0, 0, 0}, {0.9, 0.9, 0.9}, {1.5, 0, 0}, {3, 3, 3}};
  const auto fast = winding_numbers(v, box.triangles, probes);
  for (std::size_t i = 0; i < probes.size(); ++i)
    EXPECT_NEAR(fast[i], winding_number(v, box.triangles, probes[i]), 1e-6);
  // An open box (top removed) still has winding number near 1 deep inside.
  std::vector<Triangle> open(box.triangles.begin(), box.triangles.end());
  open.erase(open.begin() + 6, open.begin() + 8);
  EXPECT_GT(winding_number(v, open, Vec3d(0, -0.5, 0)), 0.6);
  EXPECT_LT(winding_number(v, open, Vec3d(0, -3, 0)), 0.1);
}

TEST(PhysicsSampling, BoxSamplesAreNormalisedWithTheRightVolume) {
  const Mesh box = test::box_mesh(5, 5, 5);  // side 10 -> normalised side 2, volume 8
  SampleOptions options;
  options.grid_resolution = 16;
  const SamplePoints s = sample_mesh(box, options);
  EXPECT_EQ(s.interior_count, 16u * 16u * 16u);
  EXPECT_NEAR(s.total_volume(), 8.0, 1e-9);
  EXPECT_NEAR(s.normalization.scale, 0.2, 1e-12);
  for (const Vec3d& p : s.points) EXPECT_LE(p.cwiseAbs().maxCoeff(), 1.0 + 1e-9);
  // Sharp edges: some surface samples lie on the box's edges (two coordinates at +-1).
  int on_edges = 0;
  for (std::size_t i = s.interior_count; i < s.size(); ++i)
    on_edges += (s.points[i].cwiseAbs().array() > 1 - 1e-9).count() >= 2;
  EXPECT_GE(on_edges, 100);
  const SamplePoints sub = subsample(s, 500);
  EXPECT_EQ(sub.size(), 500u);
  EXPECT_NEAR(sub.total_volume(), 8.0, 1e-9);
}

TEST(PhysicsSampling, OpenAndHoledShapesGetInteriorPoints) {
  // The shapes folder holds open and holed meshes on purpose; each must give interior samples.
  for (const char* name : {"cactus.off", "helmet.off", "pinion.off", "bones.off"}) {
    const Character c = read_off(test::shared_asset(std::string("shapes/") + name));
    SampleOptions options;
    options.grid_resolution = 16;
    const SamplePoints s = sample_mesh(c.mesh, options);
    EXPECT_GT(s.size(), 300u) << name;
    EXPECT_GT(s.total_volume(), 0.0) << name;
    for (const Vec3d& p : s.points) ASSERT_LE(p.cwiseAbs().maxCoeff(), 1.0 + 1e-6) << name;
  }
}

TEST(PhysicsFields, EigenmodesStartWithTheConstantAndHaveConsistentGradients) {
  const auto shape = test::physics_shape("cactus.off", 6, 400);
  EXPECT_EQ(shape.field->handle_count(), 6);
  const FieldValues values = shape.field->evaluate(shape.samples.points, true);
  // The first mode is constant (mean square 1 -> value 1).
  EXPECT_LT((values.W.col(0).array() - 1.0).abs().maxCoeff(), 1e-5);
  // Higher modes vary; gradients agree with finite differences away from cell faces.
  EXPECT_GT(values.W.col(1).maxCoeff() - values.W.col(1).minCoeff(), 0.5);
  const Vec3d p = shape.samples.points[0] + Vec3d(0.0123, 0.0071, -0.0093);
  const double eps = 1e-6;
  const std::vector<Vec3d> at{p};
  const FieldValues v0 = shape.field->evaluate(at, true);
  for (int c = 0; c < 3; ++c) {
    Vec3d q = p;
    q[c] += eps;
    const std::vector<Vec3d> at2{q};
    const FieldValues v1 = shape.field->evaluate(at2, false);
    for (int i = 0; i < 6; ++i) EXPECT_NEAR((v1.W(0, i) - v0.W(0, i)) / eps, v0.dW[c](0, i), 1e-3);
  }
}

TEST(PhysicsFields, RigWeightsFieldInterpolatesTheSkin) {
  const Character c = load_character(test::shared_asset("characters/RiggedSimple/RiggedSimple.gltf"));
  ASSERT_TRUE(c.is_skinned());
  std::vector<Vec3d> v = to_double(c.mesh.positions);
  const Normalization n = Normalization::of_points(v);
  for (Vec3d& p : v) p = n.to_normalized(p);
  const auto field = rig_weights_field(c, n);
  const FieldValues values = field->evaluate(v, true);
  EXPECT_EQ(values.W.cols(), static_cast<Eigen::Index>(c.rig.joint_count()));
  for (Eigen::Index i = 0; i < values.W.rows(); ++i) EXPECT_NEAR(values.W.row(i).sum(), 1.0, 1e-9);
  // Close to the vertex weights (interpolated, so not exact).
  double error = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto joints = c.skin.joints_of(i);
    const auto weights = c.skin.weights_of(i);
    for (std::size_t k = 0; k < joints.size(); ++k)
      error = std::max(error, std::abs(values.W(static_cast<Eigen::Index>(i), joints[k]) - weights[k]));
  }
  EXPECT_LT(error, 0.35);
}
