// The surface Dirichlet-trace ratio of a skinning subspace (see subspace_quality.hpp).
#include <wobble/neural/subspace_quality.hpp>

#include <cmath>
#include <limits>
#include <numeric>

#include <Eigen/Cholesky>
#include <Eigen/SparseCholesky>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>

#include <wobble/error.hpp>
#include <wobble/mesh_topology.hpp>
#include "core/fail.hpp"

namespace wobble::neural {

namespace {

using SpMat = Eigen::SparseMatrix<double>;

// Union-find over vertex indices, for the connected pieces.
struct Pieces {
  std::vector<int> parent;
  explicit Pieces(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int root(int v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void join(int a, int b) { parent[root(a)] = root(b); }
};

// y = (L - sigma M)^-1 x, for Spectra's shift-invert mode.
class ShiftInvert {
 public:
  using Scalar = double;
  ShiftInvert(const SpMat& L, const SpMat& M) : L_(L), M_(M) {}
  Eigen::Index rows() const { return L_.rows(); }
  Eigen::Index cols() const { return L_.cols(); }
  void set_shift(double sigma) {
    solver_.compute(SpMat(L_ - sigma * M_));
    if (solver_.info() != Eigen::Success) fail_plain("surface eigenvalues: factorisation failed");
  }
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<Eigen::VectorXd>(y_out, rows()) = solver_.solve(Eigen::Map<const Eigen::VectorXd>(x_in, rows()));
  }

 private:
  const SpMat& L_;
  const SpMat& M_;
  Eigen::SimplicialLDLT<SpMat> solver_;
};

}  // namespace

SurfaceOperator surface_operator(const Mesh& mesh) {
  const Welding welding = Welding::by_position(mesh.positions);
  std::vector<Vec3d> welded(welding.welded_count);
  for (std::size_t v = 0; v < mesh.positions.size(); ++v)
    welded[welding.welded_of[v]] = mesh.positions[v].cast<double>();
  // Triangles of positive area only: a degenerate one has no cotangents.
  std::vector<Triangle> kept;
  std::vector<double> areas;
  for (const Triangle& t : welding.weld(mesh.triangles)) {
    const double area = 0.5 * (welded[t[1]] - welded[t[0]]).cross(welded[t[2]] - welded[t[0]]).norm();
    if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2] && area > 0) {
      kept.push_back(t);
      areas.push_back(area);
    }
  }
  if (kept.empty()) fail_plain("surface operator: the mesh has no triangle of positive area");
  std::vector<int> index(welded.size(), -1);
  SurfaceOperator op;
  for (const Triangle& t : kept)
    for (std::uint32_t v : t)
      if (index[v] < 0) {
        index[v] = static_cast<int>(op.vertices.size());
        op.vertices.push_back(welded[v]);
      }
  const auto n = static_cast<Eigen::Index>(op.vertices.size());
  op.mass = Eigen::VectorXd::Zero(n);
  std::vector<Eigen::Triplet<double>> entries;
  Pieces pieces(op.vertices.size());
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const int v[3] = {index[kept[k][0]], index[kept[k][1]], index[kept[k][2]]};
    for (int c = 0; c < 3; ++c) {
      op.mass[v[c]] += areas[k] / 3;
      // The angle at corner c is opposite the edge (c+1, c+2): weight cot / 2 on that edge.
      const int a = v[(c + 1) % 3], b = v[(c + 2) % 3];
      const Vec3d ea = op.vertices[a] - op.vertices[v[c]], eb = op.vertices[b] - op.vertices[v[c]];
      const double w = 0.5 * ea.dot(eb) / ea.cross(eb).norm();
      entries.emplace_back(a, b, -w);
      entries.emplace_back(b, a, -w);
      entries.emplace_back(a, a, w);
      entries.emplace_back(b, b, w);
    }
    pieces.join(v[0], v[1]);
    pieces.join(v[1], v[2]);
  }
  op.laplacian.resize(n, n);
  op.laplacian.setFromTriplets(entries.begin(), entries.end());
  for (Eigen::Index v = 0; v < n; ++v) op.components += pieces.root(static_cast<int>(v)) == v ? 1 : 0;
  return op;
}

