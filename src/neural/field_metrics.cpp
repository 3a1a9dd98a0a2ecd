// Omega_orth, kappa_log, H_spec (PhysSkin++ IV-B).
#include <wobble/neural/field_metrics.hpp>

#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

FieldMetrics field_metrics(const Eigen::MatrixXd& W) {
  const Eigen::Index K = W.cols();
  if (K < 2 || W.rows() < 1) fail_plain("field metrics need at least 2 fields and 1 point (got {} x {})", W.rows(), K);
  Eigen::MatrixXd unit = W;
  for (Eigen::Index i = 0; i < K; ++i) {
    const double norm = unit.col(i).norm();
    if (norm > 0) unit.col(i) /= norm;
  }
  const Eigen::MatrixXd gram = unit.transpose() * unit;
  FieldMetrics m;
  m.orthogonality = (gram - Eigen::MatrixXd::Identity(K, K)).squaredNorm() / static_cast<double>(K * (K - 1));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(gram, Eigen::EigenvaluesOnly);
  Eigen::VectorXd lambda = solver.eigenvalues().cwiseMax(0.0);  // roundoff can give -1e-17
  const double lo = lambda.minCoeff(), hi = lambda.maxCoeff();
  m.log_condition = lo > 0 ? std::log2(1 + hi / lo) : std::numeric_limits<double>::infinity();
  const double sum = lambda.sum();
  double entropy = 0;
  for (Eigen::Index i = 0; i < K; ++i) {
    const double p = lambda[i] / sum;
    if (p > 0) entropy -= p * std::log(p);
  }
  m.spectral_entropy = entropy / std::log(static_cast<double>(K));
  return m;
}

double dirichlet_trace(const fields::FieldValues& fields, const Eigen::VectorXd& volumes) {
  const Eigen::MatrixXd& W = fields.W;
  if (W.rows() != volumes.size() || fields.dW[0].rows() != W.rows())
    fail_plain("dirichlet_trace: {} points, {} volumes and {} gradient rows differ", W.rows(), volumes.size(),
               fields.dW[0].rows());
  const Eigen::MatrixXd G = W.transpose() * volumes.asDiagonal() * W;
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(W.cols(), W.cols());
  for (const Eigen::MatrixXd& g : fields.dW) D += g.transpose() * volumes.asDiagonal() * g;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(G);
  const Eigen::VectorXd lambda = solver.eigenvalues();
  if (!(lambda.minCoeff() > 1e-12 * lambda.maxCoeff())) return std::numeric_limits<double>::infinity();
  // trace(G^-1 D) = trace(Lambda^-1 Q^T D Q).
  const Eigen::MatrixXd rotated = solver.eigenvectors().transpose() * D * solver.eigenvectors();
  return (rotated.diagonal().array() / lambda.array()).sum();
}

}  // namespace wobble::neural
