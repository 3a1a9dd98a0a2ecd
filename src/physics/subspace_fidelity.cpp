// Physics fidelity of a reduced subspace against full-space linear FEM (see subspace_fidelity.hpp).
// Heavy Eigen and Spectra code: its own translation unit.
#include <wobble/physics/subspace_fidelity.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SparseCholesky>
#include <Spectra/SymEigsSolver.h>

#include "core/fail.hpp"

namespace wobble::physics {

namespace {

using SpMat = Eigen::SparseMatrix<double>;
constexpr double kTwoPi = 6.283185307179586;

// y = M^1/2 K^-1 M^1/2 x for a diagonal M: its largest eigenvalues are 1 / w^2 of K u = w^2 M u.
class InverseStiffness {
 public:
  using Scalar = double;
  InverseStiffness(const Eigen::SimplicialLDLT<SpMat>& K, const Eigen::VectorXd& mass)
      : K_(K), root_(mass.cwiseSqrt()) {}
  Eigen::Index rows() const { return root_.size(); }
  Eigen::Index cols() const { return root_.size(); }
  void perform_op(const double* x_in, double* y_out) const {
    const Eigen::VectorXd x = root_.cwiseProduct(Eigen::Map<const Eigen::VectorXd>(x_in, rows()));
    Eigen::Map<Eigen::VectorXd>(y_out, rows()) = root_.cwiseProduct(K_.solve(x));
  }

 private:
  const Eigen::SimplicialLDLT<SpMat>& K_;
  Eigen::VectorXd root_;
};

void check(const FidelityOptions& o) {
  const bool positive = o.grid_resolution >= 2 && o.pinned_fraction > 0 && o.pinned_fraction < 1 && o.pin_blend > 0 &&
                        o.poke_radius > 0 && o.poke_duration >= 0 && o.response_time > 0 && o.time_step > 0 &&
                        o.frequencies >= 1 && std::isfinite(o.gravity) && std::isfinite(o.poke_acceleration);
  if (!positive)
    fail_plain(
        "fidelity: options out of range (grid >= 2, 0 < pinned fraction < 1, positive blend, radius, times and "
        "frequency count)");
  o.material.check();
}

// Lumped nodal forces m_i a(X_i) over the free dofs.
template <class Acceleration>
Eigen::VectorXd nodal_load(const TetMesh& mesh, const LinearFem& fem, Acceleration acceleration) {
  Eigen::VectorXd f(fem.dofs());
  for (std::size_t k = 0; k < fem.free_nodes.size(); ++k) {
    const Vec3d a = acceleration(mesh.nodes[static_cast<std::size_t>(fem.free_nodes[k])]);
    for (int c = 0; c < 3; ++c)
      f[static_cast<Eigen::Index>(3 * k) + c] = fem.mass[static_cast<Eigen::Index>(3 * k) + c] * a[c];
  }
  return f;
}

// Implicit Euler from rest: (M / h^2 + K) u' = f + M (2 u - u_prev) / h^2, the load on while
// t < poke_duration; the displacement after response_time.
template <class MassTimes, class Solve>
Eigen::VectorXd poke_response(const FidelityOptions& o, const Eigen::VectorXd& load, MassTimes mass_times,
                              Solve solve) {
  const int steps = std::max(1, static_cast<int>(std::lround(o.response_time / o.time_step)));
  const double inverse_h2 = 1.0 / (o.time_step * o.time_step);
  Eigen::VectorXd u = Eigen::VectorXd::Zero(load.size()), previous = u;
  for (int s = 0; s < steps; ++s) {
    Eigen::VectorXd rhs = inverse_h2 * mass_times(2.0 * u - previous);
    if (s * o.time_step < o.poke_duration - 1e-12) rhs += load;
    previous = u;
    u = solve(rhs);
  }
  return u;
}

// The top share of the height, and the pieces of the mesh it holds.
std::vector<bool> pin_top(TetMesh& mesh, double fraction, double& threshold, std::size_t& dropped) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Vec3d& p : mesh.nodes) {
    lo = std::min(lo, p.y());
    hi = std::max(hi, p.y());
  }
  threshold = pinned_threshold(lo, hi, fraction);
  auto pinned_of = [&](const TetMesh& m) {
    std::vector<bool> pinned(m.node_count());
    for (std::size_t v = 0; v < m.node_count(); ++v) pinned[v] = m.nodes[v].y() >= threshold;
    return pinned;
  };
  const std::size_t before = mesh.tets.size();
  mesh = connected_to(mesh, pinned_of(mesh));
  dropped = before - mesh.tets.size();
  return pinned_of(mesh);
}

