// Surface clouds and cubature samples of one shape: a mesh, or a point cloud without one.
#include <wobble/fields/shape_sample.hpp>

#include <algorithm>
#include <array>

#include <wobble/error.hpp>
#include <wobble/fields/point_normals.hpp>

#include "core/fail.hpp"
#include "fields/area_weighted_picker.hpp"

namespace wobble::fields {

Eigen::MatrixXf surface_point_cloud(const Mesh& mesh, const Normalization& normalization, int count,
                                    std::uint64_t seed) {
  auto corners = [&](const Triangle& t) {
    return std::array<Eigen::Vector3d, 3>{mesh.positions[t[0]].cast<double>(), mesh.positions[t[1]].cast<double>(),
                                          mesh.positions[t[2]].cast<double>()};
  };
  std::vector<double> areas;
  areas.reserve(mesh.triangles.size());
  for (const Triangle& t : mesh.triangles) {
    const auto [a, b, c] = corners(t);
    areas.push_back(0.5 * (b - a).cross(c - a).norm());
  }
  const AreaWeightedPicker picker(areas);
  if (!(picker.total() > 0)) fail_plain("shape has no triangle of positive area to sample");
  Random random(seed);
  Eigen::MatrixXf cloud(count, 6);
  for (int k = 0; k < count; ++k) {
    const AreaWeightedPicker::Pick pick = picker(random);
    const auto [a, b, c] = corners(mesh.triangles[pick.triangle]);
    const Eigen::Vector3d p = normalization.to_normalized(a + pick.a * (b - a) + pick.b * (c - a));
    Eigen::Vector3d n = (b - a).cross(c - a);
    n = n.norm() > 0 ? Eigen::Vector3d(n.normalized()) : Eigen::Vector3d::UnitY();
    cloud.row(k) << static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()),
        static_cast<float>(n.x()), static_cast<float>(n.y()), static_cast<float>(n.z());
  }
  return cloud;
}

namespace {

// The runtime sampler's settings for a shape sample's cubature points.
SampleOptions sampler_options(const ShapeSampleOptions& options, std::uint64_t seed) {
  SampleOptions sampling;
  sampling.grid_resolution = options.grid_resolution;
  sampling.surface_samples = std::max(100, options.cubature_points / 2);
  sampling.edge_samples = std::max(20, options.cubature_points / 8);
  sampling.seed = seed;
  return sampling;
}

void set_cubature(ShapeSample& sample, const SamplePoints& samples) {
  sample.cubature.resize(static_cast<Eigen::Index>(samples.size()), 3);
  sample.volumes.resize(static_cast<Eigen::Index>(samples.size()));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    sample.cubature.row(static_cast<Eigen::Index>(i)) = samples.points[i].cast<float>().transpose();
    sample.volumes[static_cast<Eigen::Index>(i)] = static_cast<float>(samples.volumes[i]);
  }
}

}  // namespace

ShapeSample make_shape_sample(const Mesh& mesh, std::string name, const ShapeSampleOptions& options,
                              std::uint64_t seed) {
  if (mesh.triangles.empty() && !mesh.positions.empty())
    return make_point_shape_sample(to_double(mesh.positions), std::move(name), options, seed);
  SamplePoints samples = subsample(sample_mesh(mesh, sampler_options(options, seed)),
                                   static_cast<std::size_t>(options.cubature_points), seed + 1);
  ShapeSample sample;
  sample.name = std::move(name);
  sample.normalization = samples.normalization;
  sample.surface = surface_point_cloud(mesh, samples.normalization, options.surface_points, seed + 2);
  set_cubature(sample, samples);
  return sample;
}

ShapeSample make_point_shape_sample(std::span<const Vec3d> points, std::string name, const ShapeSampleOptions& options,
                                    std::uint64_t seed) {
  if (points.size() < 3) fail_plain("a point cloud needs at least 3 points (got {})", points.size());
  const SamplePoints all = sample_point_cloud(points, sampler_options(options, seed));
  ShapeSample sample;
  sample.name = std::move(name);
  sample.normalization = all.normalization;
  std::vector<Vec3d> cloud(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) cloud[i] = all.normalization.to_normalized(points[i]);
  // The encoder's points: drawn from the cloud (a splat's density stands in for surface area).
  Random random(seed + 2);
  std::vector<std::size_t> picks(static_cast<std::size_t>(options.surface_points));
  for (std::size_t& p : picks) p = random.next() % cloud.size();
  const std::span<const Vec3d> interior(all.points.data(), all.interior_count);
  const Eigen::MatrixX3d normals = outward_normals(cloud, picks, interior, all.grid_spacing);
  sample.surface.resize(static_cast<Eigen::Index>(picks.size()), 6);
  for (std::size_t k = 0; k < picks.size(); ++k)
    sample.surface.row(static_cast<Eigen::Index>(k)) << cloud[picks[k]].cast<float>().transpose(),
        normals.row(static_cast<Eigen::Index>(k)).cast<float>();
  set_cubature(sample, subsample(all, static_cast<std::size_t>(options.cubature_points), seed + 1));
  return sample;
}

std::vector<Vec3d> cubature_points(const ShapeSample& sample) {
  std::vector<Vec3d> points;
  points.reserve(static_cast<std::size_t>(sample.cubature.rows()));
  for (Eigen::Index p = 0; p < sample.cubature.rows(); ++p)
    points.push_back(sample.cubature.row(p).transpose().cast<double>());
  return points;
}

}  // namespace wobble::fields
