// The compliance loss's parts (compliance_loss.hpp).
#include "compliance_loss.hpp"

#include <cmath>

#include <wobble/physics/subspace_fidelity.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

TopPins top_pins(const torch::Tensor& points, double fraction, double blend) {
  if (points.size(0) == 0) fail_plain("compliance loss: a shape without points has no top to pin");
  const torch::Tensor y = points.select(1, 1);
  const double lo = y.min().item<double>(), hi = y.max().item<double>();
  const double threshold = physics::pinned_threshold(lo, hi, fraction);  // as the fidelity measure pins
  return {points.index({y >= threshold}).detach().clone(), threshold, blend};
}

Modulation pin_modulation(const TopPins& pins, const torch::Tensor& X) {
  torch::NoGradGuard no_grad;
  const torch::Tensor P = X.detach().to(torch::kFloat64);
  const torch::Tensor anchors = pins.anchors.to(torch::kFloat64);
  const auto [distance, nearest] = torch::cdist(P, anchors).min(1);
  const torch::Tensor t = distance / pins.blend;
  const torch::Tensor outside = P.select(1, 1) < pins.threshold;
  const torch::Tensor blending = outside & (t < 1);
  torch::Tensor d = torch::where(blending, t * t * (3 - 2 * t), outside.to(torch::kFloat64));
  const torch::Tensor direction = (P - anchors.index_select(0, nearest)) / distance.clamp_min(1e-300).unsqueeze(1);
  const torch::Tensor slope =
      torch::where(blending & (distance > 0), 6 * t * (1 - t) / pins.blend, torch::zeros_like(t));
  return {d.to(X.scalar_type()), (slope.unsqueeze(1) * direction).to(X.scalar_type())};
}

FieldBatch modulated(const FieldBatch& fields, const Modulation& m) {
  const torch::Tensor d = m.d.unsqueeze(1);  // N x 1
  return {fields.W * d, fields.dW * d.unsqueeze(2) + fields.W.unsqueeze(2) * m.gradient.unsqueeze(1)};
}

namespace {

// g[p, i, a] = grad (W_i [X; 1]_a) at X_p: N x K x 4 x 3.
torch::Tensor affine_gradients(const FieldBatch& fields, const torch::Tensor& X) {
  const torch::Tensor Xh = homogeneous(X);                                     // N x 4
  const torch::Tensor unit = torch::eye(4, 3, X.options());                    // grad [X; 1]_a
  return Xh.unsqueeze(1).unsqueeze(3) * fields.dW.unsqueeze(2) +               // X~_a grad W_i
         fields.W.unsqueeze(2).unsqueeze(3) * unit.unsqueeze(0).unsqueeze(0);  // W_i e_a
}

}  // namespace

torch::Tensor reduced_stiffness(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& V, double mu,
                                double lambda) {
  const auto k = fields.W.size(1);
  // The basis displacement (i, c, a) is W_i [X; 1]_a e_c, its gradient e_c g_ia^T, so with
  // S[m, c, n, d] = sum_p V_p g_m,c g_n,d (m = (i, a)): 2 mu eps:eps' = mu (delta_cd g.h + g_d h_c)
  // and lambda tr eps tr eps' = lambda g_c h_d.
  const torch::Tensor g = affine_gradients(fields, X).reshape({X.size(0), 4 * k, 3});
  const torch::Tensor S = torch::einsum("pmc,pnd->mcnd", {g * V.reshape({-1, 1, 1}), g});
  const torch::Tensor A = S.diagonal(0, 1, 3).sum(-1);  // M x M
  const torch::Tensor eye3 = torch::eye(3, X.options());
  const torch::Tensor K = mu * A.unsqueeze(1).unsqueeze(3) * eye3.unsqueeze(0).unsqueeze(2) +
                          mu * S.permute({0, 3, 2, 1}) + lambda * S;  // (i, a, c) x (j, e, d)
  return K.reshape({k, 4, 3, k, 4, 3}).permute({0, 2, 1, 3, 5, 4}).reshape({12 * k, 12 * k});
}

torch::Tensor reduced_loads(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& V,
                            const torch::Tensor& forces) {
  const auto k = fields.W.size(1);
  const torch::Tensor Xh = homogeneous(X);
  const torch::Tensor shape = fields.W.unsqueeze(2) * Xh.unsqueeze(1);  // N x K x 4
  return torch::einsum("lpc,pia->lica", {forces * V.reshape({1, -1, 1}), shape}).reshape({forces.size(0), 12 * k});
}

torch::Tensor reduced_compliance(const torch::Tensor& stiffness, const torch::Tensor& loads) {
  const torch::Tensor K = stiffness.to(torch::kFloat64);
  const auto n = K.size(0);
  // A relative ridge: a direction the points do not strain (a rigid one among them) costs 1e-10 of
  // the average stiffness instead of dividing by zero.
  const torch::Tensor ridge = 1e-10 * K.diagonal().mean() * torch::eye(n, K.options());
  const auto [L, info] = torch::linalg_cholesky_ex(K + ridge);
  if (info.item<int>() != 0) throw DependentFields("compliance loss: the reduced stiffness is not positive definite");
  const torch::Tensor F = loads.to(torch::kFloat64);
  return (F * torch::cholesky_solve(F.t(), L).t()).sum(1);
}

torch::Tensor compliance_test_loads(const torch::Tensor& X, const Modulation& m, int pokes, double radius,
                                    at::Generator& generator) {
  torch::NoGradGuard no_grad;
  const auto n = X.size(0);
  const torch::Tensor P = X.detach();
  std::vector<torch::Tensor> loads{torch::tensor({0.0, -1.0, 0.0}, X.options()).expand({n, 3}).clone()};
  const torch::Tensor free = torch::nonzero(m.d > 0).squeeze(1);
  const torch::Tensor candidates = free.numel() > 0 ? free : torch::arange(n, torch::kLong);
  for (int k = 0; k < pokes; ++k) {
    const auto pick = torch::randint(candidates.numel(), {1}, generator, torch::kLong);
    const torch::Tensor centre = P.index_select(0, candidates.index_select(0, pick));  // 1 x 3
    torch::Tensor direction = torch::randn({3}, generator, X.options());
    direction = direction / direction.norm();
    const torch::Tensor kernel = torch::exp(-(P - centre).pow(2).sum(1) / (2 * radius * radius));
    loads.push_back(kernel.unsqueeze(1) * direction.unsqueeze(0));
  }
  return torch::stack(loads, 0);
}

torch::Tensor compliance_loss(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& V,
                              const ComplianceSetup& setup, at::Generator& generator) {
  const Modulation m = pin_modulation(setup.pins, X);
  const FieldBatch pinned = modulated(fields, m);
  const torch::Tensor K = reduced_stiffness(pinned, X, V, setup.mu, setup.lambda);
  const torch::Tensor F =
      reduced_loads(pinned, X, V, compliance_test_loads(X, m, setup.pokes, setup.poke_radius, generator));
  const torch::Tensor c = reduced_compliance(K, F);
  if (!(c.min().item<double>() > 0)) throw DependentFields("compliance loss: a load the subspace does not feel");
  return -c.log().mean().to(fields.W.scalar_type());
}

}  // namespace wobble::neural
