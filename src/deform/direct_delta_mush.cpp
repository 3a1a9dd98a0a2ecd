// Direct Delta Mush: the precomputation (the smoothing solves are in implicit_smoothing.cpp) and
// the run-time blend and rotation fit.
#include <wobble/direct_delta_mush.hpp>

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <fmt/core.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"
#include "deform/describe.hpp"
#include "deform/direct_delta_mush_kernels.hpp"
#include "deform/implicit_smoothing.hpp"

namespace wobble {

namespace {

constexpr std::size_t kGrain = 8192;
using ddm::kOmega;

Mat3f rotation_by_svd(const Mat3f& m) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(m.cast<double>(), Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d u = svd.matrixU();
  const Eigen::Matrix3d v = svd.matrixV();
  if ((u * v.transpose()).determinant() < 0) u.col(2) = -u.col(2);  // the smallest singular value's direction
  Eigen::Matrix3d r = u * v.transpose();
  if (!r.allFinite()) r.setIdentity();
  return r.cast<float>();
}

}  // namespace

Mat3f nearest_rotation(const Mat3f& m) {
  // Scaled Newton iteration X <- (g X + X^-T / g) / 2 converges to the orthogonal polar factor,
  // which has det +1 when det(m) > 0. Singular or reflecting matrices go to the SVD.
  const float norm2 = m.squaredNorm();
  if (!(norm2 > 0.0f) || !std::isfinite(norm2)) return Mat3f::Identity();
  Mat3f x = m / std::sqrt(norm2 / 3.0f);  // unit-ish scale: the tolerances below are relative
  for (int iteration = 0; iteration < 30; ++iteration) {
    Mat3f cof;
    cof.col(0) = x.col(1).cross(x.col(2));
    cof.col(1) = x.col(2).cross(x.col(0));
    cof.col(2) = x.col(0).cross(x.col(1));
    const float det = x.col(0).dot(cof.col(0));
    if (!(det > 1e-6f)) return rotation_by_svd(m);
    const Mat3f inv_t = cof / det;  // X^-T
    const float g = std::sqrt(std::sqrt(inv_t.squaredNorm() / x.squaredNorm()));
    const Mat3f next = 0.5f * (g * x + inv_t / g);
    const float change = (next - x).squaredNorm();
    x = next;
    if (change < 1e-13f) break;
  }
  return x;
}

DdmVariant parse_ddm_variant(std::string_view text) {
  if (text == "v0") return DdmVariant::V0;
  if (text == "v1") return DdmVariant::V1;
  if (text == "v2") return DdmVariant::V2;
  if (text == "v3") return DdmVariant::V3;
  fail_plain("ddm: unknown variant '{}' (v0, v1, v2, v3)", text);
}

const char* to_string(DdmVariant variant) {
  switch (variant) {
    case DdmVariant::V0: return "v0";
    case DdmVariant::V1: return "v1";
    case DdmVariant::V2: return "v2";
    case DdmVariant::V3: return "v3";
  }
  return "?";
}

std::string DirectDeltaMushSettings::validate() const { return direct_delta_mush_description().problems(this); }

void DirectDeltaMush::check_same_mesh(std::span<const Vec3f> rest, std::span<const Triangle> triangles) const {
  const MeshFingerprint other = MeshFingerprint::of(rest, triangles);
  if (!(other == fingerprint_)) {
    fail_plain("ddm: bind data was computed from another mesh ({}); this mesh has {}", fingerprint_.describe(),
               other.describe());
  }
}

void DirectDeltaMush::bind(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const Skin& skin,
                           std::size_t joint_count, const DirectDeltaMushSettings& settings) {
  if (std::string problem = settings.validate(); !problem.empty()) fail_plain("ddm: {}", problem);
  if (skin.vertex_count() != rest.size()) {
    fail_plain("ddm: the skin has {} vertices, the mesh {}", skin.vertex_count(), rest.size());
  }
  if (joint_count > 65535) fail_plain("ddm: {} joints, at most 65535 supported", joint_count);
  for (std::uint32_t j : skin.joints) {
    if (j >= joint_count) fail_plain("ddm: the skin uses joint {}, the rig has {}", j, joint_count);
  }
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (std::uint32_t v : triangles[t]) {
      if (v >= rest.size()) fail_plain("ddm: triangle {} uses vertex {}, the mesh has {}", t, v, rest.size());
    }
  }
  for (std::size_t v = 0; v < rest.size(); ++v) {
    if (!rest[v].allFinite()) fail_plain("ddm: rest position of vertex {} is not finite", v);
  }
  settings_ = settings;
  fingerprint_ = MeshFingerprint::of(rest, triangles);
  joint_count_ = joint_count;
  rest_.assign(rest.begin(), rest.end());

