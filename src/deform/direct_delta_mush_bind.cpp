// Direct Delta Mush's precomputation (Le and Lewis 2019), in stages on the welded rest mesh (seams
// smooth as one surface): edge weights, the smoothing B = A^-p applied by iterative solves
// (implicit_smoothing.hpp), skin weights per welded vertex, the smoothed moments, the candidate
// influences (with their Omega matrices for v0), the largest kept and renormalised, each welded
// vertex's frame (centre, covariance, fallback), and finally the per-vertex arrays.
#include "deform/direct_delta_mush_bind.hpp"

#include <algorithm>
#include <array>

#include <Eigen/Eigenvalues>

#include <wobble/mesh_topology.hpp>

#include "deform/direct_delta_mush_kernels.hpp"
#include "deform/implicit_smoothing.hpp"
#include "deform/mush_edge_weights.hpp"

namespace wobble::ddm {
namespace {

// The rest mesh welded by position, in double.
struct WeldedRest {
  Welding welding;
  std::vector<Eigen::Vector3d> u;  // per welded vertex
  std::vector<int> members;        // input vertices per welded vertex
  std::vector<Triangle> triangles;
  std::vector<Edge> edges;
};

WeldedRest weld_rest(std::span<const Vec3f> rest, std::span<const Triangle> triangles) {
  WeldedRest w{Welding::by_position(rest), {}, {}, {}, {}};
  w.u.resize(w.welding.welded_count);
  w.members.assign(w.welding.welded_count, 0);
  for (std::size_t v = 0; v < rest.size(); ++v) w.u[w.welding.welded_of[v]] = rest[v].cast<double>();
  for (std::size_t v = 0; v < rest.size(); ++v) ++w.members[w.welding.welded_of[v]];
  w.triangles = w.welding.weld(triangles);
  w.edges = unique_edges(w.triangles);
  return w;
}

// y <- B y, B = A^-p, A = I + lambda (I - D^-1 W): not symmetric (rows normalised), an M-matrix,
// rows sum to 1; p solves (conjugate gradients on D A).
void smooth(const ImplicitSmoothing& smoothing, int iterations, Eigen::MatrixXd& y) {
  const std::size_t n = static_cast<std::size_t>(y.rows()), columns = static_cast<std::size_t>(y.cols());
  std::vector<double> block(n * columns);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < columns; ++c) block[i * columns + c] = y(i, c);
  for (int k = 0; k < iterations; ++k) smoothing.solve(block, columns);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < columns; ++c) y(i, c) = block[i * columns + c];
}

// The joints with a non-zero weight somewhere, in joint order: a column each.
std::vector<std::uint32_t> used_joints(const Skin& skin, std::size_t joint_count) {
  std::vector<bool> is_used(joint_count, false);
  for (std::size_t k = 0; k < skin.joints.size(); ++k)
    if (skin.weights[k] != 0) is_used[skin.joints[k]] = true;
  std::vector<std::uint32_t> used;
  for (std::uint32_t j = 0; j < joint_count; ++j)
    if (is_used[j]) used.push_back(j);
  return used;
}

// Skin weights per welded vertex (the mean over seam copies), a column per used joint.
Eigen::MatrixXd welded_weights(const Skin& skin, const WeldedRest& w, const std::vector<std::uint32_t>& used,
                               std::size_t joint_count) {
  std::vector<std::int32_t> column_of(joint_count, -1);
  for (std::size_t c = 0; c < used.size(); ++c) column_of[used[c]] = static_cast<std::int32_t>(c);
  Eigen::MatrixXd weights =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(w.u.size()), static_cast<Eigen::Index>(used.size()));
  for (std::size_t v = 0; v < w.welding.welded_of.size(); ++v) {
    const std::size_t i = w.welding.welded_of[v];
    for (std::uint32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k)
      weights(i, column_of[skin.joints[k]]) += double(skin.weights[k]) / w.members[i];
  }
  return weights;
}

