// The quadratic-polynomial baseline subspace.
#include <wobble/neural/polynomial_field.hpp>

namespace wobble::neural {

fields::FieldValues QuadraticPolynomialField::evaluate(std::span<const Vec3d> points, bool with_gradient) const {
  const auto n = static_cast<Eigen::Index>(points.size());
  fields::FieldValues out;
  out.W.resize(n, 9);
  if (with_gradient)
    for (auto& d : out.dW) d.setZero(n, 9);
  for (Eigen::Index p = 0; p < n; ++p) {
    const double x = points[p].x(), y = points[p].y(), z = points[p].z();
    out.W.row(p) << 1, x, y, z, x * x, y * y, z * z, x * y, y * z;
    if (!with_gradient) continue;
    // d/dx, d/dy, d/dz of each column.
    out.dW[0].row(p) << 0, 1, 0, 0, 2 * x, 0, 0, y, 0;
    out.dW[1].row(p) << 0, 0, 1, 0, 0, 2 * y, 0, x, z;
    out.dW[2].row(p) << 0, 0, 0, 1, 0, 0, 2 * z, 0, y;
  }
  return out;
}

}  // namespace wobble::neural
