// Linearised vibration frequencies of a simulated body (see body_frequencies.hpp).
#include <wobble/physics/body_frequencies.hpp>

#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "core/fail.hpp"

namespace wobble::physics {

namespace {

// The reduced stiffness at rest: F_dc = delta_dc + D_c[p] . z_d, so dF_dc / dz_(d q + j) = D_c[p, j].
Eigen::MatrixXd rest_stiffness(const Body& body) {
  const PointBasis& basis = body.basis();
  const Eigen::Index q = 4 * body.handle_count(), n = 3 * q;
  Mat3d P;
  Mat9d C;
  energy_derivatives(body.model(), body.material().mu(), body.material().lambda(), Mat3d::Identity(), P, &C);
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n), G = Eigen::MatrixXd::Zero(9, n);
  for (Eigen::Index p = 0; p < basis.B.rows(); ++p) {
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < 3; ++c) G.block(3 * d + c, d * q, 1, q) = basis.D[c].row(p);
    K.noalias() += body.point_volumes()[p] * (G.transpose() * (C * G));
  }
  return K;
}

}  // namespace

Eigen::VectorXd body_frequencies(const Body& body, int count) {
  if (count < 1) fail_plain("body '{}': asked for {} frequencies", body.name(), count);
  const Eigen::Index q = 4 * body.handle_count();
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(3 * q, 3 * q);
  for (int d = 0; d < 3; ++d) M.block(d * q, d * q, q, q) = body.mass_block();
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(rest_stiffness(body), M,
                                                                         Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) fail_plain("body '{}': the reduced eigenproblem failed", body.name());
  Eigen::VectorXd f = Eigen::VectorXd::Constant(count, std::numeric_limits<double>::quiet_NaN());
  for (Eigen::Index i = 0; i < std::min<Eigen::Index>(count, solver.eigenvalues().size()); ++i)
    f[i] = std::sqrt(std::max(solver.eigenvalues()[i], 0.0)) / (2.0 * 3.141592653589793);
  return f;
}

}  // namespace wobble::physics
