// Energy densities and their derivatives (formulas in elasticity.hpp).
#include <wobble/physics/elasticity.hpp>

#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

void Material::check() const {
  if (!(youngs_modulus > 0) || !std::isfinite(youngs_modulus))
    fail_plain("Young's modulus must be positive and finite (got {})", youngs_modulus);
  if (!(poisson_ratio >= 0 && poisson_ratio < 0.5))
    fail_plain("Poisson ratio must be in [0, 0.5) (got {})", poisson_ratio);
  if (!(density > 0) || !std::isfinite(density)) fail_plain("density must be positive and finite (got {})", density);
}

const char* to_string(EnergyModel model) { return model == EnergyModel::Linear ? "linear" : "neohookean"; }

EnergyModel energy_model_from_string(const std::string& name) {
  if (name == "linear") return EnergyModel::Linear;
  if (name == "neohookean" || name == "neo-hookean" || name == "snh" || name == "stable-neohookean")
    return EnergyModel::NeoHookean;
  fail_plain("unknown material model '{}' (use linear or neohookean)", name);
}

namespace {

// Cofactor matrix dJ/dF = J F^{-T}, defined for any F.
Mat3d cofactor(const Mat3d& F) {
  Mat3d C;
  C.col(0) = F.col(1).cross(F.col(2));
  C.col(1) = F.col(2).cross(F.col(0));
  C.col(2) = F.col(0).cross(F.col(1));
  return C;
}

inline int flat(int row, int column) { return 3 * row + column; }

}  // namespace

double energy_density(EnergyModel model, double mu, double lambda, const Mat3d& F) {
  if (model == EnergyModel::Linear) {
    const Mat3d eps = 0.5 * (F + F.transpose()) - Mat3d::Identity();
    const double tr = eps.trace();
    return mu * eps.squaredNorm() + 0.5 * lambda * tr * tr;
  }
  const double J = F.determinant();
  lambda += mu;
  return 0.5 * mu * (F.squaredNorm() - 3.0) - mu * (J - 1.0) + 0.5 * lambda * (J - 1.0) * (J - 1.0);
}

double energy_derivatives(EnergyModel model, double mu, double lambda, const Mat3d& F, Mat3d& P, Mat9d* hessian) {
  if (model == EnergyModel::Linear) {
    const Mat3d eps = 0.5 * (F + F.transpose()) - Mat3d::Identity();
    const double tr = eps.trace();
    P = 2.0 * mu * eps + lambda * tr * Mat3d::Identity();
    if (hessian) {
      // d(2 mu eps_ij)/dF_kl = mu (d_ik d_jl + d_il d_jk); d(lambda tr eps d_ij)/dF_kl = lambda d_ij d_kl.
      hessian->setZero();
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          (*hessian)(flat(i, j), flat(i, j)) += mu;
          (*hessian)(flat(i, j), flat(j, i)) += mu;
          if (i == j)
            for (int k = 0; k < 3; ++k) (*hessian)(flat(i, i), flat(k, k)) += lambda;
        }
    }
    return mu * eps.squaredNorm() + 0.5 * lambda * tr * tr;
  }
  lambda +=
      mu;  // Smith et al. 2018: lambda + mu in the volume term makes the rest linearisation equal linear elasticity
  const Mat3d C = cofactor(F);
  const double J = F.determinant();
  const double s = lambda * (J - 1.0) - mu;  // coefficient of dJ/dF in P
  P = mu * F + s * C;
  if (hessian) {
    Mat9d& H = *hessian;
    H.setZero();
    for (int i = 0; i < 9; ++i) H(i, i) = mu;
    // lambda vec(C) vec(C)^T
    Eigen::Matrix<double, 9, 1> c;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c[flat(i, j)] = C(i, j);
    H.noalias() += lambda * c * c.transpose();
    // s d2J/dF2: d C_ij / dF_kl = eps_{i k a} eps_{j l b} F_ab (for i != k and j != l), written out
    // as the derivative of each cofactor entry C_ij = F_{i+1,j+1} F_{i+2,j+2} - F_{i+1,j+2} F_{i+2,j+1}.
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
        const int row = flat(i, j);
        H(row, flat(i1, j1)) += s * F(i2, j2);
        H(row, flat(i2, j2)) += s * F(i1, j1);
        H(row, flat(i1, j2)) -= s * F(i2, j1);
        H(row, flat(i2, j1)) -= s * F(i1, j2);
      }
  }
  return 0.5 * mu * (F.squaredNorm() - 3.0) - mu * (J - 1.0) + 0.5 * lambda * (J - 1.0) * (J - 1.0);
}

}  // namespace wobble::physics
