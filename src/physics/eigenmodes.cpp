// Skinning eigenmodes on a voxel grid with Spectra (see eigenmodes.hpp). Heavy template code:
// kept in this one translation unit.
#include <wobble/physics/eigenmodes.hpp>

#include "core/fail.hpp"
#include "fields/grid_flood_fill.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
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
      for (Eigen::Index i = 0; i < values.size(); ++i)
        inverse[i] = std::abs(values[i]) > cutoff ? 1.0 / values[i] : 0.0;
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

void check_options(std::span<const Vec3d> cover, const EigenmodeOptions& options) {
  if (cover.empty()) fail_plain("skinning eigenmodes: no points to cover");
  if (options.handles < 1) fail_plain("skinning eigenmodes: need at least one handle");
  if (options.grid_resolution < 2 || options.grid_resolution > 256)
    fail_plain("skinning eigenmodes: grid resolution {} out of range [2, 256]", options.grid_resolution);
}

struct Bounds {
  Vec3d lo, hi;
};

// The box around the points to cover and the rig's constraint points.
Bounds bounds_of(std::span<const Vec3d> cover, const RigConstraint* constraint) {
  Bounds box{cover[0], cover[0]};
  for (const Vec3d& p : cover) {
    if (!p.allFinite()) fail_plain("skinning eigenmodes: a point is not finite");
    box.lo = box.lo.cwiseMin(p);
    box.hi = box.hi.cwiseMax(p);
  }
  if (constraint)
    for (const Vec3d& p : constraint->points) {
      box.lo = box.lo.cwiseMin(p);
      box.hi = box.hi.cwiseMax(p);
    }
  return box;
}

// Cubic cells of side h over the box, with one empty cell of margin all around.
struct CellGrid {
  std::array<int, 3> cells;
  Vec3d origin;
  double h = 0;
  std::size_t cell_count() const { return static_cast<std::size_t>(cells[0]) * cells[1] * cells[2]; }
  std::size_t cell_index(int i, int j, int k) const {
    return (static_cast<std::size_t>(k) * cells[1] + j) * cells[0] + i;
  }
  std::array<int, 3> node_dims() const { return {cells[0] + 1, cells[1] + 1, cells[2] + 1}; }
};

CellGrid cell_grid(const Bounds& box, int resolution) {
  CellGrid grid;
  grid.h = 2.0 / resolution;
  for (int a = 0; a < 3; ++a) {
    grid.cells[a] = static_cast<int>(std::ceil((box.hi[a] - box.lo[a]) / grid.h + 1e-9)) + 2;
    grid.cells[a] = std::max(grid.cells[a], 3);
    grid.origin[a] = 0.5 * (box.lo[a] + box.hi[a]) - 0.5 * grid.h * grid.cells[a];
  }
  return grid;
}

enum CellState : std::uint8_t { kUnknown = 0, kActive = 1, kOutside = 2 };

void mark_cells_with_points(const CellGrid& grid, std::span<const Vec3d> points, std::vector<std::uint8_t>& state) {
  for (const Vec3d& p : points) {
    int c[3];
    for (int a = 0; a < 3; ++a)
      c[a] = std::clamp(static_cast<int>(std::floor((p[a] - grid.origin[a]) / grid.h)), 0, grid.cells[a] - 1);
    state[grid.cell_index(c[0], c[1], c[2])] = kActive;
  }
}

// The cells holding points or enclosed by them: every cell the flood fill from outside cannot reach.
std::vector<std::uint8_t> occupied_cells(const CellGrid& grid, std::span<const Vec3d> cover,
                                         const RigConstraint* constraint) {
  std::vector<std::uint8_t> state(grid.cell_count(), kUnknown);
  mark_cells_with_points(grid, cover, state);
  if (constraint) mark_cells_with_points(grid, constraint->points, state);
  fields::flood_fill_outside(grid.cells, state, kUnknown, kOutside);  // from the corner: the margin is empty
  return state;
}