  // Welded connectivity (seams smooth as one surface).
  const Welding welding = Welding::by_position(rest);
  const std::size_t n = welding.welded_count;
  std::vector<Eigen::Vector3d> u(n);
  std::vector<int> members(n, 0);
  for (std::size_t v = 0; v < rest.size(); ++v) u[welding.welded_of[v]] = rest[v].cast<double>();
  for (std::size_t v = 0; v < rest.size(); ++v) ++members[welding.welded_of[v]];
  const std::vector<Triangle> welded = welding.weld(triangles);
  const std::vector<Edge> edges = unique_edges(welded);

  // Edge weights W (non-negative) from the rest mesh.
  std::vector<double> edge_weight(edges.size(), 1.0);
  if (settings.smoothing == MushSmoothing::Length) {
    for (std::size_t e = 0; e < edges.size(); ++e) edge_weight[e] = (u[edges[e].a] - u[edges[e].b]).norm();
  } else if (settings.smoothing == MushSmoothing::Cotangent) {
    std::fill(edge_weight.begin(), edge_weight.end(), 0.0);
    for (const Triangle& t : welded) {
      if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
      for (int k = 0; k < 3; ++k) {
        const Eigen::Vector3d a = u[t[(k + 1) % 3]] - u[t[k]], b = u[t[(k + 2) % 3]] - u[t[k]];
        const double sine = a.cross(b).norm();
        if (!(sine > 1e-12 * a.norm() * b.norm())) continue;
        std::uint32_t x = t[(k + 1) % 3], y = t[(k + 2) % 3];
        if (x > y) std::swap(x, y);
        auto it = std::lower_bound(edges.begin(), edges.end(), std::pair{x, y},
                                   [](const Edge& e, std::pair<std::uint32_t, std::uint32_t> key) {
                                     return e.a != key.first ? e.a < key.first : e.b < key.second;
                                   });
        edge_weight[it - edges.begin()] += 0.5 * a.dot(b) / sine;
      }
    }
    for (double& w : edge_weight) w = std::max(w, 0.0);  // clamp: obtuse angles give negative cotangents
  }

