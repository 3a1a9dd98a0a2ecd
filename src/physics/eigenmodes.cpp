// Skinning eigenmodes on a voxel grid with Spectra (see eigenmodes.hpp). Heavy template code:
// kept in this one translation unit.
#include <wobble/physics/eigenmodes.hpp>

#include "core/fail.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/MatOp/SymShiftInvert.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <fmt/format.h>

#include <wobble/error.hpp>

namespace wobble::physics {
namespace {

using SpMat = Eigen::SparseMatrix<double>;

// y = (K - sigma M)^{-1} x restricted to {w : A^T w = 0}: with Y = Ks^{-1} A and S = A^T Y,
// y = x0 - Y S^+ A^T x0 where x0 = Ks^{-1} x (the Schur complement of the KKT system).
class ConstrainedShiftInvert {
 public:
  using Scalar = double;
  ConstrainedShiftInvert(const SpMat& K, const SpMat& M, const Eigen::MatrixXd* A) : K_(K), M_(M), A_(A) {}
  Eigen::Index rows() const { return K_.rows(); }
  Eigen::Index cols() const { return K_.cols(); }
  void set_shift(double sigma) {
    SpMat shifted = K_ - sigma * M_;
    solver_.compute(shifted);
    if (solver_.info() != Eigen::Success) fail_plain("skinning eigenmodes: factorisation failed");
    if (A_ && A_->cols() > 0) {
      Y_ = solver_.solve(*A_);
      const Eigen::MatrixXd S = A_->transpose() * Y_;
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(S);
      const Eigen::VectorXd& values = eig.eigenvalues();
      const double cutoff = 1e-10 * std::max(values.cwiseAbs().maxCoeff(), 1e-300);
      Eigen::VectorXd inverse(values.size());
      for (Eigen::Index i = 0; i < values.size(); ++i) inverse[i] = std::abs(values[i]) > cutoff ? 1.0 / values[i] : 0.0;
      S_pinv_ = eig.eigenvectors() * inverse.asDiagonal() * eig.eigenvectors().transpose();
    }
  }
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<const Eigen::VectorXd> x(x_in, rows());
    Eigen::Map<Eigen::VectorXd> y(y_out, rows());
    Eigen::VectorXd x0 = solver_.solve(x);
    if (A_ && A_->cols() > 0) x0 -= Y_ * (S_pinv_ * (A_->transpose() * x0));
    y = x0;
  }

 private:
  const SpMat& K_;
  const SpMat& M_;
  const Eigen::MatrixXd* A_;
  Eigen::SimplicialLDLT<SpMat> solver_;
  Eigen::MatrixXd Y_, S_pinv_;
};

// Q1 Laplacian of a unit cube between corners a and b (corner bits = offsets along x, y, z).
double unit_cube_laplacian(int a, int b) {
  const int differing = __builtin_popcount(static_cast<unsigned>(a ^ b));
  static constexpr double table[4] = {1.0 / 3.0, 0.0, -1.0 / 12.0, -1.0 / 12.0};
  return table[differing];
}

}  // namespace

