#pragma once
// Elastic energy densities of the deformation gradient F, with their first derivative
// P = dpsi/dF (the first Piola-Kirchhoff stress) and second derivative d2psi/dF2 (9x9).
// Flattening of F: index 3 * row + column (row-major), for P and the Hessian alike.
//
// Linear (small-strain) elasticity: psi = mu eps:eps + lambda/2 tr(eps)^2, eps = (F + F^T)/2 - I.
// Stable Neo-Hookean (the form of METHOD_NOTES §3 / Simplicits, with Smith et al. 2018's
// reparametrisation lambda' = lambda + mu so that its linearisation at rest is exactly the linear
// model above, i.e. it has the given Young's modulus and Poisson ratio for small strains):
//   psi = mu/2 (I1 - 3) - mu (J - 1) + (lambda + mu)/2 (J - 1)^2,  I1 = tr(F^T F), J = det F.
// It is zero and stress-free at any rotation and finite for inverted elements (J <= 0).
#include <string>

#include <Eigen/Core>

namespace wobble::physics {

using Mat3d = Eigen::Matrix3d;
using Mat9d = Eigen::Matrix<double, 9, 9>;

// Young's modulus (Pa), Poisson ratio (0 <= nu < 0.5), density (kg/m^3).
struct Material {
  double youngs_modulus = 1e5;
  double poisson_ratio = 0.45;
  double density = 1000;

  double mu() const { return youngs_modulus / (2.0 * (1.0 + poisson_ratio)); }
  double lambda() const {
    return youngs_modulus * poisson_ratio / ((1.0 + poisson_ratio) * (1.0 - 2.0 * poisson_ratio));
  }
  // Throws Error naming the bad parameter.
  void check() const;
};

enum class EnergyModel { Linear, NeoHookean };

const char* to_string(EnergyModel model);
// "linear" or "neohookean" (also "neo-hookean", "snh"); throws Error otherwise.
EnergyModel energy_model_from_string(const std::string& name);

// Energy density (J/m^3).
double energy_density(EnergyModel model, double mu, double lambda, const Mat3d& F);
// Energy density and its gradient P (3x3); with `hessian`, also d2psi/dF2.
double energy_derivatives(EnergyModel model, double mu, double lambda, const Mat3d& F, Mat3d& P, Mat9d* hessian);

}  // namespace wobble::physics
