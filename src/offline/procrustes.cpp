#include "offline/procrustes.hpp"

#include <Eigen/SVD>

namespace wobble::decomposition {

bool fit_rigid(const ProcrustesSums& sums, BoneTransform& out) {
  if (!(sums.weight > 0)) return false;
  const Eigen::Vector3d source_mean = sums.source / sums.weight;
  const Eigen::Vector3d target_mean = sums.target / sums.weight;
  // Centred cross-covariance sum a (p - p_mean)(t - t_mean)^T.
  const Eigen::Matrix3d covariance = sums.cross - sums.weight * source_mean * target_mean.transpose();
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(covariance, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d flip = Eigen::Matrix3d::Identity();
  if ((svd.matrixV() * svd.matrixU().transpose()).determinant() < 0) flip(2, 2) = -1;
  const Eigen::Matrix3d rotation = svd.matrixV() * flip * svd.matrixU().transpose();
  out.leftCols<3>() = rotation;
  out.col(3) = target_mean - rotation * source_mean;
  return true;
}

}  // namespace wobble::decomposition
