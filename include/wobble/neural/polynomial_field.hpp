#pragma once
// A shape-agnostic baseline subspace (issue 20): the constant and the 8 quadratic polynomials
// x, y, z, x^2, y^2, z^2, xy, yz of the normalised coordinates, with their exact gradients.
#include <wobble/fields/skinning_field.hpp>

namespace wobble::neural {

class QuadraticPolynomialField : public fields::SkinningField {
 public:
  int handle_count() const override { return 9; }
  std::string description() const override { return "quadratic polynomials 1, x, y, z, x^2, y^2, z^2, xy, yz"; }
  fields::FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient = true) const override;
};

}  // namespace wobble::neural
