// Trilinear interpolation of node values on a regular grid.
#include <wobble/fields/skinning_field.hpp>

#include <algorithm>
#include <cmath>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::fields {

GridField::GridField(Vec3d origin, double spacing, std::array<int, 3> dims, Eigen::MatrixXd values,
                     std::string description)
    : origin_(origin),
      spacing_(spacing),
      dims_(dims),
      values_(std::move(values)),
      description_(std::move(description)) {
  if (!(spacing > 0)) fail_plain("grid field: spacing must be positive");
  for (int d : dims)
    if (d < 2) fail_plain("grid field: needs at least 2 nodes per axis");
  if (values_.rows() != static_cast<Eigen::Index>(dims[0]) * dims[1] * dims[2])
    fail_plain("grid field: {} node values for {} nodes", values_.rows(), dims[0] * dims[1] * dims[2]);
}

void GridField::stencil(const Vec3d& p, int nodes[8], double weights[8], double gradients[8][3]) const {
  int cell[3];
  double t[3];
  for (int a = 0; a < 3; ++a) {
    const double u = (p[a] - origin_[a]) / spacing_;
    cell[a] = std::clamp(static_cast<int>(std::floor(u)), 0, dims_[a] - 2);
    t[a] = std::clamp(u - cell[a], 0.0, 1.0);
  }
  for (int corner = 0; corner < 8; ++corner) {
    const int o[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
    nodes[corner] = ((cell[2] + o[2]) * dims_[1] + (cell[1] + o[1])) * dims_[0] + (cell[0] + o[0]);
    double f[3], df[3];
    for (int a = 0; a < 3; ++a) {
      f[a] = o[a] ? t[a] : 1.0 - t[a];
      df[a] = (o[a] ? 1.0 : -1.0) / spacing_;
    }
    weights[corner] = f[0] * f[1] * f[2];
    gradients[corner][0] = df[0] * f[1] * f[2];
    gradients[corner][1] = f[0] * df[1] * f[2];
    gradients[corner][2] = f[0] * f[1] * df[2];
  }
}

FieldValues GridField::evaluate(std::span<const Vec3d> points, bool with_gradient) const {
  const Eigen::Index n = static_cast<Eigen::Index>(points.size()), m = values_.cols();
  FieldValues out;
  out.W.setZero(n, m);
  if (with_gradient)
    for (auto& d : out.dW) d.setZero(n, m);
  int nodes[8];
  double w[8], g[8][3];
  for (Eigen::Index p = 0; p < n; ++p) {
    stencil(points[p], nodes, w, g);
    for (int c = 0; c < 8; ++c) {
      out.W.row(p) += w[c] * values_.row(nodes[c]);
      if (with_gradient)
        for (int a = 0; a < 3; ++a) out.dW[a].row(p) += g[c][a] * values_.row(nodes[c]);
    }
  }
  return out;
}

}  // namespace wobble::fields