// The hexahedral elements of the occupied cells over their nodes, numbered compactly in cell order.
struct ActiveNodes {
  std::vector<int> compact;  // grid node -> active node, -1 for nodes of no element
  int active = 0;
  std::vector<std::array<int, 8>> elements;
};

ActiveNodes active_nodes(const CellGrid& grid, const std::vector<std::uint8_t>& state) {
  const std::array<int, 3> dims = grid.node_dims();
  auto node_index = [&](int i, int j, int k) { return (static_cast<std::size_t>(k) * dims[1] + j) * dims[0] + i; };
  ActiveNodes out;
  out.compact.assign(static_cast<std::size_t>(dims[0]) * dims[1] * dims[2], -1);
  for (int k = 0; k < grid.cells[2]; ++k)
    for (int j = 0; j < grid.cells[1]; ++j)
      for (int i = 0; i < grid.cells[0]; ++i) {
        if (state[grid.cell_index(i, j, k)] == kOutside) continue;
        std::array<int, 8> e;
        for (int corner = 0; corner < 8; ++corner) {
          const std::size_t n = node_index(i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1));
          if (out.compact[n] < 0) out.compact[n] = out.active++;
          e[corner] = out.compact[n];
        }
        out.elements.push_back(e);
      }
  return out;
}

// Stiffness K (the Q1 Laplacian) and lumped mass M over the active nodes.
struct Operators {
  SpMat K, M;
};

Operators q1_operators(const ActiveNodes& nodes, double h) {
  std::vector<Eigen::Triplet<double>> k_entries, m_entries;
  k_entries.reserve(nodes.elements.size() * 64);
  for (const auto& e : nodes.elements)
    for (int a = 0; a < 8; ++a) {
      m_entries.emplace_back(e[a], e[a], h * h * h / 8.0);
      for (int b = 0; b < 8; ++b) k_entries.emplace_back(e[a], e[b], h * unit_cube_laplacian(a, b));
    }
  Operators out{SpMat(nodes.active, nodes.active), SpMat(nodes.active, nodes.active)};
  out.K.setFromTriplets(k_entries.begin(), k_entries.end());
  out.M.setFromTriplets(m_entries.begin(), m_entries.end());
  return out;
}

// The 10 monomials of degree 2 in (x, y, z, 1): what an affine map's entries make of a point.
std::array<double, 10> quadratic_monomials(const Vec3d& X) {
  const double x4[4] = {X.x(), X.y(), X.z(), 1.0};
  std::array<double, 10> monomials;
  int q = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = a; b < 4; ++b) monomials[static_cast<std::size_t>(q++)] = x4[a] * x4[b];
  return monomials;
}

// Constraint matrix A (active nodes x 10 J) = P^T C, P the trilinear interpolation at the points.
Eigen::MatrixXd rig_constraint_matrix(const RigConstraint& constraint, const CellGrid& grid,
                                      const ActiveNodes& numbering) {
  const auto& W = constraint.weights;
  if (W.rows() != static_cast<Eigen::Index>(constraint.points.size()))
    fail_plain("skinning eigenmodes: {} rig weight rows for {} constraint points", W.rows(), constraint.points.size());
  const std::array<int, 3> dims = grid.node_dims();
  const fields::GridField layout(grid.origin, grid.h, dims,
                                 Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(numbering.compact.size()), 1),
                                 "layout");
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(numbering.active, W.cols() * 10);
  int nodes[8];
  double w[8], g[8][3];
  for (std::size_t p = 0; p < constraint.points.size(); ++p) {
    const std::array<double, 10> monomials = quadratic_monomials(constraint.points[p]);
    layout.stencil(constraint.points[p], nodes, w, g);
    for (int c = 0; c < 8; ++c) {
      const int n = numbering.compact[static_cast<std::size_t>(nodes[c])];
      if (n < 0 || w[c] == 0) continue;
      for (Eigen::Index j = 0; j < W.cols(); ++j) {
        const double wj = W(static_cast<Eigen::Index>(p), j) * w[c];
        if (wj == 0) continue;
        for (int m = 0; m < 10; ++m) A(n, j * 10 + m) += wj * monomials[static_cast<std::size_t>(m)];
      }
    }
  }
  // Column scaling does not change the constraint; it helps the Schur complement's conditioning.
  for (Eigen::Index c = 0; c < A.cols(); ++c) {
    const double norm = A.col(c).norm();
    if (norm > 0) A.col(c) /= norm;
  }
  return A;
}

