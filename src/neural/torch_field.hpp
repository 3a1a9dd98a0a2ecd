#pragma once
// A fields::SkinningField backed by a torch function of the points (internal: LibTorch).
#include <functional>
#include <string>

#include <torch/torch.h>

#include <wobble/fields/skinning_field.hpp>

#include "losses.hpp"
#include "output_transform.hpp"

namespace wobble::neural {

class TorchField : public fields::SkinningField {
 public:
  using RawFields = std::function<torch::Tensor(const torch::Tensor&)>;  // N x 3 -> N x m
  // The learned fields mapped by output_transform over the `calibration` points (N x 3; the
  // shape's cubature points), as in training: scaled to mean square 1, or orthonormalised after
  // the constant (and, with candidate fields, the smoothest of them kept).
  TorchField(RawFields raw, const torch::Tensor& calibration, const OutputOptions& output, bool constant_column,
             std::string description);

  int handle_count() const override {
    return static_cast<int>(normalize_.transform.size(1)) + (constant_column_ ? 1 : 0);
  }
  std::string description() const override { return description_; }
  fields::FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient = true) const override;

 private:
  RawFields raw_;
  ColumnTransform normalize_;
  bool constant_column_;
  std::string description_;
};

}  // namespace wobble::neural