  // B = A^-p, A = I + lambda (I - D^-1 W): not symmetric (rows normalised), an M-matrix, rows sum
  // to 1. Applied by p iterative solves (ImplicitSmoothing: conjugate gradients on D A).
  const ImplicitSmoothing smoothing(n, edges, edge_weight, settings.step);
  auto smooth = [&](Eigen::MatrixXd& y) {
    const std::size_t columns = static_cast<std::size_t>(y.cols());
    std::vector<double> block(n * columns);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < columns; ++c) block[i * columns + c] = y(i, c);
    }
    for (int k = 0; k < settings.iterations; ++k) smoothing.solve(block, columns);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < columns; ++c) y(i, c) = block[i * columns + c];
    }
  };

  // Skin weights per welded vertex (mean over seam copies), by joint.
  std::vector<std::uint32_t> used;
  {
    std::vector<bool> is_used(joint_count, false);
    for (std::size_t k = 0; k < skin.joints.size(); ++k) {
      if (skin.weights[k] != 0) is_used[skin.joints[k]] = true;
    }
    for (std::uint32_t j = 0; j < joint_count; ++j) {
      if (is_used[j]) used.push_back(j);
    }
  }
  std::vector<std::int32_t> column_of(joint_count, -1);
  for (std::size_t c = 0; c < used.size(); ++c) column_of[used[c]] = static_cast<std::int32_t>(c);
  Eigen::MatrixXd weights = Eigen::MatrixXd::Zero(n, used.size());
  for (std::size_t v = 0; v < rest.size(); ++v) {
    const std::size_t w = welding.welded_of[v];
    for (std::uint32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k) {
      weights(w, column_of[skin.joints[k]]) += double(skin.weights[k]) / members[w];
    }
  }

  // Smoothed moments (joint-independent): p, second moment.
  Eigen::MatrixXd moments(n, 9);
  for (std::size_t i = 0; i < n; ++i) {
    const Eigen::Vector3d& x = u[i];
    moments.row(i) << x.x(), x.y(), x.z(), x.x() * x.x(), x.x() * x.y(), x.x() * x.z(), x.y() * x.y(), x.y() * x.z(),
        x.z() * x.z();
  }
  smooth(moments);

  // Per welded vertex candidates (psi, joint, 10 values) for v0, or (psi, joint) for v1/v2.
  struct Candidate {
    double psi;
    std::uint32_t joint;
    std::array<double, kOmega> omega;
  };
  std::vector<std::vector<Candidate>> candidates(n);
  const bool full = settings.variant == DdmVariant::V0;
  if (full) {
    for (std::size_t c = 0; c < used.size(); ++c) {
      Eigen::MatrixXd rhs(n, kOmega);
      for (std::size_t i = 0; i < n; ++i) {
        const double w = weights(i, c);
        const Eigen::Vector3d& x = u[i];
        rhs.row(i) << w * x.x() * x.x(), w * x.x() * x.y(), w * x.x() * x.z(), w * x.y() * x.y(), w * x.y() * x.z(),
            w * x.z() * x.z(), w * x.x(), w * x.y(), w * x.z(), w;
      }
      smooth(rhs);
      for (std::size_t i = 0; i < n; ++i) {
        if (rhs(i, 9) >= settings.min_weight && rhs(i, 9) > 0) {
          Candidate candidate{rhs(i, 9), used[c], {}};
          for (int k = 0; k < kOmega; ++k) candidate.omega[k] = rhs(i, k);
          candidates[i].push_back(candidate);
        }
      }
    }
  } else {
    Eigen::MatrixXd psi = weights;
    smooth(psi);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < used.size(); ++c) {
        if (psi(i, c) >= settings.min_weight && psi(i, c) > 0) candidates[i].push_back({psi(i, c), used[c], {}});
      }
    }
  }

  // Keep the largest, renormalise, decide the fallback.
  std::size_t width = 1;
  for (auto& list : candidates) {
    std::sort(list.begin(), list.end(), [](const Candidate& x, const Candidate& y) {
      return x.psi != y.psi ? x.psi > y.psi : x.joint < y.joint;
    });
    if (list.size() > std::size_t(settings.max_influences)) list.resize(settings.max_influences);
    width = std::max(width, list.size());
  }
  width_ = width;
  const std::size_t count = rest.size();
  joints_.assign(count * width, 0);
  psi_.assign(count * width, 0.0f);
  omega_.assign(full ? count * width * kOmega : 0, 0.0f);
  centre_.assign(count * 3, 0.0f);
  covariance_.assign(settings.variant == DdmVariant::V1 ? count * 6 : 0, 0.0f);
  lever_.assign(settings.variant == DdmVariant::V3 ? (count + 7) / 8 * 24 : 0, 0.0f);
  linear_fallback_.assign(count, 0);

  double size2 = 0;
  {
    Eigen::AlignedBox3d box;
    for (const auto& x : u) box.extend(x);
    if (!u.empty()) size2 = box.diagonal().squaredNorm();
  }
  std::vector<std::array<double, 6>> covariance(n);
  std::vector<Eigen::Vector3d> centre(n);
  std::vector<std::uint8_t> fallback(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    auto& list = candidates[i];
    double total = 0;
    for (const Candidate& c : list) total += c.psi;
    Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    if (full) {
      for (Candidate& c : list) {
        for (double& x : c.omega) x /= total;
        second(0, 0) += c.omega[0], second(0, 1) += c.omega[1], second(0, 2) += c.omega[2];
        second(1, 1) += c.omega[3], second(1, 2) += c.omega[4], second(2, 2) += c.omega[5];
        p += Eigen::Vector3d(c.omega[6], c.omega[7], c.omega[8]);
      }
      second(1, 0) = second(0, 1), second(2, 0) = second(0, 2), second(2, 1) = second(1, 2);
    } else {
      // B rows sum to 1: the moments need no renormalisation.
      p = moments.block<1, 3>(i, 0).transpose();
      second << moments(i, 3), moments(i, 4), moments(i, 5), moments(i, 4), moments(i, 6), moments(i, 7), moments(i, 5),
          moments(i, 7), moments(i, 8);
    }
    for (Candidate& c : list) c.psi /= total;
    if (full) {
      // Centre each Omega on p (in double): run time then needs no q p^T subtraction, which in
      // float would cancel catastrophically far from the origin.
      //   A' = A - b p^T - p b^T + c p p^T,  b' = b - c p,  c' = c
      for (Candidate& c : list) {
        const Eigen::Vector3d b(c.omega[6], c.omega[7], c.omega[8]);
        const double w = c.omega[9];
        const int index[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
        for (int r = 0; r < 3; ++r) {
          for (int k = r; k < 3; ++k) c.omega[index[r][k]] += -b[r] * p[k] - p[r] * b[k] + w * p[r] * p[k];
        }
        for (int r = 0; r < 3; ++r) c.omega[6 + r] = b[r] - w * p[r];
      }
    }
    const Eigen::Matrix3d cov = second - p * p.transpose();
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(cov, Eigen::EigenvaluesOnly);
    const Eigen::Vector3d values = eigen.eigenvalues();  // ascending
    if (list.empty() || !(values(2) > 1e-14 * size2) || !(values(1) > 1e-6 * values(2))) fallback[i] = 1;
    centre[i] = p;
    covariance[i] = {cov(0, 0), cov(0, 1), cov(0, 2), cov(1, 1), cov(1, 2), cov(2, 2)};
  }
  for (std::size_t v = 0; v < count; ++v) {
    const std::size_t i = welding.welded_of[v];
    const auto& list = candidates[i];
    for (std::size_t s = 0; s < list.size(); ++s) {
      joints_[v * width + s] = static_cast<std::uint16_t>(list[s].joint);
      psi_[v * width + s] = static_cast<float>(list[s].psi);
      if (full) {
        for (int k = 0; k < kOmega; ++k) omega_[(v * width + s) * kOmega + k] = static_cast<float>(list[s].omega[k]);
      }
    }
    for (int k = 0; k < 3; ++k) centre_[3 * v + k] = static_cast<float>(centre[i][k]);
    if (!lever_.empty()) {
      for (int k = 0; k < 3; ++k) lever_[24 * (v / 8) + 8 * k + v % 8] = static_cast<float>(double(rest[v][k]) - centre[i][k]);
    }
    if (!covariance_.empty()) {
      for (int k = 0; k < 6; ++k) covariance_[6 * v + k] = static_cast<float>(covariance[i][k]);
    }
    linear_fallback_[v] = fallback[i];
    if (list.empty()) {  // no smoothed weight survived: the original skin, linearly
      // Rare (min_weight larger than every smoothed weight); keep the first original influence.
      joints_[v * width] = static_cast<std::uint16_t>(skin.offsets[v] < skin.offsets[v + 1] ? skin.joints[skin.offsets[v]] : 0);
      psi_[v * width] = 1.0f;
      linear_fallback_[v] = 1;
    }
  }
}

