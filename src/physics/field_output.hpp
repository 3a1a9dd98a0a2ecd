#pragma once
// The per-shape output map of a torch-free neural fields network (internal): computed once from
// the raw fields at the shape's cubature points, then W' = offset + W_raw transform anywhere. The
// same maps as src/neural/output_transform.cpp (LibTorch), in double:
//   none          identity;
//   scale         each column to mean square 1 ("mean_square_one") or unit norm ("unit_norm");
//   orthonormal   [1, W] orthonormalised (Cholesky of its Gram matrix), the constant kept first;
//   rayleigh_ritz the `keep` smoothest orthonormal combinations of m candidate fields: the
//                 smallest eigenvectors of the Dirichlet matrix over an orthonormal basis of their
//                 centred span, each signed so that its largest raw coefficient is positive.
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <wobble/math.hpp>

namespace wobble::physics {

struct FieldOutputTransform {
  Eigen::RowVectorXd offset;  // 1 x kept
  Eigen::MatrixXd transform;  // raw fields x kept
};

// The parsed "output_normalization" of a description (throws Error naming `source` when unknown
// or inconsistent with the raw field count).
struct FieldOutputOptions {
  std::string kind = "none", target = "mean_square_one";
  int keep = 0;                   // rayleigh_ritz only
  double difference_step = 1e-3;  // rayleigh_ritz only: h of the central differences
  static FieldOutputOptions from_json(const nlohmann::json& normalization, int raw_fields, int handles, const std::string& source);
};

// The points at which rayleigh_ritz needs the raw fields: [X; X + h e_x; X - h e_x; X + h e_y;
// X - h e_y; X + h e_z; X - h e_z], each shift added in float32 as LibTorch adds it.
std::vector<Vec3d> difference_points(const std::vector<Vec3d>& X, double h);

// W: the raw fields at the C cubature points (kinds but rayleigh_ritz), or at the 7C
// difference_points (rayleigh_ritz). Throws Error naming `source` for dependent fields.
FieldOutputTransform field_output_transform(const Eigen::MatrixXd& W, const FieldOutputOptions& options, const std::string& source);

}  // namespace wobble::physics