Eigen::VectorXd lowest_nonzero_eigenvalues(const SurfaceOperator& op, int K) {
  const auto n = static_cast<int>(op.vertices.size());
  const int nev = K + op.components;
  if (K < 1 || nev + 2 > n) fail_plain("surface eigenvalues: {} vertices are too few for {} eigenvalues", n, nev);
  // Scale-free shift: a small fraction of the mean stiffness per mass (negative, so L - sigma M
  // is positive definite and the zero eigenvalues are found too).
  const double sigma = -1e-3 * (op.laplacian.diagonal().array() / op.mass.array()).mean();
  SpMat M(n, n);
  std::vector<Eigen::Triplet<double>> diagonal;
  for (int v = 0; v < n; ++v) diagonal.emplace_back(v, v, op.mass[v]);
  M.setFromTriplets(diagonal.begin(), diagonal.end());
  ShiftInvert shift_invert(op.laplacian, M);
  Spectra::SparseSymMatProd<double> mass_product(M);
  const int ncv = std::min(n, std::max(2 * nev + 1, nev + 20));
  Spectra::SymGEigsShiftSolver<ShiftInvert, Spectra::SparseSymMatProd<double>, Spectra::GEigsMode::ShiftInvert> solver(
      shift_invert, mass_product, nev, ncv, sigma);
  solver.init();
  solver.compute(Spectra::SortRule::LargestMagn, 5000, 1e-10, Spectra::SortRule::SmallestAlge);
  if (solver.info() != Spectra::CompInfo::Successful)
    fail_plain("surface eigenvalues: the eigensolver did not converge ({} vertices, {} eigenvalues)", n, nev);
  return solver.eigenvalues().tail(K);
}

SubspaceQuality subspace_quality(const SurfaceOperator& op, const Eigen::MatrixXd& W, bool first_column_constant,
                                 const Eigen::VectorXd& bound) {
  const Eigen::Index skip = first_column_constant ? 1 : 0, K = W.cols() - skip;
  if (W.rows() != static_cast<Eigen::Index>(op.vertices.size()) || K < 1 || bound.size() != K)
    fail_plain("subspace quality: {} x {} fields for {} vertices and {} eigenvalues", W.rows(), W.cols(),
               op.vertices.size(), bound.size());
  SubspaceQuality q;
  q.fields = static_cast<int>(K);
  q.components = op.components;
  q.lower_bound = bound.sum();
  // The non-constant directions: each field minus its mass-weighted mean (L 1 = 0, so only G changes).
  Eigen::MatrixXd B = W.rightCols(K);
  B.rowwise() -= (op.mass.transpose() * B) / op.mass.sum();
  const Eigen::MatrixXd G = B.transpose() * op.mass.asDiagonal() * B;
  const Eigen::MatrixXd D = B.transpose() * (op.laplacian * B);
  // Dependent directions (relative to their size) leave the span with fewer than K dimensions.
  const Eigen::VectorXd scale = G.diagonal().cwiseSqrt().cwiseMax(1e-300).cwiseInverse();
  const Eigen::MatrixXd Gs = scale.asDiagonal() * G * scale.asDiagonal(),
                        Ds = scale.asDiagonal() * D * scale.asDiagonal();
  const Eigen::LLT<Eigen::MatrixXd> cholesky(Gs);
  if (cholesky.info() != Eigen::Success || !(cholesky.matrixLLT().diagonal().minCoeff() > 1e-6)) {
    q.dirichlet_trace = q.ratio = std::numeric_limits<double>::infinity();
    return q;
  }
  q.dirichlet_trace = cholesky.solve(Ds).trace();
  q.ratio = q.dirichlet_trace / q.lower_bound;
  return q;
}

}  // namespace wobble::neural
