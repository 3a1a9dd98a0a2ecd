// Surface clouds and cubature samples of one shape.
#include <wobble/physics/shape_sample.hpp>

#include <algorithm>

#include <wobble/error.hpp>

namespace wobble::physics {

Eigen::MatrixXf surface_point_cloud(const Mesh& mesh, const Normalization& normalization, int count,
                                    std::uint64_t seed) {
  // Cumulative areas for area-weighted triangle choice.
  std::vector<double> cumulative;
  cumulative.reserve(mesh.triangles.size());
  double total = 0;
  for (const Triangle& t : mesh.triangles) {
    const Eigen::Vector3d a = mesh.positions[t[0]].cast<double>(), b = mesh.positions[t[1]].cast<double>(),
                          c = mesh.positions[t[2]].cast<double>();
    total += 0.5 * (b - a).cross(c - a).norm();
    cumulative.push_back(total);
  }
  if (!(total > 0)) fail_plain("shape has no triangle of positive area to sample");
  Random random(seed);
  Eigen::MatrixXf cloud(count, 6);
  for (int k = 0; k < count; ++k) {
    const double pick = random.uniform() * total;
    const std::size_t index = std::min<std::size_t>(
        static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin()),
        cumulative.size() - 1);
    const Triangle& t = mesh.triangles[index];
    const Eigen::Vector3d a = mesh.positions[t[0]].cast<double>(), b = mesh.positions[t[1]].cast<double>(),
                          c = mesh.positions[t[2]].cast<double>();
    double r1 = random.uniform(), r2 = random.uniform();
    if (r1 + r2 > 1) { r1 = 1 - r1; r2 = 1 - r2; }
    const Eigen::Vector3d p = normalization.to_normalized(a + r1 * (b - a) + r2 * (c - a));
    Eigen::Vector3d n = (b - a).cross(c - a);
    n = n.norm() > 0 ? Eigen::Vector3d(n.normalized()) : Eigen::Vector3d::UnitY();
    cloud.row(k) << static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z()),
        static_cast<float>(n.x()), static_cast<float>(n.y()), static_cast<float>(n.z());
  }
  return cloud;
}

ShapeSample make_shape_sample(const Mesh& mesh, std::string name, const ShapeSampleOptions& options, std::uint64_t seed) {
  SampleOptions sampling;
  sampling.grid_resolution = options.grid_resolution;
  sampling.surface_samples = std::max(100, options.cubature_points / 2);
  sampling.edge_samples = std::max(20, options.cubature_points / 8);
  sampling.seed = seed;
  SamplePoints samples = subsample(sample_mesh(mesh, sampling),
                                                     static_cast<std::size_t>(options.cubature_points), seed + 1);
  ShapeSample sample;
  sample.name = std::move(name);
  sample.normalization = samples.normalization;
  sample.surface = surface_point_cloud(mesh, samples.normalization, options.surface_points, seed + 2);
  sample.cubature.resize(static_cast<Eigen::Index>(samples.size()), 3);
  sample.volumes.resize(static_cast<Eigen::Index>(samples.size()));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    sample.cubature.row(static_cast<Eigen::Index>(i)) = samples.points[i].cast<float>().transpose();
    sample.volumes[static_cast<Eigen::Index>(i)] = static_cast<float>(samples.volumes[i]);
  }
  return sample;
}

std::vector<Vec3d> cubature_points(const ShapeSample& sample) {
  std::vector<Vec3d> points;
  points.reserve(static_cast<std::size_t>(sample.cubature.rows()));
  for (Eigen::Index p = 0; p < sample.cubature.rows(); ++p) points.push_back(sample.cubature.row(p).transpose().cast<double>());
  return points;
}

}  // namespace wobble::physics
