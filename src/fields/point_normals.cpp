// Outward normals of point clouds (see point_normals.hpp).
#include <wobble/fields/point_normals.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "core/fail.hpp"
#include "fields/cell_hash.hpp"

namespace wobble::fields {

namespace {

// A point set's k nearest neighbours, searched in growing shells of cells until k are found.
class PointHash {
 public:
  PointHash(std::span<const Vec3d> points, double cell) : points_(points), grid_(cell) {
    for (std::size_t i = 0; i < points.size(); ++i) grid_.add(points[i], 0, static_cast<int>(i));
  }
  std::vector<std::size_t> nearest(const Vec3d& p, std::size_t k) const {
    std::vector<std::pair<double, std::size_t>> found;
    for (long long rings = 1; found.size() < k && rings <= 64; ++rings) {
      found.clear();
      grid_.visit_near(
          p,
          [&](int, int point) {
            const auto i = static_cast<std::size_t>(point);
            found.emplace_back((points_[i] - p).squaredNorm(), i);
          },
          rings);
    }
    const std::size_t n = std::min(k, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(n), found.end());
    std::vector<std::size_t> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = found[i].second;
    return out;
  }

 private:
  std::span<const Vec3d> points_;
  CellHash grid_;
};

// The direction of least variance of the points (their covariance's smallest eigenvector).
Vec3d least_variance_direction(std::span<const Vec3d> cloud, const std::vector<std::size_t>& near) {
  Vec3d mean = Vec3d::Zero();
  for (std::size_t i : near) mean += cloud[i];
  mean /= static_cast<double>(near.size());
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
  for (std::size_t i : near) covariance += (cloud[i] - mean) * (cloud[i] - mean).transpose();
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(covariance).eigenvectors().col(0);
}

}  // namespace

std::vector<bool> behind_nearest_normal(std::span<const Vec3d> cloud, std::span<const Vec3d> queries,
                                        std::span<const Vec3d> interior, double spacing) {
  if (cloud.empty()) fail_plain("point normals: the cloud is empty");
  const PointHash points(cloud, spacing);
  std::vector<std::size_t> nearest(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) nearest[q] = points.nearest(queries[q], 1).front();
  const Eigen::MatrixX3d normals = outward_normals(cloud, nearest, interior, spacing);
  std::vector<bool> behind(queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    behind[q] = normals.row(static_cast<Eigen::Index>(q)).dot(queries[q] - cloud[nearest[q]]) <= 0;
  return behind;
}

Eigen::MatrixX3d outward_normals(std::span<const Vec3d> cloud, std::span<const std::size_t> at,
                                 std::span<const Vec3d> interior, double spacing, int neighbours) {
  if (cloud.empty()) fail_plain("point normals: the cloud is empty");
  if (!(spacing > 0) || neighbours < 3)
    fail_plain("point normals: need a positive cell size and at least 3 neighbours");
  const PointHash points(cloud, spacing), inside(interior, spacing);
  const double reach = 2.5 * spacing;
  Eigen::MatrixX3d normals(static_cast<Eigen::Index>(at.size()), 3);
  for (std::size_t j = 0; j < at.size(); ++j) {
    if (at[j] >= cloud.size()) fail_plain("point normals: index {} outside a cloud of {} points", at[j], cloud.size());
    const Vec3d& p = cloud[at[j]];
    const std::vector<std::size_t> near = points.nearest(p, static_cast<std::size_t>(neighbours));
    Vec3d centroid = Vec3d::Zero();
    int count = 0;
    for (std::size_t i : inside.nearest(p, 64))
      if ((interior[i] - p).norm() <= reach) {
        centroid += interior[i];
        ++count;
      }
    const Vec3d inward = count > 0 ? Vec3d(centroid / count - p) : Vec3d(-p);  // no cell near: away from the centre
    Vec3d n = near.size() >= 3 ? least_variance_direction(cloud, near) : Vec3d(-inward);
    if (n.dot(inward) > 0) n = -n;
    const Vec3d unit = n.norm() > 0 ? Vec3d(n.normalized()) : Vec3d::UnitY();
    normals.row(static_cast<Eigen::Index>(j)) = unit.transpose();
  }
  return normals;
}

}  // namespace wobble::fields
