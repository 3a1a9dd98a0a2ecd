// Binding and rig-complementary motion: Gaussian covariances, 3DGS PLY round trip, the basis at
// bound points, J_rig^T u = 0, and `wobble simulate` end to end.
#include <cmath>

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/physics/rig_complementary.hpp>
#include <wobble/physics/scene.hpp>

#include "physics_fixtures.hpp"
#include "test_util.hpp"

using namespace wobble;
using namespace wobble::physics;

TEST(PhysicsBinding, GaussianCovarianceTransformIsExact) {
  for (int k = 0; k < 20; ++k) {
    const Eigen::Vector3d s(0.1 * k - 1.0, -0.5 + 0.03 * k, -2.0 + 0.1 * k);
    const Eigen::Vector4d q(1.0 + 0.1 * k, 0.3 - 0.05 * k, 0.2, -0.4 + 0.02 * k);
    const Eigen::Matrix3d sigma = covariance_from(s, q);
    Eigen::Matrix3d A = Eigen::AngleAxisd(0.3 * k, Eigen::Vector3d(1, k % 3, 2).normalized()).toRotationMatrix();
    A(0, 1) += 0.2;  // shear
    A(2, 2) *= 1.3;  // stretch
    const Eigen::Matrix3d expected = A * sigma * A.transpose();
    Eigen::Vector3d s2;
    Eigen::Vector4d q2;
    decompose_covariance(expected, s2, q2);
    EXPECT_NEAR(q2.norm(), 1.0, 1e-12);
    const Eigen::Matrix3d back = covariance_from(s2, q2);
    EXPECT_LT((back - expected).norm(), 1e-10 * expected.norm()) << k;
  }
}

TEST(PhysicsBinding, GaussianPlyKeepsPropertiesByName) {
  test::ScratchDir dir;
  GaussianCloud cloud;
  // Deliberately unusual order, with an extra property.
  cloud.properties = {"opacity", "rot_0",  "rot_1",  "rot_2",   "rot_3",   "x",       "y",     "z",
                      "f_dc_0",  "f_dc_1", "f_dc_2", "scale_0", "scale_1", "scale_2", "custom"};
  for (int g = 0; g < 5; ++g) {
    const float row[15] = {0.5f * g, 1, 0.1f * g, 0, 0, float(g), float(-g), 0.5f, 0.1f, 0.2f, 0.3f, -1, -2, -3, 42};
    cloud.values.insert(cloud.values.end(), row, row + 15);
  }
  write_gaussian_ply(dir / "a.ply", cloud);
  ASSERT_TRUE(is_gaussian_ply(dir / "a.ply"));
  const GaussianCloud back = read_gaussian_ply(dir / "a.ply");
  EXPECT_EQ(back.properties, cloud.properties);
  EXPECT_EQ(back.values, cloud.values);
  EXPECT_NEAR(back.center(3).x(), 3.0, 1e-7);
  // set() changes centre, scales and rotation only.
  GaussianCloud moved = back;
  const Eigen::Matrix3d sigma = 4.0 * back.covariance(2);
  moved.set(2, Eigen::Vector3d(9, 8, 7), sigma);
  EXPECT_LT((moved.covariance(2) - sigma).norm(), 1e-5 * sigma.norm());
  for (const char* keep : {"opacity", "f_dc_0", "f_dc_1", "f_dc_2", "custom"})
    EXPECT_EQ(moved.values[2 * 15 + moved.find(keep)], back.values[2 * 15 + back.find(keep)]) << keep;
  test::write_bytes(dir / "bad.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n");
  EXPECT_THROW(read_gaussian_ply(dir / "bad.ply"), Error);
}

namespace {

// A field that counts the points it is evaluated at, with and without gradients.
class CountingField : public fields::SkinningField {
 public:
  explicit CountingField(std::shared_ptr<const fields::SkinningField> field) : field_(std::move(field)) {}
  int handle_count() const override { return field_->handle_count(); }
  std::string description() const override { return field_->description(); }
  fields::FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient) const override {
    (with_gradient ? with_gradients : values_only) += points.size();
    return field_->evaluate(points, with_gradient);
  }
  mutable std::size_t with_gradients = 0, values_only = 0;

 private:
  std::shared_ptr<const fields::SkinningField> field_;
};

}  // namespace

