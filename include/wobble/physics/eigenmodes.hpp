#pragma once
// Skinning eigenmodes (after "Fast Complementary Dynamics via Skinning Eigenmodes", 2023): the
// m smallest generalized eigenvectors K w = lambda M w of a Laplacian K against a lumped mass
// matrix M, used as skinning weights.
//
// Discretisation: a voxel (hexahedral) grid in the normalised frame. Active cells are those that
// contain a point of `cover` (sample points, mesh vertices, Gaussian centres: everything that
// will be evaluated) plus the cells they enclose (the outside is flood-filled from the border).
// K is the trilinear (Q1) finite-element Laplacian assembled over active cells, M the lumped
// mass (h^3/8 per cell corner). Weights are trilinear in each cell (a fields::GridField), so W and
// grad W exist anywhere. The first mode of an unconstrained problem is the constant, which with
// the affine handles of eq. 1 spans every affine (hence rigid) motion. Each mode is scaled so
// that its mass-weighted mean square is 1, and signed so that its largest entry is positive.
//
// With a rig constraint the modes are computed under J_rig^T B = 0 (PhysSkin++ eq. 21) at the
// constraint points: for LBS rigs this is, for every joint j and every pair (a, b) of [x, y, z, 1],
// sum_p w_j(p) X_a(p) X_b(p) W_i(p) = 0, linear in the nodal values of W_i. The constrained
// eigenproblem is solved by shift-invert with a Schur complement on the constraint.
#include <memory>
#include <span>

#include <Eigen/Core>

#include <wobble/fields/skinning_field.hpp>

namespace wobble::physics {

struct EigenmodeOptions {
  int handles = 16;          // number of modes m
  int grid_resolution = 20;  // cells along the longest side of [-1, 1]^3
};

// Complementarity constraint: rig weights (N x joints) at N points (normalised frame).
struct RigConstraint {
  std::span<const Vec3d> points;
  Eigen::MatrixXd weights;
};

// Throws Error when there are fewer active nodes than modes (plus constraints) or the solver fails.
std::shared_ptr<fields::GridField> skinning_eigenmodes(std::span<const Vec3d> cover, const EigenmodeOptions& options,
                                                       const RigConstraint* constraint = nullptr);

}  // namespace wobble::physics
