#pragma once
// PISSL losses (PhysSkin++ III-C, III-E) and the ConFIG gradient combination. Internal: LibTorch.
// Conventions: a batch holds N cubature points X (N x 3); the fields W (N x K) include the
// constant rigid column when the caller asks for it; dW is N x K x 3.
#include <functional>
#include <vector>

#include <torch/torch.h>

#include <wobble/error.hpp>

namespace wobble::neural {

struct FieldBatch {
  torch::Tensor W;   // N x K
  torch::Tensor dW;  // N x K x 3
};

// [X, 1] (N x 4) for points X (N x 3): the affine coordinates the subspace's Z_i act on.
torch::Tensor homogeneous(const torch::Tensor& X);

// Spatial gradients of raw fields (N x m) with respect to the points (N x 3, requires_grad) by
// automatic differentiation (one backward pass per field; each row depends only on its point).
torch::Tensor spatial_gradients(const torch::Tensor& W, const torch::Tensor& X, bool create_graph);

// Fields W (N x m) at X (N x 3) and their spatial gradients dW (N x m x 3) by central differences
// of step h, as the PhysSkin reference computes deformation gradients: one forward pass over the
// 7N points X, X +- h e_c, so training needs first-order autograd only (no double backward).
FieldBatch fields_with_difference_gradients(const std::function<torch::Tensor(const torch::Tensor&)>& fields,
                                            const torch::Tensor& X, double h);

// How the learned columns are normalised over a set of points (a batch in training, the shape's
// cubature points at inference).
enum class ColumnNormalization {
  none,
  scale,        // each column to mean square 1 (unit L2 norm times sqrt(N)): the paper's normalisation
  orthonormal,  // [1, W] orthonormalised in order (Gram-Schmidt after the constant column), mean square 1
};
// A model's output normalisation (NetworkConfig::orthonormal_output).
inline ColumnNormalization output_normalization(bool orthonormal) {
  return orthonormal ? ColumnNormalization::orthonormal : ColumnNormalization::scale;
}

// The per-column affine map W' = offset + W transform (offset 1 x m, transform m x m) that applies
// a normalisation (scale or orthonormal), computed from the fields W (N x m) at the points; differentiable, so in
// training it is part of the graph. Orthonormal: with G = [1, W]^T [1, W] / N = L L^T, [1, W]
// L^-T keeps the constant column 1 (G_00 = 1), makes the columns orthonormal in the mean-square
// product and leaves the span of [1, W] unchanged. Throws DependentFields when the fields are
// linearly dependent (G not positive definite).
struct ColumnTransform {
  torch::Tensor offset, transform;
  torch::Tensor apply(const torch::Tensor& W) const { return offset + torch::mm(W, transform); }
  torch::Tensor apply_to_gradients(const torch::Tensor& dW) const {  // N x m x 3
    return torch::einsum("pjc,ji->pic", {dW, transform});
  }
};
ColumnTransform column_transform(const torch::Tensor& W, ColumnNormalization normalization);

// What column_transform throws for linearly dependent fields (training skips such a batch).
struct DependentFields : Error {
  using Error::Error;
};

// The batch's fields for the losses: the normalisation applied on the fly, then optionally the
// constant column 1 first.
FieldBatch assemble_fields(const torch::Tensor& W, const torch::Tensor& dW, ColumnNormalization normalization,
                           bool constant_column);

// L_smooth (eq. 8): mean over points of sum_i |grad W_i|^2.
torch::Tensor smoothness_loss(const FieldBatch& fields);
// L_orth (eq. 9) on the unit columns W / sqrt(N): sum over i != j of (W_i . W_j)^2.
torch::Tensor orthogonality_loss(const FieldBatch& fields);

// The span loss (losses.eigen_span; not in the paper, docs/neural.md): the part of the targets E
// (N x t, no gradient) outside the span of [1, W] (W: N x m raw fields) at the batch's points,
// ||E - P E||_F^2 / ||E||_F^2 with P the least-squares projector onto that span (from a QR
// factorisation in double, differentiable). 0: the targets lie in the span. Throws
// DependentFields like column_transform.
torch::Tensor span_residual_loss(const torch::Tensor& W, const torch::Tensor& E);

// Energy densities of deformation gradients F (... x 3 x 3), the runtime's formulas
// (include/wobble/physics/elasticity.hpp): linear mu eps:eps + lambda/2 tr(eps)^2 and stable
// Neo-Hookean mu/2 (I1 - 3) - mu (J - 1) + (lambda + mu)/2 (J - 1)^2.
torch::Tensor linear_energy_density(const torch::Tensor& F, double mu, double lambda);
torch::Tensor neohookean_energy_density(const torch::Tensor& F, double mu, double lambda);

// Deformation gradients of phi(X, z) = X + sum_i W_i Z_i [X; 1] for Z (B x K x 3 x 4): B x N x 3 x 3.
torch::Tensor deformation_gradients(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& Z);

// L_pot (eq. 7): volume-weighted mean energy density over the points, averaged over the B
// deformations Z, with psi = (1 - blend) linear + blend Neo-Hookean.
torch::Tensor potential_loss(const FieldBatch& fields, const torch::Tensor& X, const torch::Tensor& volumes,
                             const torch::Tensor& Z, double mu, double lambda, double blend);

// L_comp (eq. 22): ||J_rig^T B_lbs^comp||_F^2 for an LBS rig with weights Wrig (N x b) at X and
// complementary fields W (N x m), using the closed form 3 sum_{c,c'} ||(Wrig o X~_c X~_c')^T W||_F^2
// with X~ = [X; 1].
torch::Tensor complementarity_loss(const torch::Tensor& W, const torch::Tensor& X, const torch::Tensor& Wrig);

// ConFIG (Liu et al. 2024): for gradients g_i (flat vectors), the unit gradients u_i, the
// least-squares (minimum-norm) solution d of U d = 1, d^ = d / |d|, and the update
// (sum_i g_i . d^) d^. Zero gradients are left out; none left gives zeros.
torch::Tensor config_update(const std::vector<torch::Tensor>& gradients);

// ConFIG over the gradients except gradients[penalty], plus that one as it is: a loss that acts
// as a weighted penalty (L_orth) beside losses ConFIG balances. penalty < 0: ConFIG over all.
torch::Tensor config_update_with_penalty(std::vector<torch::Tensor> gradients, std::ptrdiff_t penalty);

}  // namespace wobble::neural
