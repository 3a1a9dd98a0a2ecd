#pragma once
// Quality metrics of a skinning weight matrix W (N points x K fields), PhysSkin++ IV-B, computed
// on the column-wise L2-normalised matrix W^ (eqs. 29-31):
//   Omega_orth = ||W^T W - I||_F^2 / (K (K - 1))                 (0 best, at most 1)
//   kappa_log  = log2(1 + lambda_max / lambda_min) of W^T W       (1 best)
//   H_spec     = -sum p_i log p_i / log K, p_i = lambda_i / sum   (1 best)
#include <Eigen/Core>

#include <wobble/fields/skinning_field.hpp>

namespace wobble::neural {

struct FieldMetrics {
  double orthogonality = 0;     // Omega_orth
  double log_condition = 0;     // kappa_log (infinite for a singular Gram matrix)
  double spectral_entropy = 0;  // H_spec
};

// Needs K >= 2 and N >= 1; throws Error otherwise. Zero columns are left at zero (they make the
// Gram matrix singular: kappa_log = inf).
FieldMetrics field_metrics(const Eigen::MatrixXd& W);

// The three metrics above judge a basis: recombining the same fields (orthonormalising them, as
// skinning eigenmodes are by construction) changes them but not the deformations the subspace can
// make. This one judges the subspace itself: the Dirichlet trace trace(G^-1 D), with
// G_ij = sum_p v_p W_i W_j and D_ij = sum_p v_p grad W_i . grad W_j over quadrature points p of
// volume v_p. It is the sum of the Rayleigh quotients of any volume-orthonormal basis of the span,
// unchanged by any invertible recombination of the fields; lower is smoother, and the lowest
// Laplacian eigenfunctions minimise it. Infinite when the fields are linearly dependent.
double dirichlet_trace(const fields::FieldValues& fields, const Eigen::VectorXd& volumes);

}  // namespace wobble::neural
