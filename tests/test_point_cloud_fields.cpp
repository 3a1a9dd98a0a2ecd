// Neural fields on shapes without a mesh (issue 35): outward normals estimated from points, and a
// 3DGS PLY made of a shared shape's surface points (no triangles) simulating with the shipped
// model through the torch-free evaluator like the mesh itself.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/body_frequencies.hpp>
#include <wobble/fields/field_network.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/fields/point_normals.hpp>
#include <wobble/physics/scene.hpp>
#include <wobble/fields/shape_sample.hpp>

#include "test_util.hpp"

using namespace wobble;
using namespace wobble::physics;
using namespace wobble::fields;
namespace fs = std::filesystem;

namespace {

// Points (normalised frame), the interior cells the point-cloud sampler finds, and their normals.
Eigen::MatrixX3d normals_of(const std::vector<Vec3d>& points, int grid) {
  SampleOptions options;
  options.grid_resolution = grid;
  const SamplePoints samples = sample_point_cloud(points, options);
  std::vector<Vec3d> normalised,
      interior(samples.points.begin(), samples.points.begin() + static_cast<std::ptrdiff_t>(samples.interior_count));
  for (const Vec3d& p : points) normalised.push_back(samples.normalization.to_normalized(p));
  std::vector<std::size_t> all(points.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return outward_normals(normalised, all, interior, samples.grid_spacing);
}

TEST(PointCloudFields, NormalsOfASpherePointOutward) {
  std::vector<Vec3d> points;
  Random random(3);
  while (points.size() < 3000) {
    const Vec3d p(2 * random.uniform() - 1, 2 * random.uniform() - 1, 2 * random.uniform() - 1);
    if (p.norm() > 0.1 && p.norm() <= 1) points.push_back(p.normalized());
  }
  const Eigen::MatrixX3d n = normals_of(points, 16);
  for (std::size_t i = 0; i < points.size(); ++i)
    ASSERT_GT(n.row(static_cast<Eigen::Index>(i)).dot(points[i]), 0.95) << "point " << i;
}

// A plate thinner than a grid cell: the two faces' normals still point away from each other.
TEST(PointCloudFields, NormalsOfAThinPlateOrientBothFacesOutward) {
  std::vector<Vec3d> points;
  for (int i = 0; i <= 40; ++i)
    for (int j = 0; j <= 40; ++j)
      for (double z : {-0.02, 0.02}) points.emplace_back(-1 + i * 0.05, -1 + j * 0.05, z);
  const Eigen::MatrixX3d n = normals_of(points, 16);
  int wrong = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool edge = std::abs(points[i].x()) > 0.9 || std::abs(points[i].y()) > 0.9;  // the rim has no clear side
    if (!edge && n(static_cast<Eigen::Index>(i), 2) * points[i].z() < 0.9 * std::abs(points[i].z())) ++wrong;
  }
  EXPECT_EQ(wrong, 0);
}

// A 3DGS PLY of small round Gaussians at `count` area-weighted random points of the mesh's surface
// (what a capture's splats sample), nothing else: no triangles, no normals.
// With `gaussian` false, a PLY of the points' x, y, z alone.
void write_splats_of(const Mesh& mesh, int count, const fs::path& file, bool gaussian = true) {
  const Normalization n = Normalization::of_points(to_double(mesh.positions));
  const Eigen::MatrixXf surface = surface_point_cloud(mesh, n, count, 5);
  GaussianCloud cloud;
  cloud.properties = {"x", "y", "z", "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"};
  if (!gaussian) cloud.properties.resize(3);
  for (Eigen::Index i = 0; i < surface.rows(); ++i) {
    const Vec3d p = n.from_normalized(surface.row(i).head<3>().transpose().cast<double>());
    const float row[11] = {float(p.x()), float(p.y()), float(p.z()), 1, -5, -5, -5, 1, 0, 0, 0};
    cloud.values.insert(cloud.values.end(), row, row + cloud.properties.size());
  }
  write_gaussian_ply(file, cloud);
}

Scene neural_scene(const fs::path& file, const std::string& pin) {
  QuickSceneOptions q;  // `wobble simulate`'s defaults: 1,000 points, a 24-cell sampling grid
  q.settings.pin = pin;
  q.field_source = field_network_mesh_fields({}, false);
  return quick_scene(file, q);
}

// knot1 (genus 1) from 20,000 splats: its lowest frequency within 20 % of the mesh's (the issue's
// bound; the measured figures are in docs/neural.md, "Point clouds and splats").
TEST(PointCloudFields, SplatsWithoutAMeshSagLikeTheMesh) {
  const fs::path shape = test::shared_asset("shapes/knot1.off");
  const Mesh mesh = read_off(shape).mesh;
  test::ScratchDir dir;
  write_splats_of(mesh, 20000, dir / "knot1_splats.ply");
  // The top fifth of the height pinned (normalised frame, the same for both: the same points).
  const Normalization n = Normalization::of_points(to_double(mesh.positions));
  double top = -1e300, bottom = 1e300;
  for (const Vec3f& p : mesh.positions) {
    top = std::max(top, n.to_normalized(p.cast<double>()).y());
    bottom = std::min(bottom, n.to_normalized(p.cast<double>()).y());
  }
  const std::string pin = "y>" + std::to_string(top - 0.2 * (top - bottom));
  Scene from_mesh = neural_scene(shape, pin), from_splats = neural_scene(dir / "knot1_splats.ply", pin);
  ASSERT_TRUE(from_splats.objects[0].gaussians.has_value());
  EXPECT_EQ(from_splats.world.body(0).handle_count(), 9);
  const double f_mesh = body_frequencies(from_mesh.world.body(0), 1)[0],
               f_splats = body_frequencies(from_splats.world.body(0), 1)[0];
  EXPECT_GT(f_mesh, 0);
  RecordProperty("lowest_frequency_mesh_hz", std::to_string(f_mesh));
  RecordProperty("lowest_frequency_splats_hz", std::to_string(f_splats));
  EXPECT_NEAR(f_splats / f_mesh, 1.0, 0.2)
      << "lowest frequency: mesh " << f_mesh << " Hz, splats " << f_splats << " Hz";
  // It sags under gravity, and the splats follow: centres down, covariances finite and positive.
  const std::vector<Vec3d> rest = from_splats.positions(0);
  for (int f = 0; f < 10; ++f) from_splats.advance_frame();
  const std::vector<Vec3d> now = from_splats.positions(0);
  double drop = 0;
  for (std::size_t i = 0; i < now.size(); ++i) drop += rest[i].y() - now[i].y();
  EXPECT_GT(drop / static_cast<double>(now.size()), 0);
  const GaussianCloud moved = from_splats.gaussians(0);
  for (std::size_t g = 0; g < moved.count(); g += 97) {
    ASSERT_TRUE(moved.covariance(g).allFinite());
    EXPECT_GT(moved.covariance(g).determinant(), 0);
  }
}

// A PLY of points alone (no faces, no Gaussians) is a shape too: sampled as a point cloud, encoded
// by the neural fields, its points moved by them.
TEST(PointCloudFields, APlyOfPointsAloneSimulatesWithTheNeuralFields) {
  const Mesh mesh = read_off(test::shared_asset("shapes/knot1.off")).mesh;
  test::ScratchDir dir;
  const fs::path points = dir / "knot1_points.ply";
  write_splats_of(mesh, 4000, points, false);
  EXPECT_TRUE(is_point_cloud_ply(points));
  EXPECT_FALSE(is_gaussian_ply(points));
  Scene scene = neural_scene(points, "y>0.5");
  EXPECT_FALSE(scene.objects[0].gaussians.has_value());
  EXPECT_EQ(scene.world.body(0).handle_count(), 9);
  const std::vector<Vec3d> rest = scene.positions(0);
  ASSERT_EQ(rest.size(), 4000u);
  for (int f = 0; f < 5; ++f) scene.advance_frame();
  const std::vector<Vec3d> now = scene.positions(0);
  double drop = 0;
  for (std::size_t i = 0; i < now.size(); ++i) drop += rest[i].y() - now[i].y();
  EXPECT_GT(drop / static_cast<double>(now.size()), 0);
  // Without z it is no point cloud: the error names the file and the property.
  GaussianCloud flat;
  flat.properties = {"x", "y"};
  flat.values = {0, 0, 1, 0, 0, 1};
  write_gaussian_ply(dir / "flat.ply", flat);
  try {
    read_ply_points(dir / "flat.ply");
    FAIL() << "a PLY without z was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("flat.ply"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'z'"), std::string::npos) << e.what();
  }
}

}  // namespace