// Smoothed joint-independent moments per welded vertex: p (3), then the second moment (xx xy xz
// yy yz zz).
Eigen::MatrixXd smoothed_moments(const WeldedRest& w, const ImplicitSmoothing& smoothing, int iterations) {
  Eigen::MatrixXd moments(static_cast<Eigen::Index>(w.u.size()), 9);
  for (std::size_t i = 0; i < w.u.size(); ++i) {
    const Eigen::Vector3d& x = w.u[i];
    moments.row(i) << x.x(), x.y(), x.z(), x.x() * x.x(), x.x() * x.y(), x.x() * x.z(), x.y() * x.y(), x.y() * x.z(),
        x.z() * x.z();
  }
  smooth(smoothing, iterations, moments);
  return moments;
}

// An influence a welded vertex may keep: its smoothed weight psi, the joint, and (v0) Omega.
struct Candidate {
  double psi;
  std::uint32_t joint;
  std::array<double, kOmega> omega;
};
using Candidates = std::vector<std::vector<Candidate>>;  // per welded vertex

// What the smoothing needs, shared by the stages that smooth.
struct Smoothing {
  const ImplicitSmoothing& solver;
  int iterations;
};

// v0: per used joint, the smoothed Omega = B (w [x x^T, x; x^T, 1]); candidates where its weight
// (Omega's last entry) reaches min_weight.
Candidates omega_candidates(const WeldedRest& w, const Eigen::MatrixXd& weights, const std::vector<std::uint32_t>& used,
                            Smoothing smoothing, double min_weight) {
  const std::size_t n = w.u.size();
  Candidates candidates(n);
  for (std::size_t c = 0; c < used.size(); ++c) {
    Eigen::MatrixXd rhs(static_cast<Eigen::Index>(n), kOmega);
    for (std::size_t i = 0; i < n; ++i) {
      const double s = weights(i, c);
      const Eigen::Vector3d& x = w.u[i];
      rhs.row(i) << s * x.x() * x.x(), s * x.x() * x.y(), s * x.x() * x.z(), s * x.y() * x.y(), s * x.y() * x.z(),
          s * x.z() * x.z(), s * x.x(), s * x.y(), s * x.z(), s;
    }
    smooth(smoothing.solver, smoothing.iterations, rhs);
    for (std::size_t i = 0; i < n; ++i) {
      if (!(rhs(i, 9) >= min_weight && rhs(i, 9) > 0)) continue;
      Candidate candidate{rhs(i, 9), used[c], {}};
      for (int k = 0; k < kOmega; ++k) candidate.omega[k] = rhs(i, k);
      candidates[i].push_back(candidate);
    }
  }
  return candidates;
}

// v1, v2, v3: the smoothed weights psi = B w; candidates where they reach min_weight.
Candidates psi_candidates(const Eigen::MatrixXd& weights, const std::vector<std::uint32_t>& used, Smoothing smoothing,
                          double min_weight) {
  Eigen::MatrixXd psi = weights;
  smooth(smoothing.solver, smoothing.iterations, psi);
  Candidates candidates(static_cast<std::size_t>(psi.rows()));
  for (std::size_t i = 0; i < candidates.size(); ++i)
    for (std::size_t c = 0; c < used.size(); ++c)
      if (psi(i, c) >= min_weight && psi(i, c) > 0) candidates[i].push_back({psi(i, c), used[c], {}});
  return candidates;
}

// The largest `max_influences` of each vertex (ties by joint); returns the widest list kept (>= 1).
std::size_t keep_largest(Candidates& candidates, std::size_t max_influences) {
  std::size_t width = 1;
  for (auto& list : candidates) {
    std::sort(list.begin(), list.end(), [](const Candidate& x, const Candidate& y) {
      return x.psi != y.psi ? x.psi > y.psi : x.joint < y.joint;
    });
    if (list.size() > max_influences) list.resize(max_influences);
    width = std::max(width, list.size());
  }
  return width;
}

