// PISSL losses and ConFIG (PhysSkin++ III-C, III-E; METHOD_NOTES §3).
#include "losses.hpp"

#include <cmath>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

torch::Tensor homogeneous(const torch::Tensor& X) {
  return torch::cat({X, torch::ones({X.size(0), 1}, X.options())}, 1);
}

torch::Tensor spatial_gradients(const torch::Tensor& W, const torch::Tensor& X, bool create_graph) {
  std::vector<torch::Tensor> columns;
  for (std::int64_t i = 0; i < W.size(1); ++i) {
    columns.push_back(torch::autograd::grad({W.select(1, i).sum()}, {X}, {}, /*retain_graph=*/true, create_graph,
                                            /*allow_unused=*/true)[0]);
    if (!columns.back().defined()) columns.back() = torch::zeros_like(X);
  }
  return torch::stack(columns, 1);
}

FieldBatch fields_with_difference_gradients(const std::function<torch::Tensor(const torch::Tensor&)>& fields,
                                            const torch::Tensor& X, double h) {
  const auto n = X.size(0);
  std::vector<torch::Tensor> shifted{X};
  for (int c = 0; c < 3; ++c) {
    torch::Tensor step = torch::zeros({1, 3}, X.options());
    step[0][c] = h;
    shifted.push_back(X + step);
    shifted.push_back(X - step);
  }
  const torch::Tensor all = fields(torch::cat(shifted, 0));  // 7N x m
  std::vector<torch::Tensor> columns;
  for (int c = 0; c < 3; ++c)
    columns.push_back(
        (all.slice(0, (2 * c + 1) * n, (2 * c + 2) * n) - all.slice(0, (2 * c + 2) * n, (2 * c + 3) * n)) / (2 * h));
  return {all.slice(0, 0, n), torch::stack(columns, 2)};
}

namespace {

DependentFields dependent_fields(std::int64_t m, std::int64_t n) {
  return DependentFields(fmt::format(
      "neural fields: the {} fields are linearly dependent on {} points: they cannot be orthonormalised", m, n));
}

// `independence`: per column of [1, W], the part independent of the columns before it relative to
// its size (L_ii / sqrt(G_ii) of the Gram matrix's Cholesky factor, |R_ii| / |A_i| of a QR).
void require_independent(const torch::Tensor& independence, std::int64_t m, std::int64_t n) {
  if (!(independence.min().item<double>() >= 1e-5)) throw dependent_fields(m, n);
}

}  // namespace

ColumnTransform column_transform(const torch::Tensor& W, ColumnNormalization normalization) {
  const auto n = W.size(0), m = W.size(1);
  if (normalization == ColumnNormalization::none) fail_plain("column_transform: 'none' has no transform");
  if (normalization == ColumnNormalization::scale)
    return {torch::zeros({1, m}, W.options()), torch::diag(std::sqrt(static_cast<double>(n)) / (W.norm(2, 0) + 1e-12))};
  // In double: the Gram matrix of nearly dependent fields loses half the digits to squaring.
  const torch::Tensor Y = torch::cat({torch::ones({n, 1}, W.options()), W}, 1).to(torch::kFloat64);
  const torch::Tensor G = torch::mm(Y.t(), Y) / static_cast<double>(n);
  const auto [L, info] = torch::linalg_cholesky_ex(G);
  if (info.item<int>() != 0) throw dependent_fields(m, n);
  require_independent(L.diagonal() / G.diagonal().sqrt(), m, n);
  const torch::Tensor inverse = torch::linalg::solve_triangular(L.t(), torch::eye(m + 1, G.options()), /*upper=*/true,
                                                                /*left=*/true, /*unitriangular=*/false);
  return {inverse.slice(0, 0, 1).slice(1, 1).to(W.scalar_type()), inverse.slice(0, 1).slice(1, 1).to(W.scalar_type())};
}

FieldBatch assemble_fields(const torch::Tensor& W, const torch::Tensor& dW, ColumnNormalization normalization,
                           bool constant_column) {
  FieldBatch out{W, dW};
  if (normalization != ColumnNormalization::none) {
    const ColumnTransform t = column_transform(W, normalization);
    out.W = t.apply(W);
    out.dW = t.apply_to_gradients(dW);
  }
  if (constant_column) {
    out.W = torch::cat({torch::ones({W.size(0), 1}, W.options()), out.W}, 1);
    out.dW = torch::cat({torch::zeros({W.size(0), 1, 3}, W.options()), out.dW}, 1);
  }
  return out;
}

torch::Tensor smoothness_loss(const FieldBatch& fields) { return fields.dW.pow(2).sum({1, 2}).mean(); }

torch::Tensor span_residual_loss(const torch::Tensor& W, const torch::Tensor& E) {
  // In double and through a QR factorisation: the candidates are nearly dependent on a batch, and
  // a float Cholesky (column_transform) then loses the projector's orthogonality.
  const torch::Tensor A = torch::cat({torch::ones({W.size(0), 1}, W.options()), W}, 1).to(torch::kFloat64);
  const auto [Q, R] = torch::linalg_qr(A, "reduced");
  require_independent(R.diagonal().abs() / A.norm(2, 0), W.size(1), W.size(0));
  const torch::Tensor T = E.to(torch::kFloat64);
  const torch::Tensor residual = T - torch::mm(Q, torch::mm(Q.t(), T));
  return (residual.pow(2).sum() / T.pow(2).sum()).to(W.scalar_type());
}