Eigen::VectorXd full_frequencies(const Eigen::SimplicialLDLT<SpMat>& K, const Eigen::VectorXd& mass, int count) {
  const Eigen::Index n = mass.size();
  const int nev = static_cast<int>(std::min<Eigen::Index>(count, n - 1));
  if (nev < 1) fail_plain("fidelity: too few free degrees of freedom for frequencies");
  InverseStiffness op(K, mass);
  const int ncv = static_cast<int>(std::min<Eigen::Index>(n, std::max(2 * nev + 1, nev + 20)));
  Spectra::SymEigsSolver<InverseStiffness> solver(op, nev, ncv);
  solver.init();
  solver.compute(Spectra::SortRule::LargestAlge, 2000, 1e-10);
  if (solver.info() != Spectra::CompInfo::Successful)
    fail_plain("fidelity: the full-space eigensolver did not converge");
  const Eigen::VectorXd inverse_w2 = solver.eigenvalues();  // largest first: lowest frequencies first
  Eigen::VectorXd f(count);
  f.setConstant(std::numeric_limits<double>::quiet_NaN());
  for (int i = 0; i < nev; ++i) f[i] = 1.0 / (kTwoPi * std::sqrt(inverse_w2[i]));
  return f;
}

// A mass-orthonormal basis (Q^T M Q = I) of the span of `basis`, dependent directions dropped:
// column-pivoted QR of M^1/2 B (the Gram matrix would square the condition number).
Eigen::MatrixXd mass_orthonormal_span(const Eigen::MatrixXd& basis, const Eigen::VectorXd& mass) {
  const Eigen::VectorXd root = mass.cwiseSqrt();
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(root.asDiagonal() * basis);
  qr.setThreshold(1e-9);
  const Eigen::Index rank = qr.rank();
  if (rank == 0) fail_plain("fidelity: the basis is zero at every free node");
  Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(basis.rows(), rank);
  return root.cwiseInverse().asDiagonal() * Q;
}

double relative_error(const Eigen::VectorXd& reduced, const Eigen::VectorXd& full) {
  const double norm = full.norm();
  return norm > 0 ? (reduced - full).norm() / norm : 0.0;
}

}  // namespace

double pinned_threshold(double lo, double hi, double fraction) { return hi - fraction * (hi - lo) - 1e-9 * (hi - lo); }

FullSpaceReference full_space_reference(const TetMesh& mesh, const FidelityOptions& options) {
  check(options);
  FullSpaceReference r;
  r.options = options;
  r.mesh = mesh;
  if (r.mesh.tets.empty()) fail_plain("fidelity: the tetrahedral mesh is empty");
  double threshold = 0;
  r.pinned = pin_top(r.mesh, options.pinned_fraction, threshold, r.dropped_tets);
  std::vector<Vec3d> anchors;
  for (std::size_t v = 0; v < r.mesh.node_count(); ++v)
    if (r.pinned[v]) anchors.push_back(r.mesh.nodes[v]);
  r.pins = DirichletRegion([threshold](const Vec3d& p) { return p.y() >= threshold; }, std::move(anchors),
                           options.pin_blend);
  r.fem = linear_fem(r.mesh, options.material, r.pinned);
  r.poke_point = r.mesh.nodes[static_cast<std::size_t>(r.fem.free_nodes.front())];
  for (int v : r.fem.free_nodes)
    if (r.mesh.nodes[static_cast<std::size_t>(v)].y() < r.poke_point.y())
      r.poke_point = r.mesh.nodes[static_cast<std::size_t>(v)];
  r.gravity_load = nodal_load(r.mesh, r.fem, [&](const Vec3d&) { return Vec3d(0, -options.gravity, 0); });
  const double s2 = 2.0 * options.poke_radius * options.poke_radius;
  r.poke_load = nodal_load(r.mesh, r.fem, [&](const Vec3d& X) {
    return Vec3d(options.poke_acceleration * std::exp(-(X - r.poke_point).squaredNorm() / s2), 0, 0);
  });
  Eigen::SimplicialLDLT<SpMat> K(r.fem.stiffness);
  if (K.info() != Eigen::Success) fail_plain("fidelity: the stiffness matrix could not be factorised");
  r.sag = K.solve(r.gravity_load);
  const double inverse_h2 = 1.0 / (options.time_step * options.time_step);
  SpMat A = r.fem.stiffness;
  A.diagonal() += inverse_h2 * r.fem.mass;
  Eigen::SimplicialLDLT<SpMat> implicit(A);
  if (implicit.info() != Eigen::Success) fail_plain("fidelity: the implicit Euler matrix could not be factorised");
  r.poke = poke_response(
      options, r.poke_load, [&](const Eigen::VectorXd& v) { return Eigen::VectorXd(r.fem.mass.cwiseProduct(v)); },
      [&](const Eigen::VectorXd& b) { return Eigen::VectorXd(implicit.solve(b)); });
  r.frequencies = full_frequencies(K, r.fem.mass, options.frequencies);
  return r;
}

