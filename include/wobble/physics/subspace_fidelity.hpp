#pragma once
// Physics fidelity of a reduced subspace (issue 35): how close the reduced solution comes to the
// full-space finite-element solution of the same discretisation, material and loads.
//
// Discretisation: a voxel tetrahedral mesh of the shape (tet_mesh.hpp) in its normalised frame,
// linear elasticity at rest (linear_fem.hpp: the runtime's energy linearised, lumped mass), the
// top `pinned_fraction` of the height held fixed. The reduced solution lives in the runtime's
// subspace (dynamics.hpp) sampled at the mesh's nodes, u(X) = d(X) sum_i W_i(X) Z_i [X; 1] with
// the pins' modulation d (dirichlet.hpp), and solves the same equations projected onto it
// (Galerkin: the same K, M, loads and integrator), so every difference is the subspace's. Loads:
//   (a) sag: the static displacement under gravity;
//   (b) poke: a Gaussian-kernel force (sigma `poke_radius` around the free node lowest in y,
//       along +x, `poke_acceleration` at its centre) for `poke_duration`, then released; the
//       displacement `response_time` after its start, implicit Euler at `time_step` (the
//       runtime's integrator), no gravity;
//   (c) the lowest `frequencies` vibration frequencies of the pinned shape, K u = w^2 M u.
// Errors: ||u_reduced - u_full|| / ||u_full|| over all nodes (= RMS over nodes of the error's
// length over the RMS displacement); frequencies (f_reduced - f_full) / f_full, never negative
// (a Galerkin subspace only stiffens: Courant-Fischer). The problems are linear, so the errors do
// not depend on the loads' magnitudes.
#include <vector>

#include <Eigen/Core>

#include <wobble/mesh.hpp>
#include <wobble/physics/dirichlet.hpp>
#include <wobble/physics/linear_fem.hpp>
#include <wobble/fields/skinning_field.hpp>
#include <wobble/physics/tet_mesh.hpp>

namespace wobble::physics {

struct FidelityOptions {
  Material material;              // the runtime's default
  int grid_resolution = 20;       // tetrahedral mesh: cells along the longest side of [-1, 1]
  double pinned_fraction = 0.1;   // the top share of the height (normalised y) held fixed
  double pin_blend = 0.2;         // the runtime's d(X) blend width (normalised units), as `--pin-blend`
  double gravity = 9.81;          // m/s^2, along -y
  double poke_radius = 0.2;       // normalised units
  double poke_acceleration = 10;  // m/s^2 at the kernel's centre
  double poke_duration = 0.1;     // s
  double response_time = 0.5;     // s after the poke starts
  double time_step = 1.0 / 60.0;  // s
  int frequencies = 6;
};

// Everything about the full-space problem, computed once per shape.
struct FullSpaceReference {
  FidelityOptions options;
  TetMesh mesh;
  std::vector<bool> pinned;  // per node
  DirichletRegion pins;      // the same region for the subspace's modulation d(X)
  LinearFem fem;
  Vec3d poke_point = Vec3d::Zero();
  Eigen::VectorXd gravity_load, poke_load;  // N per free dof
  Eigen::VectorXd sag, poke;                // full-space displacements (free dofs, 3F)
  Eigen::VectorXd frequencies;              // Hz, lowest first
  std::size_t dropped_tets = 0;             // pieces the pins do not hold, left out
};

// The height (y) at and above which a shape whose points span [lo, hi] in y is pinned: the top
// `fraction` of it, a hair lower so that rounding keeps the highest points in.
double pinned_threshold(double lo, double hi, double fraction);

// Throws Error naming what is wrong (no tetrahedron, a solver failure).
FullSpaceReference full_space_reference(const TetMesh& mesh, const FidelityOptions& options = {});
// A surface mesh in its file coordinates, meshed in the frame of `normalization`.
FullSpaceReference full_space_reference(const Mesh& mesh, const fields::Normalization& normalization,
                                        const FidelityOptions& options = {});

// The runtime's subspace at the reference's free nodes: 3F x 12m, column c q + 4 i + a (q = 4m)
// moves coordinate c by d(X) W_i(X) [X; 1]_a, the order of dynamics.hpp's z.
Eigen::MatrixXd subspace_basis(const FullSpaceReference& reference, const fields::SkinningField& field);

struct SubspaceFidelity {
  double sag_error = 0;              // (a)
  double poke_error = 0;             // (b)
  Eigen::VectorXd frequencies;       // (c), Hz (NaN where the subspace has fewer directions)
  Eigen::VectorXd frequency_errors;  // (f_reduced - f_full) / f_full
  int dofs = 0;                      // independent directions of the basis (after dropping dependent ones)
  double largest_frequency_error() const { return frequency_errors.size() ? frequency_errors.maxCoeff() : 0.0; }
};

// `basis`: 3F x k displacements over the free dofs (any k; dependent columns are dropped).
SubspaceFidelity subspace_fidelity(const FullSpaceReference& reference, const Eigen::MatrixXd& basis);

}  // namespace wobble::physics
