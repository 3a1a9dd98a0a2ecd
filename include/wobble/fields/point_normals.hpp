#pragma once
// Outward normals of a point cloud without a mesh (Gaussian centres, scanned points), for the
// neural fields' shape encoder, which reads points with normals (PhysSkin++ III-B): at each asked
// point, the direction of least variance of its k nearest neighbours (PCA), signed away from the
// shape's interior, i.e. away from the centroid of the enclosed grid cells near it (the cells a
// point cloud occupies or encloses, sample_point_cloud). Thin parts one cell thick still orient
// both sides outward: the cells they occupy straddle the surface, their centroid lies inside.
#include <span>
#include <vector>

#include <Eigen/Core>

#include <wobble/math.hpp>

namespace wobble::fields {

// cloud: all points; at: the indices to give normals for; interior: enclosed cell centres, cells
// of size `spacing`. Returns |at| x 3 unit normals. Throws Error for an empty cloud or an index
// out of range.
Eigen::MatrixX3d outward_normals(std::span<const Vec3d> cloud, std::span<const std::size_t> at,
                                 std::span<const Vec3d> interior, double spacing, int neighbours = 16);

// Whether each query point lies behind the outward normal of its nearest cloud point (inside the
// surface the cloud samples, Hoppe et al. 1992's sign of the distance to oriented points).
std::vector<bool> behind_nearest_normal(std::span<const Vec3d> cloud, std::span<const Vec3d> queries,
                                        std::span<const Vec3d> interior, double spacing);

}  // namespace wobble::fields
