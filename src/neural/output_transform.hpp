#pragma once
// The per-shape output map of a model (internal: LibTorch): computed once from the raw fields at
// the shape's cubature points, then applied to the fields anywhere (W' = offset + W transform).
// Inference (TorchField), validation in training and any exported evaluator follow this one
// definition:
//   1. the training normalisation of the columns (column_transform in losses.hpp: scaled to mean
//      square 1, or [1, W] orthonormalised after the constant);
//   2. for a network with candidate fields (NetworkConfig::candidate_fields > handles), instead
//      the Rayleigh-Ritz selection: with Q an orthonormal basis of span[1, W] without the constant
//      (eigenvectors of the centred fields' Gram matrix, directions below 1e-10 of the largest
//      eigenvalue dropped; the result depends only on the span) and D = mean over the points of
//      grad Q^T grad Q (exact gradients: autograd here, forward mode in the evaluator), the
//      eigenvectors of the `keep` smallest eigenvalues of D, each direction signed so that its
//      largest coefficient on the raw fields is positive: the smoothest `keep`-dimensional
//      subspace of span(Q), orthonormal.
#include <torch/torch.h>

#include "losses.hpp"
#include "network.hpp"

namespace wobble::neural {

struct OutputOptions {
  ColumnNormalization normalization = ColumnNormalization::scale;
  int keep = 0;  // 0: every raw field; else the Rayleigh-Ritz count (orthonormal only)
};

// A trained network's options: its normalisation, and its handles when it has candidate fields.
OutputOptions output_options(const NetworkConfig& network);

// raw: N x 3 -> N x m (differentiable in its input for the Rayleigh-Ritz selection); cubature: C x 3. Throws DependentFields when the
// fields cannot be orthonormalised (or fewer than `keep` candidates are independent).
ColumnTransform output_transform(const std::function<torch::Tensor(const torch::Tensor&)>& raw,
                                 const torch::Tensor& cubature, const OutputOptions& options);

// Step 2 alone: the `keep` smoothest orthonormal combinations, given an orthonormalising
// transform (m raw fields x r directions) and the raw fields' gradients (C x m x 3) at the same
// points.
ColumnTransform rayleigh_ritz(const ColumnTransform& orthonormal, const torch::Tensor& raw_gradients, int keep);

// The same selection for training, from the raw fields W (N x m) and their gradients dW (N x m x 3)
// at a batch: [1, (W - mean) V / s] and its gradients (constant column first), V the kept
// directions (found from the centred basis, which drops dependent candidates, so only fewer than
// `keep` independent ones throw DependentFields) and s each column's root mean square, normalised
// on the fly. The selection is a differentiable layer: V carries the first-order derivative of
// the kept subspace (eigenvector perturbation across the cut between kept and discarded
// directions), so any loss on the kept span has its exact gradient. L_smooth of the result is the
// sum of the kept Rayleigh quotients, whose gradient is that of the sum of the `keep` smallest
// eigenvalues (Ky Fan; the perturbation adds nothing to it): the subspace inference keeps is what
// training smooths.
FieldBatch kept_subspace(const torch::Tensor& W, const torch::Tensor& dW, int keep);

}  // namespace wobble::neural