namespace {

// The reference loop, vertex by vertex with Eigen: every variant, rotations when not null.
void evaluate_reference(const ddm::BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end,
                        Vec3f* positions, Mat3f* rotations) {
  const std::size_t width = bind.width;
  const DdmVariant variant = bind.variant;
  for (std::size_t v = begin; v < end; ++v) {
    const Vec3f& x = bind.rest[v];
    const std::uint16_t* joints = bind.joints + v * width;
    const float* psi = bind.psi + v * width;
    Mat3f rotation = Mat3f::Identity();
    if (bind.linear_fallback[v]) {
      positions[v] = ddm::blend_linearly(skinning, joints, psi, width, x);
    } else if (variant == DdmVariant::V0) {
      Mat3f q_bar = Mat3f::Zero();
      Vec3f q = Vec3f::Zero();
      const Vec3f p(bind.centre[3 * v], bind.centre[3 * v + 1], bind.centre[3 * v + 2]);
      const float* omega = bind.omega + v * width * ddm::kOmega;
      for (std::size_t s = 0; s < width; ++s, omega += ddm::kOmega) {
        if (omega[9] == 0.0f) continue;
        const Mat4f& m = skinning[joints[s]];
        const auto l = m.topLeftCorner<3, 3>();
        const Vec3f t = l * p + m.topRightCorner<3, 1>();  // the joint's matrix about p
        Mat3f a;
        a << omega[0], omega[1], omega[2], omega[1], omega[3], omega[4], omega[2], omega[4], omega[5];
        const Vec3f b(omega[6], omega[7], omega[8]);
        q_bar.noalias() += l * a;
        q_bar.noalias() += t * b.transpose();
        q.noalias() += l * b + omega[9] * t;
      }
      rotation = nearest_rotation(q_bar);
      positions[v] = rotation * (x - p) + q;
    } else {
      Eigen::Matrix<float, 3, 4> blend = Eigen::Matrix<float, 3, 4>::Zero();
      for (std::size_t s = 0; s < width; ++s) {
        if (psi[s] == 0.0f) continue;
        blend += psi[s] * skinning[joints[s]].topRows<3>();
      }
      const Vec3f p(bind.centre[3 * v], bind.centre[3 * v + 1], bind.centre[3 * v + 2]);
      const Mat3f l = blend.leftCols<3>();
      if (variant == DdmVariant::V1) {
        const float* c = bind.covariance + 6 * v;
        Mat3f cov;
        cov << c[0], c[1], c[2], c[1], c[3], c[4], c[2], c[4], c[5];
        rotation = nearest_rotation(l * cov);
      } else if (variant == DdmVariant::V3) {
        const Eigen::Map<const Eigen::Vector4f> first(bind.joint_quaternions + 4 * joints[0]);
        Eigen::Vector4f sum = Eigen::Vector4f::Zero();
        for (std::size_t s = 0; s < width; ++s) {
          const Eigen::Map<const Eigen::Vector4f> q(bind.joint_quaternions + 4 * joints[s]);
          sum += (q.dot(first) < 0 ? -psi[s] : psi[s]) * q;
        }
        rotation = Eigen::Quaternionf(sum).normalized().toRotationMatrix();
      } else {
        rotation = nearest_rotation(l);
      }
      positions[v] = rotation * (x - p) + l * p + blend.col(3);
    }
    if (rotations) rotations[v] = rotation;
  }
}

void evaluate_v3_reference(const ddm::BindView& bind, const Mat4f* skinning, std::size_t begin, std::size_t end,
                           Vec3f* positions) {
  evaluate_reference(bind, skinning, begin, end, positions, nullptr);
}

void nearest_rotations_reference(const Mat3f* m, Mat3f* r, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k) r[k] = nearest_rotation(m[k]);
}

}  // namespace

