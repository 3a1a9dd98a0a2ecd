// Assembly of full-space linear elasticity (see linear_fem.hpp).
#include <wobble/physics/linear_fem.hpp>

#include <cmath>

#include <Eigen/LU>

#include "core/fail.hpp"

namespace wobble::physics {

Eigen::Matrix<double, 9, 12> tet_deformation_jacobian(const Mat3d& Dm_inverse) {
  Eigen::Matrix<double, 9, 12> dF = Eigen::Matrix<double, 9, 12>::Zero();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 3; ++k) {
        dF(3 * r + c, 3 * (k + 1) + r) += Dm_inverse(k, c);
        dF(3 * r + c, r) -= Dm_inverse(k, c);
      }
  return dF;
}

LinearFem linear_fem(const TetMesh& mesh, const Material& material, const std::vector<bool>& pinned) {
  material.check();
  if (pinned.size() != mesh.node_count())
    fail_plain("linear FEM: {} pin flags for {} nodes", pinned.size(), mesh.node_count());
  LinearFem fem;
  fem.free_index.assign(mesh.node_count(), -1);
  for (std::size_t v = 0; v < mesh.node_count(); ++v)
    if (!pinned[v]) {
      fem.free_index[v] = static_cast<int>(fem.free_nodes.size());
      fem.free_nodes.push_back(static_cast<int>(v));
    }
  if (fem.free_nodes.empty()) fail_plain("linear FEM: every node is pinned");
  const Eigen::Index n = 3 * static_cast<Eigen::Index>(fem.free_nodes.size());
  Mat3d P;
  Mat9d H;
  energy_derivatives(EnergyModel::Linear, material.mu(), material.lambda(), Mat3d::Identity(), P, &H);
  fem.mass.setZero(n);
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(mesh.tets.size() * 144);
  for (const auto& t : mesh.tets) {
    Mat3d Dm;
    for (int c = 0; c < 3; ++c)
      Dm.col(c) = mesh.nodes[static_cast<std::size_t>(t[c + 1])] - mesh.nodes[static_cast<std::size_t>(t[0])];
    const double volume = std::abs(Dm.determinant()) / 6.0;
    if (!(volume > 0)) fail_plain("linear FEM: a degenerate tetrahedron");
    const Eigen::Matrix<double, 9, 12> dF = tet_deformation_jacobian(Dm.inverse());
    const Eigen::Matrix<double, 12, 12> Ke = volume * dF.transpose() * H * dF;
    int dof[12];
    for (int a = 0; a < 12; ++a) {
      const int f = fem.free_index[static_cast<std::size_t>(t[a / 3])];
      dof[a] = f < 0 ? -1 : 3 * f + a % 3;
    }
    for (int a = 0; a < 12; ++a) {
      if (dof[a] < 0) continue;
      fem.mass[dof[a]] += material.density * volume / 4.0;
      for (int b = 0; b < 12; ++b)
        if (dof[b] >= 0) triplets.emplace_back(dof[a], dof[b], Ke(a, b));
    }
  }
  fem.stiffness.resize(n, n);
  fem.stiffness.setFromTriplets(triplets.begin(), triplets.end());
  return fem;
}

}  // namespace wobble::physics
