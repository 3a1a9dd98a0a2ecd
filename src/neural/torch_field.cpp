// Torch-backed skinning fields, evaluated in chunks (bounded memory on large meshes).
#include "torch_field.hpp"

#include <algorithm>

namespace wobble::neural {

namespace {
constexpr std::int64_t kChunk = 4096;
}

TorchField::TorchField(RawFields raw, const torch::Tensor& calibration, const OutputOptions& output,
                       bool constant_column, std::string description)
    : raw_(std::move(raw)), constant_column_(constant_column), description_(std::move(description)) {
  normalize_ = output_transform(raw_, calibration, output);
}

fields::FieldValues TorchField::evaluate(std::span<const Vec3d> points, bool with_gradient) const {
  const auto n = static_cast<std::int64_t>(points.size());
  const int K = handle_count(), offset = constant_column_ ? 1 : 0;
  fields::FieldValues out;
  out.W.resize(n, K);
  if (with_gradient)
    for (auto& d : out.dW) d.setZero(n, K);
  if (constant_column_) out.W.col(0).setOnes();
  for (std::int64_t start = 0; start < n; start += kChunk) {
    const std::int64_t count = std::min(kChunk, n - start);
    torch::Tensor X = torch::empty({count, 3}, torch::kFloat32);
    auto x = X.accessor<float, 2>();
    for (std::int64_t p = 0; p < count; ++p)
      for (int c = 0; c < 3; ++c) x[p][c] = static_cast<float>(points[static_cast<std::size_t>(start + p)][c]);
    torch::Tensor W, dW;
    if (with_gradient) {
      // The gradients of the mapped fields: one backward pass per kept field, not per raw field
      // (a Rayleigh-Ritz model has 8 of 64).
      X.requires_grad_(true);
      W = normalize_.apply(raw_(X));
      dW = spatial_gradients(W, X, false).detach();
      W = W.detach();
    } else {
      torch::NoGradGuard no_grad;
      W = normalize_.apply(raw_(X));
    }
    auto w = W.accessor<float, 2>();
    for (std::int64_t p = 0; p < count; ++p)
      for (std::int64_t i = 0; i < W.size(1); ++i) out.W(start + p, offset + i) = w[p][i];
    if (with_gradient) {
      auto d = dW.accessor<float, 3>();
      for (std::int64_t p = 0; p < count; ++p)
        for (std::int64_t i = 0; i < W.size(1); ++i)
          for (int c = 0; c < 3; ++c) out.dW[c](start + p, offset + i) = d[p][i][c];
    }
  }
  return out;
}

}  // namespace wobble::neural
