#pragma once
// The compliance loss (losses.compliance; not in the paper, docs/neural.md): how much of a shape's
// response to loads its kept subspace carries. The Galerkin solution u_r of linear elasticity
// in a subspace minimises the energy-norm error to the full solution u, and
// ||u - u_r||_K^2 = f.u - f.u_r, so the larger the reduced compliance c = f_r^T K_r^-1 f_r, the
// closer the subspace's answer: the loss is -log c (scale free), averaged over the loads: gravity
// with the top of the shape pinned, as the fidelity measure pins it, and Gaussian-kernel pokes.
// Conventions as losses.hpp; the subspace is the runtime's u(X) = d(X) sum_i W_i(X) Z_i [X; 1] with
// the pins' modulation d (physics::DirichletRegion::modulation).
#include <torch/torch.h>

#include "losses.hpp"

namespace wobble::neural {

// The pinned region: the shape's points (C x 3) in the top `fraction` of their height (y), and
// the blend width of d(X) around them.
struct TopPins {
  torch::Tensor anchors;  // A x 3
  double threshold = 0;   // y at and above which a point is pinned
  double blend = 0;
};
TopPins top_pins(const torch::Tensor& points, double fraction, double blend);

// d(X) (N) and its gradient (N x 3): 0 in the region, smoothstep(distance / blend) to the nearest
// anchor outside it, 1 beyond the blend (DirichletRegion::modulation's formula). No autograd.
struct Modulation {
  torch::Tensor d, gradient;
};
Modulation pin_modulation(const TopPins& pins, const torch::Tensor& X);

// The fields times d: W' = d W, grad W' = d grad W + W grad d.
FieldBatch modulated(const FieldBatch& fields, const Modulation& m);

// The reduced stiffness of linear elasticity (Lame mu, lambda) over the points with volumes V:
// 0.5 z^T K z = sum_p V_p psi_lin(I + grad u(X_p)) for u(X) = sum_i W_i(X) Z_i [X; 1], z = Z's
// entries in row-major order (K x 3 x 4): 12K x 12K.
torch::Tensor reduced_stiffness(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& V, double mu,
                                double lambda);

// The reduced loads of force densities f (L x N x 3) at the points: F_l . z = sum_p V_p f_l(X_p) . u(X_p): L x 12K.
torch::Tensor reduced_loads(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& V,
                            const torch::Tensor& forces);

// The compliances c_l = F_l^T K^-1 F_l (L), in double.
torch::Tensor reduced_compliance(const torch::Tensor& stiffness, const torch::Tensor& loads);

// The loads of the loss at the points (L x N x 3): gravity (0, -1, 0), then `pokes` Gaussian
// kernels of width `radius` at random points with d > 0, each along a random unit direction.
torch::Tensor compliance_test_loads(const torch::Tensor& X, const Modulation& m, int pokes, double radius,
                                    at::Generator& generator);

// What the loss needs beside the fields: the shape's pins, the material, the pokes.
struct ComplianceSetup {
  TopPins pins;
  double mu = 0, lambda = 0;
  int pokes = 0;
  double poke_radius = 0;
};

// The loss for fields (constant column first, unmodulated) at X with volumes V: -mean_l log c_l
// over the test loads. Throws DependentFields when the modulated subspace has no stiffness.
torch::Tensor compliance_loss(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& V,
                              const ComplianceSetup& setup, at::Generator& generator);

}  // namespace wobble::neural