// A welded vertex's frame: the centre p, the covariance (xx xy xz yy yz zz) and whether it falls
// back to linear blending (no influence, or a covariance too flat to fit a rotation).
struct WeldedFrames {
  std::vector<Eigen::Vector3d> centre;
  std::vector<std::array<double, 6>> covariance;
  std::vector<std::uint8_t> fallback;
};

// v0: the kept Omegas renormalised, their sums giving p and the second moment.
void omega_moments(std::vector<Candidate>& list, double total, Eigen::Vector3d& p, Eigen::Matrix3d& second) {
  for (Candidate& c : list) {
    for (double& x : c.omega) x /= total;
    second(0, 0) += c.omega[0], second(0, 1) += c.omega[1], second(0, 2) += c.omega[2];
    second(1, 1) += c.omega[3], second(1, 2) += c.omega[4], second(2, 2) += c.omega[5];
    p += Eigen::Vector3d(c.omega[6], c.omega[7], c.omega[8]);
  }
  second(1, 0) = second(0, 1), second(2, 0) = second(0, 2), second(2, 1) = second(1, 2);
}

// Each Omega centred on p (in double): run time then needs no q p^T subtraction, which in float
// would cancel catastrophically far from the origin.
//   A' = A - b p^T - p b^T + c p p^T,  b' = b - c p,  c' = c
void centre_omegas(std::vector<Candidate>& list, const Eigen::Vector3d& p) {
  for (Candidate& c : list) {
    const Eigen::Vector3d b(c.omega[6], c.omega[7], c.omega[8]);
    const double w = c.omega[9];
    const int index[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
    for (int r = 0; r < 3; ++r)
      for (int k = r; k < 3; ++k) c.omega[index[r][k]] += -b[r] * p[k] - p[r] * b[k] + w * p[r] * p[k];
    for (int r = 0; r < 3; ++r) c.omega[6 + r] = b[r] - w * p[r];
  }
}

double squared_diagonal(const std::vector<Eigen::Vector3d>& u) {
  Eigen::AlignedBox3d box;
  for (const auto& x : u) box.extend(x);
  return u.empty() ? 0.0 : box.diagonal().squaredNorm();
}

// The kept influences renormalised (psi summing to 1) and each welded vertex's frame.
WeldedFrames welded_frames(Candidates& candidates, const Eigen::MatrixXd& moments, bool full, double size2) {
  const std::size_t n = candidates.size();
  WeldedFrames frames{std::vector<Eigen::Vector3d>(n), std::vector<std::array<double, 6>>(n),
                      std::vector<std::uint8_t>(n, 0)};
  for (std::size_t i = 0; i < n; ++i) {
    auto& list = candidates[i];
    double total = 0;
    for (const Candidate& c : list) total += c.psi;
    Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    if (full) {
      omega_moments(list, total, p, second);
    } else {  // B rows sum to 1: the moments need no renormalisation
      p = moments.block<1, 3>(i, 0).transpose();
      second << moments(i, 3), moments(i, 4), moments(i, 5), moments(i, 4), moments(i, 6), moments(i, 7), moments(i, 5),
          moments(i, 7), moments(i, 8);
    }
    for (Candidate& c : list) c.psi /= total;
    if (full) centre_omegas(list, p);
    const Eigen::Matrix3d cov = second - p * p.transpose();
    const Eigen::Vector3d values =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(cov, Eigen::EigenvaluesOnly).eigenvalues();
    if (list.empty() || !(values(2) > 1e-14 * size2) || !(values(1) > 1e-6 * values(2))) frames.fallback[i] = 1;
    frames.centre[i] = p;
    frames.covariance[i] = {cov(0, 0), cov(0, 1), cov(0, 2), cov(1, 1), cov(1, 2), cov(2, 2)};
  }
  return frames;
}

BindArrays sized_arrays(std::size_t count, std::size_t width, DdmVariant variant) {
  BindArrays a;
  a.width = width;
  a.joints.assign(count * width, 0);
  a.psi.assign(count * width, 0.0f);
  a.omega.assign(variant == DdmVariant::V0 ? count * width * kOmega : 0, 0.0f);
  a.centre.assign(count * 3, 0.0f);
  a.covariance.assign(variant == DdmVariant::V1 ? count * 6 : 0, 0.0f);
  a.lever.assign(variant == DdmVariant::V3 ? (count + 7) / 8 * 24 : 0, 0.0f);
  a.linear_fallback.assign(count, 0);
  return a;
}

// Input vertex v gets its welded vertex i's influences and frame.
void store_vertex(std::size_t v, std::size_t i, const std::vector<Candidate>& list, const WeldedFrames& frames,
                  const Vec3f& rest, BindArrays& a) {
  const std::size_t width = a.width;
  for (std::size_t s = 0; s < list.size(); ++s) {
    a.joints[v * width + s] = static_cast<std::uint16_t>(list[s].joint);
    a.psi[v * width + s] = static_cast<float>(list[s].psi);
    if (!a.omega.empty())
      for (int k = 0; k < kOmega; ++k) a.omega[(v * width + s) * kOmega + k] = static_cast<float>(list[s].omega[k]);
  }
  for (int k = 0; k < 3; ++k) a.centre[3 * v + k] = static_cast<float>(frames.centre[i][k]);
  if (!a.lever.empty())
    for (int k = 0; k < 3; ++k)
      a.lever[24 * (v / 8) + 8 * k + v % 8] = static_cast<float>(double(rest[k]) - frames.centre[i][k]);
  if (!a.covariance.empty())
    for (int k = 0; k < 6; ++k) a.covariance[6 * v + k] = static_cast<float>(frames.covariance[i][k]);
  a.linear_fallback[v] = frames.fallback[i];
}

// No smoothed weight survived (min_weight above every smoothed weight, rare): the original skin,
// linearly, by its first influence.
void store_original_influence(std::size_t v, const Skin& skin, BindArrays& a) {
  a.joints[v * a.width] =
      static_cast<std::uint16_t>(skin.offsets[v] < skin.offsets[v + 1] ? skin.joints[skin.offsets[v]] : 0);
  a.psi[v * a.width] = 1.0f;
  a.linear_fallback[v] = 1;
}

}  // namespace