namespace ddm {
extern const Table reference = {evaluate_reference, evaluate_v3_reference, nearest_rotations_reference};
WOBBLE_SIMD_DEFINE_TABLE_FOR
}  // namespace ddm

void DirectDeltaMush::evaluate(std::span<const Mat4f> skinning, std::span<Vec3f> positions, ThreadPool* pool,
                               std::span<Mat3f> rotations) const {
  if (positions.size() != rest_.size()) {
    fail_plain("ddm: bind data was computed from another mesh ({}); got {} positions", fingerprint_.describe(),
               positions.size());
  }
  if (skinning.size() < joint_count_) fail_plain("ddm: {} skinning matrices for {} joints", skinning.size(), joint_count_);
  const bool with_rotations = rotations.size() == positions.size();
  const std::size_t width = width_;
  const DdmVariant variant = settings_.variant;
  // v3: each joint's rotation as a unit quaternion (x, y, z, w), once per frame.
  std::vector<float> quaternions;
  if (variant == DdmVariant::V3) {
    quaternions.resize(4 * joint_count_);
    for (std::size_t j = 0; j < joint_count_; ++j) {
      const Eigen::Quaternionf q(nearest_rotation(skinning[j].topLeftCorner<3, 3>()));
      for (int c = 0; c < 4; ++c) quaternions[4 * j + c] = q.coeffs()[c];
    }
  }
  const ddm::BindView view{variant,      width,          rest_.data(),       joints_.data(),          omega_.data(),
                           psi_.data(),  centre_.data(), covariance_.data(), linear_fallback_.data(), quaternions.data(),
                           lever_.data()};
  const ddm::Table& kernels = ddm::table();
  if (variant == DdmVariant::V3 && !with_rotations) {
    parallel_chunks(pool, positions.size(), kGrain, [&](std::size_t begin, std::size_t end) {
      kernels.evaluate_v3(view, skinning.data(), begin, end, positions.data());
      for (std::size_t v = begin; v < end; ++v) {
        if (!linear_fallback_[v]) continue;
        positions[v] = ddm::blend_linearly(skinning.data(), joints_.data() + v * width, psi_.data() + v * width, width,
                                           rest_[v]);
      }
    });
    return;
  }
  // v3 reporting rotations (a test path) takes the reference loop: its kernel never forms the matrix.
  const auto evaluate = variant == DdmVariant::V3 ? ddm::reference.evaluate : kernels.evaluate;
  parallel_chunks(pool, positions.size(), kGrain, [&](std::size_t begin, std::size_t end) {
    evaluate(view, skinning.data(), begin, end, positions.data(), with_rotations ? rotations.data() : nullptr);
  });
}