torch::Tensor orthogonality_loss(const FieldBatch& fields) {
  const torch::Tensor unit = fields.W / std::sqrt(static_cast<double>(fields.W.size(0)));
  const torch::Tensor gram = torch::mm(unit.t(), unit);
  const torch::Tensor off = gram - torch::diag_embed(torch::diagonal(gram));
  return off.pow(2).sum();
}

torch::Tensor linear_energy_density(const torch::Tensor& F, double mu, double lambda) {
  const torch::Tensor eye = torch::eye(3, F.options());
  const torch::Tensor eps = 0.5 * (F + F.transpose(-1, -2)) - eye;
  const torch::Tensor trace = eps.diagonal(0, -2, -1).sum(-1);
  return mu * eps.pow(2).sum({-2, -1}) + 0.5 * lambda * trace.pow(2);
}

torch::Tensor neohookean_energy_density(const torch::Tensor& F, double mu, double lambda) {
  const torch::Tensor I1 = F.pow(2).sum({-2, -1});
  const torch::Tensor J = torch::linalg::det(F);
  return 0.5 * mu * (I1 - 3) - mu * (J - 1) + 0.5 * (lambda + mu) * (J - 1).pow(2);
}

torch::Tensor deformation_gradients(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& Z) {
  const torch::Tensor Xh = homogeneous(X);  // N x 4
  // sum_i W_i Z_i[:, :3] + (Z_i X~) (grad W_i)^T
  const torch::Tensor linear = torch::einsum("pi,bijk->bpjk", {fields.W, Z.slice(3, 0, 3)});
  const torch::Tensor moved = torch::einsum("bijk,pk->bpij", {Z, Xh});  // B x N x K x 3
  const torch::Tensor gradient = torch::einsum("bpij,pil->bpjl", {moved, fields.dW});
  return torch::eye(3, X.options()) + linear + gradient;
}

torch::Tensor potential_loss(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& volumes,
                             const torch::Tensor& Z, double mu, double lambda, double blend) {
  const torch::Tensor F = deformation_gradients(fields, X, Z);
  torch::Tensor psi;
  if (blend <= 0)
    psi = linear_energy_density(F, mu, lambda);
  else if (blend >= 1)
    psi = neohookean_energy_density(F, mu, lambda);
  else
    psi = (1 - blend) * linear_energy_density(F, mu, lambda) + blend * neohookean_energy_density(F, mu, lambda);
  const torch::Tensor weights = volumes / volumes.sum();  // N
  return (psi * weights).sum(1).mean();
}

torch::Tensor complementarity_loss(const torch::Tensor& W, const torch::Tensor& X, const torch::Tensor& Wrig) {
  const torch::Tensor Xh = homogeneous(X);
  torch::Tensor total = torch::zeros({}, W.options());
  for (int c = 0; c < 4; ++c)
    for (int e = 0; e < 4; ++e) {
      const torch::Tensor product = Wrig * (Xh.select(1, c) * Xh.select(1, e)).unsqueeze(1);  // N x b
      total = total + torch::mm(product.t(), W).pow(2).sum();
    }
  return 3 * total;
}

torch::Tensor config_update(const std::vector<torch::Tensor>& gradients) {
  std::vector<torch::Tensor> kept, units;
  for (const torch::Tensor& g : gradients) {
    const double norm = g.norm().item<double>();
    if (norm > 0 && std::isfinite(norm)) {
      kept.push_back(g);
      units.push_back(g / norm);
    }
  }
  if (kept.empty()) return torch::zeros_like(gradients.front());
  const torch::Tensor U = torch::stack(units, 0);  // k x P
  const torch::Tensor ones = torch::ones({U.size(0), 1}, U.options());
  // Minimum-norm least squares: d = U^T (U U^T)^+ 1 (pinv handles parallel gradients).
  const torch::Tensor d = torch::mm(U.t(), torch::mm(torch::linalg::pinv(torch::mm(U, U.t())), ones)).squeeze(1);
  const torch::Tensor d_hat = d / d.norm();
  torch::Tensor magnitude = torch::zeros({}, U.options());
  for (const torch::Tensor& g : kept) magnitude = magnitude + torch::dot(g, d_hat);
  return magnitude * d_hat;
}

torch::Tensor config_update_with_penalty(std::vector<torch::Tensor> gradients, std::ptrdiff_t penalty) {
  if (penalty < 0) return config_update(gradients);
  if (penalty >= static_cast<std::ptrdiff_t>(gradients.size()) || gradients.size() < 2)
    fail_plain("config_update_with_penalty: no gradient {} beside the others among {}", penalty, gradients.size());
  const torch::Tensor added = gradients[penalty];
  gradients.erase(gradients.begin() + penalty);
  return config_update(gradients) + added;
}

}  // namespace wobble::neural