// The nev lowest generalised eigenvectors of K v = lambda M v (restricted to A^T v = 0 when A is given).
Eigen::MatrixXd lowest_modes(const Operators& ops, const Eigen::MatrixXd* A, int nev) {
  const int active = static_cast<int>(ops.K.rows());
  ConstrainedShiftInvert op(ops.K, ops.M, A);
  Spectra::SparseSymMatProd<double> bop(ops.M);
  const int ncv = std::min(active, std::max(2 * nev + 1, nev + 20));
  const double sigma = -1e-2;
  Spectra::SymGEigsShiftSolver<ConstrainedShiftInvert, Spectra::SparseSymMatProd<double>,
                               Spectra::GEigsMode::ShiftInvert>
      solver(op, bop, nev, ncv, sigma);
  solver.init();
  solver.compute(Spectra::SortRule::LargestMagn, 2000, 1e-10, Spectra::SortRule::SmallestAlge);
  if (solver.info() != Spectra::CompInfo::Successful)
    fail_plain("skinning eigenmodes: the eigensolver did not converge ({} nodes, {} modes)", active, nev);
  return solver.eigenvectors();
}

// The modes at every grid node (zero off the active nodes), each scaled to M-norm^2 = total mass
// and signed so that its largest entry is positive: the same field whatever sign Spectra returns.
Eigen::MatrixXd node_values(const Eigen::MatrixXd& vectors, int nev, const SpMat& M, const std::vector<int>& compact) {
  const double total_mass = M.sum();
  Eigen::MatrixXd values = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(compact.size()), nev);
  for (int i = 0; i < nev; ++i) {
    Eigen::VectorXd v = vectors.col(i);
    const double norm2 = v.dot(M * v);
    v *= std::sqrt(total_mass / std::max(norm2, 1e-300));
    Eigen::Index arg;
    v.cwiseAbs().maxCoeff(&arg);
    if (v[arg] < 0) v = -v;
    for (std::size_t n = 0; n < compact.size(); ++n)
      if (compact[n] >= 0) values(static_cast<Eigen::Index>(n), i) = v[compact[n]];
  }
  return values;
}

}  // namespace

std::shared_ptr<fields::GridField> skinning_eigenmodes(std::span<const Vec3d> cover, const EigenmodeOptions& options,
                                                       const RigConstraint* constraint) {
  check_options(cover, options);
  const CellGrid grid = cell_grid(bounds_of(cover, constraint), options.grid_resolution);
  const ActiveNodes nodes = active_nodes(grid, occupied_cells(grid, cover, constraint));
  const int constraints = constraint ? static_cast<int>(constraint->weights.cols()) * 10 : 0;
  if (nodes.active < options.handles + constraints + 2)
    fail_plain(
        "skinning eigenmodes: {} grid nodes are too few for {} modes and {} constraints (raise the grid resolution)",
        nodes.active, options.handles, constraints);
  const Operators ops = q1_operators(nodes, grid.h);
  Eigen::MatrixXd A;
  if (constraint) A = rig_constraint_matrix(*constraint, grid, nodes);
  const Eigen::MatrixXd vectors = lowest_modes(ops, constraint ? &A : nullptr, options.handles);
  return std::make_shared<fields::GridField>(
      grid.origin, grid.h, grid.node_dims(), node_values(vectors, options.handles, ops.M, nodes.compact),
      fmt::format("skinning eigenmodes ({} modes, {} grid nodes{})", options.handles, nodes.active,
                  constraint ? ", rig-complementary" : ""));
}

}  // namespace wobble::physics