namespace {

// One thread's cost of a vertex (the thread rule, pool_worth_using; bench_threads at 100,000
// vertices, docs/benchmarks.md).
constexpr double kNanosecondsPerVertex = 117.0;

class DirectDeltaMushDeformer final : public Deformer {
 public:
  explicit DirectDeltaMushDeformer(const DirectDeltaMushSettings& settings) : settings_(settings) {}
  const DeformerDescription& description() const override { return direct_delta_mush_description(); }
  void update(const DeformerSettings&) override {}  // every parameter is a bind parameter

  void bind(const Character& character) override {
    require_skinned(character, "ddm");
    ddm_.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), settings_);
    skin_ = PackedSkin::from(character.skin);
    bound_ = &character;
  }

  // ddm replaces linear blend skinning: out = DDM + (input - LBS), so that effects stacked
  // between the base skinning and ddm are kept.
  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    const Mesh& mesh = frame.character.mesh;
    if (&frame.character != bound_) {
      ddm_.check_same_mesh(mesh.positions, mesh.triangles);
      bound_ = &frame.character;
    }
    ThreadPool* pool = pool_worth_using(frame.pool, positions.size(), kNanosecondsPerVertex);
    ddm_positions_.resize(positions.size());
    lbs_positions_.resize(positions.size());
    ddm_.evaluate(frame.pose.skinning, ddm_positions_, pool);
    LbsJob job;
    job.skinning_matrices = frame.pose.skinning;
    job.skin = &skin_;
    job.in_positions = mesh.positions;
    job.out_positions = lbs_positions_;
    if (std::string problem = job.Validate(); !problem.empty()) fail_plain("ddm: {}", problem);
    job.Run(pool);
    for (std::size_t v = 0; v < positions.size(); ++v) positions[v] = ddm_positions_[v] + (positions[v] - lbs_positions_[v]);
    if (!normals.empty() && normals.size() == positions.size()) {
      area_weighted_normals(mesh.triangles, positions, normals, normal_scratch_);
    }
  }

 private:
  DirectDeltaMushSettings settings_;
  DirectDeltaMush ddm_;
  PackedSkin skin_;
  const Character* bound_ = nullptr;
  std::vector<Vec3f> ddm_positions_, lbs_positions_, normal_scratch_;
};

}  // namespace

const DeformerDescription& direct_delta_mush_description() {
  static const DeformerDescription description = [] {
    describe::Fields<DirectDeltaMushSettings> f;
    f.choice("variant", [](auto& s) -> auto& { return s.variant; },
             std::vector<std::pair<std::string, DdmVariant>>{
                 {"v0", DdmVariant::V0}, {"v1", DdmVariant::V1}, {"v2", DdmVariant::V2}, {"v3", DdmVariant::V3}})
        .flag("ddm-variant").bind()
        .help("v0 is the paper's full model; v1, v2, v3 are wobble's own cheaper approximations: v1 blends the "
              "smoothed moments with one weight per joint, v2 also drops the smoothed covariance, v3 also replaces "
              "the rotation fit by a quaternion blend");
    f.integer("iterations", [](auto& s) -> auto& { return s.iterations; })
        .flag("ddm-iterations").bind().range(1, 1000).soft(1, 50).help("implicit smoothing steps p");
    f.number("step", [](auto& s) -> auto& { return s.step; })
        .flag("ddm-step").bind().above(0, 1e6).soft(0.1, 10).help("smoothing lambda");
    f.choice("smoothing", [](auto& s) -> auto& { return s.smoothing; }, mush_smoothing_names())
        .flag("ddm-smoothing").bind().help("smoothing weights of the Laplacian");
    f.integer("max_influences", [](auto& s) -> auto& { return s.max_influences; })
        .flag("ddm-max-influences").bind().range(1, 64).help("smoothed joints kept per vertex");
    f.number("min_weight", [](auto& s) -> auto& { return s.min_weight; })
        .flag("ddm-min-weight").bind().below(0, 1).soft(0, 0.01).help("smoothed weights below this are dropped");
    return f.deformer("ddm", DeformerStage::Post, "Direct Delta Mush (replaces linear blending; keeps earlier effects)",
                      [](const DeformerSettings& s) {
                        return std::unique_ptr<Deformer>(
                            std::make_unique<DirectDeltaMushDeformer>(s.as<DirectDeltaMushSettings>()));
                      });
  }();
  return description;
}

}  // namespace wobble
