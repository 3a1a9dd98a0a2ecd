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
#include "deform/direct_delta_mush_bind.hpp"
#include "deform/direct_delta_mush_kernels.hpp"
#include "deform/vertex_costs.hpp"

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

namespace {

// Everything bind reads: settings, counts, indices, finite positions.
void check_bind_inputs(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const Skin& skin,
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
}

}  // namespace

void DirectDeltaMush::bind(std::span<const Vec3f> rest, std::span<const Triangle> triangles, const Skin& skin,
                           std::size_t joint_count, const DirectDeltaMushSettings& settings) {
  check_bind_inputs(rest, triangles, skin, joint_count, settings);
  settings_ = settings;
  fingerprint_ = MeshFingerprint::of(rest, triangles);
  joint_count_ = joint_count;
  rest_.assign(rest.begin(), rest.end());

  ddm::BindArrays arrays = ddm::bind_arrays(rest, triangles, skin, joint_count, settings);
  width_ = arrays.width;
  joints_ = std::move(arrays.joints);
  psi_ = std::move(arrays.psi);
  omega_ = std::move(arrays.omega);
  centre_ = std::move(arrays.centre);
  covariance_ = std::move(arrays.covariance);
  lever_ = std::move(arrays.lever);
  linear_fallback_ = std::move(arrays.linear_fallback);
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
  if (skinning.size() < joint_count_)
    fail_plain("ddm: {} skinning matrices for {} joints", skinning.size(), joint_count_);
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
  const ddm::BindView view{
      variant,      width,          rest_.data(),       joints_.data(),          omega_.data(),
      psi_.data(),  centre_.data(), covariance_.data(), linear_fallback_.data(), quaternions.data(),
      lever_.data()};
  const ddm::Table& kernels = ddm::table();
  if (variant == DdmVariant::V3 && !with_rotations) {
    parallel_chunks(pool, positions.size(), kGrain, [&](std::size_t begin, std::size_t end) {
      kernels.evaluate_v3(view, skinning.data(), begin, end, positions.data());
      for (std::size_t v = begin; v < end; ++v) {
        if (!linear_fallback_[v]) continue;
        positions[v] =
            ddm::blend_linearly(skinning.data(), joints_.data() + v * width, psi_.data() + v * width, width, rest_[v]);
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

class DirectDeltaMushDeformer final : public Deformer {
 public:
  explicit DirectDeltaMushDeformer(const DirectDeltaMushSettings& settings) : settings_(settings) {}
  const DeformerDescription& description() const override { return direct_delta_mush_description(); }
  void update(const DeformerSettings&) override {}  // every parameter is a bind parameter

  void bind(const Character& character) override {
    require_skinned(character, "ddm");
    ddm_.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(),
              settings_);
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
    ThreadPool* pool = pool_worth_using(frame.pool, positions.size(), deform::vertex_cost_ns::kDirectDeltaMush);
    ddm_positions_.resize(positions.size());
    lbs_positions_.resize(positions.size());
    ddm_.evaluate(frame.pose.skinning, ddm_positions_, pool);
    LbsJob job;
    job.skinning_matrices = frame.pose.skinning;
    job.skin = &skin_;
    job.in_positions = mesh.positions;
    job.out_positions = lbs_positions_;
    if (std::string problem = job.validate(); !problem.empty()) fail_plain("ddm: {}", problem);
    job.run(pool);
    for (std::size_t v = 0; v < positions.size(); ++v)
      positions[v] = ddm_positions_[v] + (positions[v] - lbs_positions_[v]);
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
    // One chain per parameter (key, accessor, unit, range, help), laid out by hand:
    // clang-format off
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
    // clang-format on
    return f.deformer(
        "ddm", DeformerStage::Post, "Direct Delta Mush (replaces linear blending; keeps earlier effects)",
        [](const DeformerSettings& s) {
          return std::unique_ptr<Deformer>(std::make_unique<DirectDeltaMushDeformer>(s.as<DirectDeltaMushSettings>()));
        });
  }();
  return description;
}

}  // namespace wobble
