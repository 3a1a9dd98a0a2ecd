// The per-shape output map of a model (see output_transform.hpp).
#include "output_transform.hpp"

#include <wobble/error.hpp>

namespace wobble::neural {

ColumnTransform rayleigh_ritz(const ColumnTransform& orthonormal, const torch::Tensor& raw_gradients, int keep) {
  const torch::Tensor T = orthonormal.transform.to(torch::kFloat64);
  const auto m = T.size(1);
  if (keep < 1 || keep > m) fail_plain("rayleigh_ritz: cannot keep {} of {} fields", keep, m);
  const torch::Tensor dQ = torch::einsum("pjc,ji->pic", {raw_gradients.to(torch::kFloat64), T});
  const torch::Tensor D = torch::einsum("pic,pjc->ij", {dQ, dQ}) / static_cast<double>(raw_gradients.size(0));
  const auto [values, vectors] = torch::linalg::eigh(0.5 * (D + D.t()), "L");  // ascending
  const torch::Tensor U = vectors.slice(1, 0, keep);
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

ColumnTransform output_transform(const std::function<torch::Tensor(const torch::Tensor&)>& raw, const torch::Tensor& cubature,
                                 const OutputOptions& options) {
  torch::NoGradGuard no_grad;
  if (options.keep == 0) return column_transform(raw(cubature), options.normalization);
  if (options.normalization != ColumnNormalization::orthonormal)
    fail_plain("output_transform: the Rayleigh-Ritz selection needs the orthonormal output");
  const FieldBatch fields = fields_with_difference_gradients(raw, cubature, options.difference_step);
  return rayleigh_ritz(column_transform(fields.W, options.normalization), fields.dW, options.keep);
}

}  // namespace wobble::neural
