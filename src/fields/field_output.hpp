#pragma once
// The per-shape output map of a torch-free neural fields network (internal): computed once from
// the raw fields at the shape's cubature points, then W' = offset + W_raw transform anywhere. The
// same maps as src/neural/output_transform.cpp (LibTorch), in double:
//   none          identity;
//   scale         each column to mean square 1 ("mean_square_one") or unit norm ("unit_norm");
//   orthonormal   [1, W] orthonormalised (Cholesky of its Gram matrix), the constant kept first;
//   rayleigh_ritz the `keep` smoothest orthonormal combinations of m candidate fields: the
//                 smallest eigenvectors of the Dirichlet matrix (exact gradients) over an
//                 orthonormal basis of their centred span, each signed so that its largest raw
//                 coefficient is positive.
#include <array>
#include <string>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace wobble::fields {

struct FieldOutputTransform {
  Eigen::RowVectorXd offset;  // 1 x kept
  Eigen::MatrixXd transform;  // raw fields x kept
};

// The parsed "output_normalization" of a description (throws Error naming `source` when unknown
// or inconsistent with the raw field count).
struct FieldOutputOptions {
  std::string kind = "none", target = "mean_square_one";
  int keep = 0;  // rayleigh_ritz only
  bool needs_gradients() const { return kind == "rayleigh_ritz"; }
  static FieldOutputOptions from_json(const nlohmann::json& normalization, int raw_fields, int handles,
                                      const std::string& source);
};

// W: the raw fields at the C cubature points; dW their exact spatial gradients there (only for
// the kinds that need_gradients()). Throws Error naming `source` for dependent fields.
FieldOutputTransform field_output_transform(const Eigen::MatrixXd& W, const std::array<Eigen::MatrixXd, 3>& dW,
                                            const FieldOutputOptions& options, const std::string& source);

}  // namespace wobble::fields