FullSpaceReference full_space_reference(const Mesh& mesh, const fields::Normalization& normalization,
                                        const FidelityOptions& options) {
  check(options);
  return full_space_reference(voxel_tet_mesh(mesh, normalization, options.grid_resolution), options);
}

Eigen::MatrixXd subspace_basis(const FullSpaceReference& reference, const fields::SkinningField& field) {
  const auto F = static_cast<Eigen::Index>(reference.fem.free_nodes.size());
  std::vector<Vec3d> points;
  points.reserve(static_cast<std::size_t>(F));
  for (int v : reference.fem.free_nodes) points.push_back(reference.mesh.nodes[static_cast<std::size_t>(v)]);
  const Eigen::MatrixXd W = field.evaluate(points, false).W;
  const Eigen::Index m = W.cols(), q = 4 * m;
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(3 * F, 3 * q);
  for (Eigen::Index f = 0; f < F; ++f) {
    const Vec3d& X = points[static_cast<std::size_t>(f)];
    const double d = reference.pins.modulation(X, nullptr);
    const double x4[4] = {X.x(), X.y(), X.z(), 1.0};
    for (Eigen::Index i = 0; i < m; ++i)
      for (int a = 0; a < 4; ++a)
        for (int c = 0; c < 3; ++c) B(3 * f + c, c * q + 4 * i + a) = d * W(f, i) * x4[a];
  }
  return B;
}

SubspaceFidelity subspace_fidelity(const FullSpaceReference& reference, const Eigen::MatrixXd& basis) {
  const LinearFem& fem = reference.fem;
  if (basis.rows() != fem.dofs() || basis.cols() < 1)
    fail_plain("fidelity: a basis of {} x {} for {} free degrees of freedom", basis.rows(), basis.cols(), fem.dofs());
  if (!basis.allFinite()) fail_plain("fidelity: the basis is not finite");
  const Eigen::MatrixXd Q = mass_orthonormal_span(basis, fem.mass);
  const Eigen::MatrixXd Kr = Q.transpose() * (fem.stiffness * Q);
  const FidelityOptions& o = reference.options;
  SubspaceFidelity out;
  out.dofs = static_cast<int>(Q.cols());
  out.sag_error = relative_error(Q * Kr.ldlt().solve(Q.transpose() * reference.gravity_load), reference.sag);
  Eigen::MatrixXd Ar = Kr;
  Ar.diagonal().array() += 1.0 / (o.time_step * o.time_step);
  const Eigen::LLT<Eigen::MatrixXd> implicit(Ar);
  const Eigen::VectorXd z = poke_response(
      o, Q.transpose() * reference.poke_load, [](const Eigen::VectorXd& v) { return v; },
      [&](const Eigen::VectorXd& b) { return Eigen::VectorXd(implicit.solve(b)); });
  out.poke_error = relative_error(Q * z, reference.poke);
  const Eigen::VectorXd w2 = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(Kr, Eigen::EigenvaluesOnly).eigenvalues();
  const Eigen::Index count = reference.frequencies.size();
  out.frequencies.setConstant(count, std::numeric_limits<double>::quiet_NaN());
  for (Eigen::Index i = 0; i < std::min(count, w2.size()); ++i)
    out.frequencies[i] = std::sqrt(std::max(w2[i], 0.0)) / kTwoPi;
  out.frequency_errors = (out.frequencies - reference.frequencies).cwiseQuotient(reference.frequencies);
  return out;
}

}  // namespace wobble::physics