BindArrays bind_arrays(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const Skin& skin,
                       std::size_t joint_count, const DirectDeltaMushSettings& settings) {
  const WeldedRest welded = weld_rest(rest, triangles);
  const std::vector<double> edge_weight =
      mush::edge_weights(settings.smoothing, welded.u, welded.triangles, welded.edges);
  const ImplicitSmoothing solver(welded.u.size(), welded.edges, edge_weight, settings.step);
  const Smoothing smoothing{solver, settings.iterations};
  const std::vector<std::uint32_t> used = used_joints(skin, joint_count);
  const Eigen::MatrixXd weights = welded_weights(skin, welded, used, joint_count);
  const Eigen::MatrixXd moments = smoothed_moments(welded, solver, settings.iterations);
  const bool full = settings.variant == DdmVariant::V0;
  Candidates candidates = full ? omega_candidates(welded, weights, used, smoothing, settings.min_weight)
                               : psi_candidates(weights, used, smoothing, settings.min_weight);
  const std::size_t width = keep_largest(candidates, std::size_t(settings.max_influences));
  const WeldedFrames frames = welded_frames(candidates, moments, full, squared_diagonal(welded.u));
  BindArrays arrays = sized_arrays(rest.size(), width, settings.variant);
  for (std::size_t v = 0; v < rest.size(); ++v) {
    const std::size_t i = welded.welding.welded_of[v];
    store_vertex(v, i, candidates[i], frames, rest[v], arrays);
    if (candidates[i].empty()) store_original_influence(v, skin, arrays);
  }
  return arrays;
}

}  // namespace wobble::ddm
