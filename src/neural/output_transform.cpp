// The per-shape output map of a model (see output_transform.hpp).
#include "output_transform.hpp"

#include <algorithm>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

namespace {

// The Rayleigh-Ritz problem in an orthonormal basis T (raw fields x directions): the eigenvalues
// (ascending) and eigenvectors of D = mean over the points of grad Q^T grad Q, Q the basis'
// fields, in double.
struct DirichletModes {
  torch::Tensor values, vectors;
};
DirichletModes dirichlet_modes(const torch::Tensor& T, const torch::Tensor& raw_gradients) {
  const torch::Tensor dQ = torch::einsum("pjc,ji->pic", {raw_gradients.to(torch::kFloat64), T});
  const torch::Tensor D = torch::einsum("pic,pjc->ij", {dQ, dQ}) / static_cast<double>(raw_gradients.size(0));
  const auto [values, vectors] = torch::linalg::eigh(0.5 * (D + D.t()), "L");  // ascending
  return {values, vectors};
}

}  // namespace

ColumnTransform rayleigh_ritz(const ColumnTransform& orthonormal, const torch::Tensor& raw_gradients, int keep) {
  const torch::Tensor T = orthonormal.transform.to(torch::kFloat64);  // raw fields x orthonormal directions
  const auto m = T.size(1);
  if (keep < 1 || keep > m) fail_plain("rayleigh_ritz: cannot keep {} of {} directions", keep, m);
  const torch::Tensor U = dirichlet_modes(T, raw_gradients).vectors.slice(1, 0, keep);
  torch::Tensor transform = torch::mm(T, U), offset = torch::mm(orthonormal.offset.to(torch::kFloat64), U);
  // Eigenvectors have no sign of their own: make each column's largest raw coefficient positive.
  const torch::Tensor sign = torch::sign(transform.gather(0, transform.abs().argmax(0).unsqueeze(0)));
  const torch::Tensor flip = torch::where(sign == 0, torch::ones_like(sign), sign);
  const auto type = orthonormal.transform.scalar_type();
  return {(offset * flip).to(type), (transform * flip).to(type)};
}

OutputOptions output_options(const NetworkConfig& network) {
  return {output_normalization(network.orthonormal_output), network.candidate_fields > 0 ? network.handles : 0};
}

// An orthonormal basis of span[1, W] without the constant, from the eigenvectors of the centred
// fields' Gram matrix, dropping directions below 1e-10 of the largest eigenvalue: unlike the
// Cholesky of column_transform it cannot fail on nearly dependent candidates, and the selection
// that follows depends only on the span.
ColumnTransform centred_orthonormal_basis(const torch::Tensor& W) {
  const torch::Tensor Wd = W.to(torch::kFloat64), mean = Wd.mean(0, true);
  const torch::Tensor centred = Wd - mean;
  const torch::Tensor G = torch::mm(centred.t(), centred) / static_cast<double>(W.size(0));
  const auto [values, vectors] = torch::linalg::eigh(G, "L");
  const torch::Tensor kept = values > 1e-10 * values.max();
  const torch::Tensor T = vectors.index({torch::indexing::Slice(), kept}) / values.index({kept}).sqrt();
  return {-torch::mm(mean, T), T};
}

// centred_orthonormal_basis with at least `keep` directions, else DependentFields.
ColumnTransform basis_keeping(const torch::Tensor& W, int keep) {
  ColumnTransform basis = centred_orthonormal_basis(W.detach());
  if (basis.transform.size(1) < keep)
    throw DependentFields(
        fmt::format("neural fields: only {} of the {} candidate fields are independent on {} points, {} needed",
                    basis.transform.size(1), W.size(1), W.size(0), keep));
  return basis;
}

