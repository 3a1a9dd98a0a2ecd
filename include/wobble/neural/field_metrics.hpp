#pragma once
// Quality metrics of a skinning weight matrix W (N points x K fields), PhysSkin++ IV-B, computed
// on the column-wise L2-normalised matrix W^ (eqs. 29-31):
//   Omega_orth = ||W^T W - I||_F^2 / (K (K - 1))                 (0 best, at most 1)
//   kappa_log  = log2(1 + lambda_max / lambda_min) of W^T W       (1 best)
//   H_spec     = -sum p_i log p_i / log K, p_i = lambda_i / sum   (1 best)
#include <Eigen/Core>

namespace wobble::neural {

struct FieldMetrics {
  double orthogonality = 0;     // Omega_orth
  double log_condition = 0;     // kappa_log (infinite for a singular Gram matrix)
  double spectral_entropy = 0;  // H_spec
};

// Needs K >= 2 and N >= 1; throws Error otherwise. Zero columns are left at zero (they make the
// Gram matrix singular: kappa_log = inf).
FieldMetrics field_metrics(const Eigen::MatrixXd& W);

}  // namespace wobble::neural
