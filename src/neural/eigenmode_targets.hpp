#pragma once
// The span loss's targets (losses.eigen_span, docs/neural.md): a training shape's skinning
// eigenmodes, which the network's candidate fields should be able to combine into. Internal: LibTorch.
#include <torch/torch.h>

#include "training_shapes.hpp"

namespace wobble::neural {

// The `count` lowest skinning eigenmodes of `shape` after the constant (its surface and cubature
// points cover the eigenmodes' grid of `grid_resolution` cells, as in `wobble fields metrics`) at
// the points X (N x 3, normalised frame): N x count, float, no gradient.
torch::Tensor eigenmode_targets(const ShapeTensors& shape, const torch::Tensor& X, int count, int grid_resolution);

}  // namespace wobble::neural