ColumnTransform output_transform(const std::function<torch::Tensor(const torch::Tensor&)>& raw,
                                 const torch::Tensor& cubature, const OutputOptions& options) {
  if (options.keep == 0) {
    torch::NoGradGuard no_grad;
    return column_transform(raw(cubature), options.normalization);
  }
  if (options.normalization != ColumnNormalization::orthonormal)
    fail_plain("output_transform: the Rayleigh-Ritz selection needs the orthonormal output");
  // Exact (autograd) gradients of the raw fields: central differences would turn float32 rounding
  // into ~1e-4 of the gradient, which the selection among many candidates amplifies.
  torch::AutoGradMode enable(true);
  const torch::Tensor X = cubature.detach().clone().requires_grad_(true);
  const torch::Tensor W = raw(X);
  const torch::Tensor dW = spatial_gradients(W, X, false).detach();
  const ColumnTransform kept = rayleigh_ritz(basis_keeping(W, options.keep), dW, options.keep);
  return {kept.offset.to(W.scalar_type()), kept.transform.to(W.scalar_type())};
}

namespace {

// The kept directions (raw-field coefficients, m x keep, double) as a function of W and dW to
// first order: equal to the selection, and carrying the derivative of the subspace it spans. The
// selection solves A x = lambda G x (A the fields' Dirichlet Gram matrix, G their centred Gram
// matrix); perturbing A and G moves kept x_i towards each discarded x_j by
// x_j^T (dA - lambda_i dG) x_i / (lambda_i - lambda_j) (moves within the kept span change no
// subspace). dA and dG enter as A - A.detach() and G - G.detach(): zero, with their gradients.
torch::Tensor differentiable_selection(const torch::Tensor& W, const torch::Tensor& dW, int keep) {
  torch::Tensor values, modes;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor T = basis_keeping(W, keep).transform.to(torch::kFloat64);
    const DirichletModes d = dirichlet_modes(T, dW.detach());
    values = d.values;
    modes = torch::mm(T, d.vectors);
  }
  const double n = static_cast<double>(W.size(0));
  const torch::Tensor Wd = W.to(torch::kFloat64), dWd = dW.to(torch::kFloat64);
  const torch::Tensor centred = Wd - Wd.mean(0, true);
  const torch::Tensor G = torch::mm(centred.t(), centred) / n;
  const torch::Tensor A = torch::einsum("pic,pjc->ij", {dWd, dWd}) / n;
  const torch::Tensor dA = A - A.detach(), dG = G - G.detach();
  const torch::Tensor kept = modes.slice(1, 0, keep), rest = modes.slice(1, keep);
  const torch::Tensor kept_values = values.slice(0, 0, keep).unsqueeze(0),
                      rest_values = values.slice(0, keep).unsqueeze(1);
  // At least 1e-12 of the largest eigenvalue apart: equal eigenvalues across the cut leave the
  // kept span undefined, and its derivative with it.
  const double floor = 1e-12 * std::max(values.abs().max().item<double>(), 1e-300);
  const torch::Tensor gap = (kept_values - rest_values).clamp_max(-floor);
  const torch::Tensor coupling =
      (torch::mm(rest.t(), torch::mm(dA, kept)) - torch::mm(rest.t(), torch::mm(dG, kept)) * kept_values) / gap;
  return kept + torch::mm(rest, coupling);
}

}  // namespace

FieldBatch kept_subspace(const torch::Tensor& W, const torch::Tensor& dW, int keep) {
  const torch::Tensor V = differentiable_selection(W, dW, keep).to(W.scalar_type());
  const torch::Tensor centred = torch::mm(W - W.mean(0, true), V);
  const torch::Tensor scale =
      centred.pow(2).mean(0, true).sqrt();  // 1 at the selection; carries the normalisation's gradient
  const auto n = W.size(0);
  return {torch::cat({torch::ones({n, 1}, W.options()), centred / scale}, 1),
          torch::cat({torch::zeros({n, 1, 3}, W.options()), torch::einsum("pjc,ji->pic", {dW, V}) / scale.unsqueeze(2)},
                     1)};
}

}  // namespace wobble::neural
