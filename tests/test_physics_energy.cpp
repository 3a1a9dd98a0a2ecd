// Elastic energies: analytic derivatives against finite differences, rest and rigid invariance.
#include <cmath>

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <wobble/error.hpp>
#include <wobble/physics/elasticity.hpp>

using namespace wobble::physics;

namespace {

Mat3d test_matrix(int seed, double amount) {
  Mat3d F = Mat3d::Identity();
  std::uint32_t s = 12345u + 977u * static_cast<std::uint32_t>(seed);
  for (int i = 0; i < 9; ++i) {
    s = s * 1664525u + 1013904223u;
    F(i / 3, i % 3) += amount * ((s >> 8) / 16777216.0 - 0.5);
  }
  return F;
}

void check_derivatives(EnergyModel model, const Mat3d& F) {
  const double mu = 3.0, lambda = 7.0, eps = 1e-6;
  Mat3d P;
  Mat9d H;
  energy_derivatives(model, mu, lambda, F, P, &H);
  for (int i = 0; i < 9; ++i) {
    Mat3d Fp = F, Fm = F;
    Fp(i / 3, i % 3) += eps;
    Fm(i / 3, i % 3) -= eps;
    const double numeric = (energy_density(model, mu, lambda, Fp) - energy_density(model, mu, lambda, Fm)) / (2 * eps);
    EXPECT_NEAR(P(i / 3, i % 3), numeric, 1e-6 * (1 + std::abs(numeric))) << to_string(model) << " P entry " << i;
    Mat3d Pp, Pm;
    energy_derivatives(model, mu, lambda, Fp, Pp, nullptr);
    energy_derivatives(model, mu, lambda, Fm, Pm, nullptr);
    for (int j = 0; j < 9; ++j) {
      const double hn = (Pp(j / 3, j % 3) - Pm(j / 3, j % 3)) / (2 * eps);
      EXPECT_NEAR(H(j, i), hn, 1e-5 * (1 + std::abs(hn))) << to_string(model) << " H entry " << j << "," << i;
    }
  }
  EXPECT_LT((H - H.transpose()).cwiseAbs().maxCoeff(), 1e-12);
}

}  // namespace

TEST(PhysicsEnergy, DerivativesMatchFiniteDifferences) {
  for (EnergyModel model : {EnergyModel::Linear, EnergyModel::NeoHookean})
    for (int seed = 0; seed < 6; ++seed) check_derivatives(model, test_matrix(seed, seed < 3 ? 0.3 : 1.5));
  // Inverted element: the stable Neo-Hookean stays finite and differentiable.
  Mat3d inverted = Mat3d::Identity();
  inverted(0, 0) = -0.5;
  check_derivatives(EnergyModel::NeoHookean, inverted);
}

TEST(PhysicsEnergy, RestIsStressFreeAndRotationsCostNothing) {
  const Material material{1e5, 0.45, 1000};
  for (EnergyModel model : {EnergyModel::Linear, EnergyModel::NeoHookean}) {
    Mat3d P;
    EXPECT_NEAR(energy_derivatives(model, material.mu(), material.lambda(), Mat3d::Identity(), P, nullptr), 0.0, 1e-12);
    EXPECT_LT(P.cwiseAbs().maxCoeff(), 1e-9);
  }
  for (int k = 0; k < 5; ++k) {
    const Mat3d R = Eigen::AngleAxisd(0.3 + k, Eigen::Vector3d(1, 2 - k, 0.5).normalized()).toRotationMatrix();
    Mat3d P;
    const double psi = energy_derivatives(EnergyModel::NeoHookean, material.mu(), material.lambda(), R, P, nullptr);
    EXPECT_NEAR(psi, 0.0, 1e-9 * material.mu());
    EXPECT_LT(P.cwiseAbs().maxCoeff(), 1e-9 * material.mu());
  }
  EXPECT_THROW((Material{-1, 0.3, 1}.check()), wobble::Error);
  EXPECT_THROW((Material{1, 0.5, 1}.check()), wobble::Error);
}
