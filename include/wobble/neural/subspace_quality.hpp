#pragma once
// A measure of a skinning subspace that no choice of basis can game (issue 20): on a shape's
// surface, with the cotangent Laplacian L and the lumped (barycentric) mass M, the Dirichlet trace
// trace(G^-1 D) of span[1, W] (G = B^T M B, D = B^T L B over the non-constant directions B)
// divided by its lower bound, the sum of the K smallest non-zero generalised eigenvalues of
// (L, M) for the same K (Ky Fan). 1 is optimal: the span of the K lowest surface eigenfunctions.
//
// A mesh in several pieces has zero-energy piece-wise constants, which a subspace may contain
// while the bound skips them: its ratio can fall below 1, so report such meshes apart.
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <wobble/mesh.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::neural {

// The surface operators of a mesh after welding coincident vertices and dropping vertices that
// touch no triangle of positive area.
struct SurfaceOperator {
  std::vector<Vec3d> vertices;            // the kept vertices, in the mesh's coordinates
  Eigen::SparseMatrix<double> laplacian;  // L: positive semi-definite cotangent stiffness
  Eigen::VectorXd mass;                   // diagonal of M: a third of the incident triangles' areas
  int components = 0;                     // connected pieces (over the kept triangles)
};

// Throws Error when the mesh has no triangle of positive area.
SurfaceOperator surface_operator(const Mesh& mesh);

// The K smallest non-zero generalised eigenvalues of (L, M): the first `components` (zero)
// eigenvalues are skipped. Throws Error when the eigensolver does not converge or the mesh has
// too few vertices.
Eigen::VectorXd lowest_nonzero_eigenvalues(const SurfaceOperator& op, int K);

struct SubspaceQuality {
  int fields = 0;              // K: the non-constant directions
  double dirichlet_trace = 0;  // trace(G^-1 D); infinite when the directions are dependent
  double lower_bound = 0;      // sum of the K smallest non-zero eigenvalues
  double ratio = 0;            // dirichlet_trace / lower_bound (1 is optimal on a connected mesh)
  int components = 0;
};

// W: the fields at op.vertices (one row per kept vertex). With `first_column_constant`, column 0
// is the constant column (1, or a mode equal to it) and K = W.cols() - 1; otherwise K = W.cols().
// `bound`: lowest_nonzero_eigenvalues(op, K), computed once per shape for every method.
SubspaceQuality subspace_quality(const SurfaceOperator& op, const Eigen::MatrixXd& W, bool first_column_constant,
                                 const Eigen::VectorXd& bound);

}  // namespace wobble::neural
