#pragma once
// Full-space linear elasticity on a tetrahedral mesh (tet_mesh.hpp), the reference that reduced
// subspaces are measured against (subspace_fidelity.hpp): the stiffness K is the Hessian at rest of
// the runtime's energy (elasticity.hpp; the linear model and the stable Neo-Hookean agree there),
// piecewise-linear shape functions, and a lumped mass (a quarter of each tetrahedron's mass at each
// corner). Pinned nodes do not move: only the free nodes carry degrees of freedom, dof 3 f + c for
// coordinate c of free node f. Units: lengths as the mesh's, material in SI.
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <wobble/physics/elasticity.hpp>
#include <wobble/physics/tet_mesh.hpp>

namespace wobble::physics {

struct LinearFem {
  Eigen::SparseMatrix<double> stiffness;  // 3F x 3F over the free nodes
  Eigen::VectorXd mass;                   // 3F: each free node's lumped mass, once per coordinate
  std::vector<int> free_index;            // node -> its free-node index, -1 when pinned
  std::vector<int> free_nodes;            // free-node index -> node

  Eigen::Index dofs() const { return mass.size(); }
};

// dF/dx of a linear tetrahedron (9 x 12; F flattened row-major as elasticity.hpp, x the 4 corners'
// coordinates in order): F = Ds Dm^-1 with column k of Ds = x_{k+1} - x_0, Dm the same at rest.
Eigen::Matrix<double, 9, 12> tet_deformation_jacobian(const Mat3d& rest_edges_inverse);

// Throws Error for a bad material, a degenerate tetrahedron or no free node.
LinearFem linear_fem(const TetMesh& mesh, const Material& material, const std::vector<bool>& pinned);

}  // namespace wobble::physics
