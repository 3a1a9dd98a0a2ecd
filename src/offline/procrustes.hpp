#pragma once
// Weighted Procrustes in closed form: the rigid transform (rotation R, translation T) that
// minimises sum_i a_i |R p_i + T - t_i|^2, from sums the caller accumulates.
#include <Eigen/Core>

#include <wobble/offline/skinning_decomposition.hpp>

namespace wobble::decomposition {

struct ProcrustesSums {
  double weight = 0;                                 // sum a_i
  Eigen::Vector3d source = Eigen::Vector3d::Zero();  // sum a_i p_i
  Eigen::Vector3d target = Eigen::Vector3d::Zero();  // sum a_i t_i
  Eigen::Matrix3d cross = Eigen::Matrix3d::Zero();   // sum a_i p_i t_i^T

  void add(double a, const Eigen::Vector3d& p, const Eigen::Vector3d& t) {
    weight += a;
    source += a * p;
    target += a * t;
    cross += a * p * t.transpose();
  }
  // A vertex that reaches the bone with weight w: |w (R p + T) - q|^2 = w^2 |R p + T - q / w|^2,
  // so a = w^2 and t = q / w, accumulated without the division.
  void add_weighted(double w, const Eigen::Vector3d& p, const Eigen::Vector3d& q) {
    weight += w * w;
    source += w * w * p;
    target += w * q;
    cross += w * p * q.transpose();
  }
};

// The best rigid transform for the sums (Kabsch, the reflection excluded); false when the
// weight is zero (`out` untouched). Points all at one place give the rotation that best turns
// nothing: the identity's nearest, so the transform is still a valid rigid motion.
bool fit_rigid(const ProcrustesSums& sums, BoneTransform& out);

}  // namespace wobble::decomposition