// Binding a mesh evaluates the field only at vertices that are neither samples nor collision
// points, and the rows it reuses are what the field and d(X) give there (d B = d W [X; 1]).
TEST(PhysicsBinding, TheBasisAtBoundPointsReusesTheirRowsAndIsTheFieldThere) {
  const test::PhysicsShape shape = test::physics_shape("cactus.off", 4, 120);
  auto counting = std::make_shared<CountingField>(shape.field);
  BodyDescription description = test::body_of(shape);
  description.field = counting;
  description.collision_points.resize(shape.samples.size() + shape.vertices.size() / 2);  // samples, half the vertices
  description.pins = DirichletRegion(parse_predicate("y>0.6"), {Vec3d(0, 1, 0)}, 0.5);
  description.scale = 2.0;
  description.translation = Vec3d(0.1, -0.2, 0.3);
  const Body body(description);
  const std::size_t known_vertices = description.collision_points.size() - shape.samples.size();
  EXPECT_EQ(counting->with_gradients, shape.samples.size());
  EXPECT_EQ(counting->values_only, known_vertices);  // the samples' rows came from their derivatives' pass

  std::vector<Vec3d> scene_vertices;
  for (const Vec3d& v : shape.vertices) scene_vertices.push_back(2.0 * v + Vec3d(0.1, -0.2, 0.3));
  scene_vertices.push_back(Vec3d(0.15, -0.1, 0.35));  // no bound point
  const PointBasis basis = body.basis_at(scene_vertices, false);
  EXPECT_EQ(counting->values_only, known_vertices + (shape.vertices.size() - known_vertices) + 1);

  std::vector<Vec3d> normalised;
  for (const Vec3d& X : scene_vertices) normalised.push_back((X - Vec3d(0.1, -0.2, 0.3)) / 2.0);
  const fields::FieldValues field = shape.field->evaluate(normalised, false);
  for (std::size_t p = 0; p < scene_vertices.size(); ++p) {
    const double d = description.pins.modulation(normalised[p], nullptr);
    const Vec3d& X = scene_vertices[p];
    for (int i = 0; i < 4; ++i) {
      const auto row = static_cast<Eigen::Index>(p);
      ASSERT_NEAR(basis.modulated_W(row, i), d * field.W(row, i), 1e-12) << p;
      for (int a = 0; a < 3; ++a) ASSERT_NEAR(basis.B(row, 4 * i + a), d * field.W(row, i) * X[a], 1e-12) << p;
      ASSERT_NEAR(basis.B(row, 4 * i + 3), d * field.W(row, i), 1e-12) << p;
    }
  }
}

TEST(PhysicsRig, ComplementaryDisplacementIsOrthogonalToTheRig) {
  const Character c = load_character(test::shared_asset("characters/RiggedSimple/RiggedSimple.gltf"));
  RigComplementaryOptions options;
  options.handles = 6;
  options.points = 300;
  options.sample_grid = 16;
  options.field_grid = 12;
  RigComplementary sim(c, options);
  // Any z: the subspace itself satisfies J_rig^T B = 0 (eq. 21).
  Eigen::VectorXd z = Eigen::VectorXd::LinSpaced(sim.body().dofs(), -1.0, 1.0);
  double scale = 0;
  const double residual = sim.complementarity_residual(z, &scale).norm();
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(residual, 1e-6 * scale);
  // And the simulated displacement along the clip.
  ASSERT_FALSE(c.clips.empty());
  Pose pose;
  for (int f = 0; f < 30; ++f) {
    evaluate_pose(c.rig, &c.clips[0], c.clips[0].start() + f / 30.0f, pose);
    sim.step(pose, 1.0 / 30.0);
  }
  const Eigen::VectorXd& zs = sim.body().z();
  EXPECT_GT(zs.cwiseAbs().maxCoeff(), 0.0);  // something moved
  const double simulated = sim.complementarity_residual(zs, &scale).norm();
  EXPECT_LT(simulated, 1e-5 * scale);  // eigensolver tolerance
  for (const Vec3f& p : sim.vertex_positions(pose)) ASSERT_TRUE(p.allFinite());
}

TEST(PhysicsCli, SimulateQuickFlagsWritesPc2WithPinnedVerticesFixed) {
  test::ScratchDir dir;
  const auto shape = test::shared_asset("shapes/cactus.off");
  const auto result = test::run_wobble("simulate '" + shape.string() +
                                       "' --handles 4 --points 200 --sample-grid 12 --field-grid 10 "
                                       "--pin \"y>0.8\" --floor -1.1 --frames 10 --fps 30 -q -o '" +
                                       (dir / "out.pc2").string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto frames = read_pc2(dir / "out.pc2");
  const Character c = read_off(shape);
  ASSERT_EQ(frames.size(), 10u);
  ASSERT_EQ(frames[0].size(), c.mesh.vertex_count());
  // Vertices in the pinned region keep their rest positions (file order and frame).
  const auto bounds = c.mesh.bounds();
  const float longest = (bounds.max() - bounds.min()).maxCoeff();
  const float top = 0.5f * (bounds.max().y() + bounds.min().y()) + 0.8f * 0.5f * longest;
  int pinned = 0;
  float moved = 0, max_motion = 0;
  for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
    const float motion = (frames.back()[v] - c.mesh.positions[v]).norm();
    max_motion = std::max(max_motion, motion);
    if (c.mesh.positions[v].y() > top + 1e-4f * longest) {
      ++pinned;
      moved = std::max(moved, motion);
    }
  }
  EXPECT_GT(pinned, 0);
  EXPECT_LT(moved, 1e-6f * longest * 10);
  EXPECT_GT(max_motion, 1e-4f * longest);
  // Errors name the file; exit code 1.
  const auto missing =
      test::run_wobble("simulate '" + (dir / "nope.off").string() + "' -q -o '" + (dir / "x.pc2").string() + "'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("nope.off"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.pc2"));
}
