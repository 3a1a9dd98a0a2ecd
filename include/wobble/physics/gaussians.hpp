#pragma once
// 3D Gaussian splats (PhysSkin++ III-F): the standard 3DGS PLY (binary little-endian, one
// `vertex` element of float properties x y z, nx ny nz, f_dc_*, f_rest_*, opacity, scale_0..2
// (logarithms), rot_0..3 (quaternion w, x, y, z, unnormalised)), read and written by property
// name so that any extra or reordered properties survive. Binding: each Gaussian follows the local
// affine map [A t] = [I 0] + sum_i W_i(mu0) Z_i of its rest centre, mu = A mu0 + t and
// Sigma = A Sigma0 A^T; written back as scales and rotation by an eigendecomposition of Sigma.
// Opacity, colour and every other property keep their rest values.
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace wobble::physics {

class GaussianCloud {
 public:
  std::vector<std::string> properties;  // float properties of `vertex`, in file order
  std::vector<float> values;            // count x properties, row-major
  std::size_t count() const { return properties.empty() ? 0 : values.size() / properties.size(); }

  // Index of a property, or -1.
  int find(const std::string& name) const;
  Eigen::Vector3d center(std::size_t i) const;
  Eigen::Matrix3d covariance(std::size_t i) const;
  // Sets centre and covariance (scales and rotation re-derived; everything else untouched).
  void set(std::size_t i, const Eigen::Vector3d& center, const Eigen::Matrix3d& covariance);
  // Throws Error naming `source` when x, y, z, scale_0..2 or rot_0..3 are missing.
  void require_geometry(const std::filesystem::path& source) const;
};

// Covariance R S S^T R^T from log-scales and a quaternion (w, x, y, z), normalised here.
Eigen::Matrix3d covariance_from(const Eigen::Vector3d& log_scales, const Eigen::Vector4d& wxyz);
// Log-scales and a unit quaternion (w, x, y, z, w >= 0) of a symmetric positive (semi)definite matrix.
void decompose_covariance(const Eigen::Matrix3d& covariance, Eigen::Vector3d& log_scales, Eigen::Vector4d& wxyz);

// True if the file is a PLY whose vertex element has the Gaussian properties (scale_0, rot_0, opacity).
bool is_gaussian_ply(const std::filesystem::path& path);
GaussianCloud read_gaussian_ply(const std::filesystem::path& path);
// True if the file is a PLY of points alone (a scan, or splats' centres kept without their
// Gaussians): a vertex element with x, y, z and no other element (no faces), nor the Gaussian
// properties. Such files have no surface: `wobble simulate` samples them as a point cloud.
bool is_point_cloud_ply(const std::filesystem::path& path);
// The x, y, z of a PLY's vertices (binary little-endian, float properties, as 3DGS PLYs). Throws
// Error naming the file when it is not such a PLY, lacks x, y or z, or holds no point.
std::vector<Eigen::Vector3d> read_ply_points(const std::filesystem::path& path);
// Writes through AtomicOutput.
void write_gaussian_ply(const std::filesystem::path& path, const GaussianCloud& cloud);

}  // namespace wobble::physics