std::shared_ptr<GridField> skinning_eigenmodes(std::span<const Vec3d> cover, const EigenmodeOptions& options,
                                               const RigConstraint* constraint) {
  if (cover.empty()) fail_plain("skinning eigenmodes: no points to cover");
  if (options.handles < 1) fail_plain("skinning eigenmodes: need at least one handle");
  if (options.grid_resolution < 2 || options.grid_resolution > 256)
    fail_plain("skinning eigenmodes: grid resolution {} out of range [2, 256]", options.grid_resolution);
  Vec3d lo = cover[0], hi = cover[0];
  for (const Vec3d& p : cover) {
    if (!p.allFinite()) fail_plain("skinning eigenmodes: a point is not finite");
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  if (constraint)
    for (const Vec3d& p : constraint->points) { lo = lo.cwiseMin(p); hi = hi.cwiseMax(p); }
  const double h = 2.0 / options.grid_resolution;
  // Cells with one empty cell of margin all around.
  std::array<int, 3> cells;
  Vec3d origin;
  for (int a = 0; a < 3; ++a) {
    cells[a] = static_cast<int>(std::ceil((hi[a] - lo[a]) / h + 1e-9)) + 2;
    cells[a] = std::max(cells[a], 3);
    origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * h * cells[a];
  }
  auto cell_index = [&](int i, int j, int k) { return (static_cast<std::size_t>(k) * cells[1] + j) * cells[0] + i; };
  const std::size_t cell_count = static_cast<std::size_t>(cells[0]) * cells[1] * cells[2];
  std::vector<std::uint8_t> state(cell_count, 0);  // 0 unknown, 1 active, 2 outside
  auto mark = [&](const Vec3d& p) {
    int c[3];
    for (int a = 0; a < 3; ++a) c[a] = std::clamp(static_cast<int>(std::floor((p[a] - origin[a]) / h)), 0, cells[a] - 1);
    state[cell_index(c[0], c[1], c[2])] = 1;
  };
  for (const Vec3d& p : cover) mark(p);
  if (constraint)
    for (const Vec3d& p : constraint->points) mark(p);
  std::vector<std::array<int, 3>> stack{{0, 0, 0}};
  state[0] = 2;
  while (!stack.empty()) {
    const auto c = stack.back();
    stack.pop_back();
    for (int a = 0; a < 3; ++a)
      for (int d = -1; d <= 1; d += 2) {
        auto q = c;
        q[a] += d;
        if (q[a] < 0 || q[a] >= cells[a]) continue;
        std::uint8_t& s = state[cell_index(q[0], q[1], q[2])];
        if (s == 0) { s = 2; stack.push_back(q); }
      }
  }

  const std::array<int, 3> dims{cells[0] + 1, cells[1] + 1, cells[2] + 1};
  auto node_index = [&](int i, int j, int k) { return (static_cast<std::size_t>(k) * dims[1] + j) * dims[0] + i; };
  const std::size_t node_count = static_cast<std::size_t>(dims[0]) * dims[1] * dims[2];
  std::vector<int> compact(node_count, -1);
  int active = 0;
  std::vector<std::array<int, 8>> elements;
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int i = 0; i < cells[0]; ++i) {
        if (state[cell_index(i, j, k)] == 2) continue;
        std::array<int, 8> e;
        for (int corner = 0; corner < 8; ++corner) {
          const std::size_t n = node_index(i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1));
          if (compact[n] < 0) compact[n] = active++;
          e[corner] = compact[n];
        }
        elements.push_back(e);
      }
  const int constraints = constraint ? static_cast<int>(constraint->weights.cols()) * 10 : 0;
  if (active < options.handles + constraints + 2)
    fail_plain("skinning eigenmodes: {} grid nodes are too few for {} modes and {} constraints (raise the grid resolution)",
               active, options.handles, constraints);

  std::vector<Eigen::Triplet<double>> k_entries, m_entries;
  k_entries.reserve(elements.size() * 64);
  for (const auto& e : elements)
    for (int a = 0; a < 8; ++a) {
      m_entries.emplace_back(e[a], e[a], h * h * h / 8.0);
      for (int b = 0; b < 8; ++b) k_entries.emplace_back(e[a], e[b], h * unit_cube_laplacian(a, b));
    }
  SpMat K(active, active), M(active, active);
  K.setFromTriplets(k_entries.begin(), k_entries.end());
  M.setFromTriplets(m_entries.begin(), m_entries.end());
  const double total_mass = M.sum();

  // Constraint matrix A (active nodes x 10 J) = P^T C, P the trilinear interpolation at the points.
  Eigen::MatrixXd A;
  GridField layout(origin, h, dims, Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(node_count), 1), "layout");
  if (constraint) {
    const auto& W = constraint->weights;
    if (W.rows() != static_cast<Eigen::Index>(constraint->points.size()))
      fail_plain("skinning eigenmodes: {} rig weight rows for {} constraint points", W.rows(), constraint->points.size());
    A.setZero(active, constraints);
    int nodes[8];
    double w[8], g[8][3];
    for (std::size_t p = 0; p < constraint->points.size(); ++p) {
      const Vec3d& X = constraint->points[p];
      const double x4[4] = {X.x(), X.y(), X.z(), 1.0};
      double monomials[10];
      int q = 0;
      for (int a = 0; a < 4; ++a)
        for (int b = a; b < 4; ++b) monomials[q++] = x4[a] * x4[b];
      layout.stencil(X, nodes, w, g);
      for (int c = 0; c < 8; ++c) {
        const int n = compact[nodes[c]];
        if (n < 0 || w[c] == 0) continue;
        for (Eigen::Index j = 0; j < W.cols(); ++j) {
          const double wj = W(p, j) * w[c];
          if (wj == 0) continue;
          for (int m = 0; m < 10; ++m) A(n, j * 10 + m) += wj * monomials[m];
        }
      }
    }
    // Column scaling does not change the constraint; it helps the Schur complement's conditioning.
    for (Eigen::Index c = 0; c < A.cols(); ++c) {
      const double norm = A.col(c).norm();
      if (norm > 0) A.col(c) /= norm;
    }
  }

  ConstrainedShiftInvert op(K, M, constraint ? &A : nullptr);
  Spectra::SparseSymMatProd<double> bop(M);
  const int nev = options.handles;
  const int ncv = std::min(active, std::max(2 * nev + 1, nev + 20));
  const double sigma = -1e-2;
  Spectra::SymGEigsShiftSolver<ConstrainedShiftInvert, Spectra::SparseSymMatProd<double>, Spectra::GEigsMode::ShiftInvert>
      solver(op, bop, nev, ncv, sigma);
  solver.init();
  solver.compute(Spectra::SortRule::LargestMagn, 2000, 1e-10, Spectra::SortRule::SmallestAlge);
  if (solver.info() != Spectra::CompInfo::Successful)
    fail_plain("skinning eigenmodes: the eigensolver did not converge ({} nodes, {} modes)", active, nev);
  const Eigen::MatrixXd vectors = solver.eigenvectors();

  Eigen::MatrixXd values = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(node_count), nev);
  for (int i = 0; i < nev; ++i) {
    Eigen::VectorXd v = vectors.col(i);
    const double norm2 = v.dot(M * v);
    v *= std::sqrt(total_mass / std::max(norm2, 1e-300));
    Eigen::Index arg;
    v.cwiseAbs().maxCoeff(&arg);
    if (v[arg] < 0) v = -v;
    for (std::size_t n = 0; n < node_count; ++n)
      if (compact[n] >= 0) values(static_cast<Eigen::Index>(n), i) = v[compact[n]];
  }
  return std::make_shared<GridField>(origin, h, dims, std::move(values),
                                     fmt::format("skinning eigenmodes ({} modes, {} grid nodes{})", nev, active,
                                                 constraint ? ", rig-complementary" : ""));
}

}  // namespace wobble::physics
