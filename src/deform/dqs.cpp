#include <wobble/dqs.hpp>

#include <fmt/core.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"
#include "deform/describe.hpp"
#include "deform/skinning_job_frame.hpp"
#include "deform/vertex_costs.hpp"

namespace wobble {

namespace {
constexpr std::size_t kGrain = 8192;
constexpr float kRigidTolerance = 1e-5f;
}  // namespace

DualQuaternion DualQuaternion::from_rigid(const Quatf& rotation, const Vec3f& translation) {
  DualQuaternion dq;
  dq.real = rotation.normalized();
  // dual = 0.5 * (0, t) * real
  const Quatf t(0, translation.x(), translation.y(), translation.z());
  dq.dual.coeffs() = 0.5f * (t * dq.real).coeffs();
  return dq;
}

void DqsJoints::set(std::span<const Mat4f> skinning_matrices) {
  const std::size_t n = skinning_matrices.size();
  rigid.resize(n);
  std::vector<Mat3f> stretches(n, Mat3f::Identity());
  bool any_stretch = false;
  for (std::size_t j = 0; j < n; ++j) {
    const Mat3f linear = skinning_matrices[j].topLeftCorner<3, 3>();
    Mat3f rotation = linear;
    if (!(linear.transpose() * linear).isIdentity(kRigidTolerance) || linear.determinant() < 0) {
      // Polar decomposition A = R S, with R the closest proper rotation.
      Eigen::JacobiSVD<Mat3f> svd(linear, Eigen::ComputeFullU | Eigen::ComputeFullV);
      Mat3f u = svd.matrixU();
      const Mat3f v = svd.matrixV();
      if ((u * v.transpose()).determinant() < 0) u.col(2) = -u.col(2);
      rotation = u * v.transpose();
      stretches[j] = rotation.transpose() * linear;
      any_stretch = true;
    }
    rigid[j] = DualQuaternion::from_rigid(Quatf(rotation), skinning_matrices[j].topRightCorner<3, 1>());
  }
  if (any_stretch) {
    stretch = std::move(stretches);
  } else {
    stretch.clear();
  }
}

std::string DqsJob::validate() const {
  if (!skin || !joints) return "no skin or no joint transforms";
  const std::size_t n = in_positions.size();
  if (skin->vertex_count() != n) return fmt::format("skin has {} vertices, positions {}", skin->vertex_count(), n);
  if (out_positions.size() != n)
    return fmt::format("output has room for {} positions, needs {}", out_positions.size(), n);
  if (in_normals.size() != out_normals.size() || (!in_normals.empty() && in_normals.size() != n)) {
    return "normals do not match the positions";
  }
  for (std::uint16_t j : skin->joints) {
    if (j >= joints->rigid.size())
      return fmt::format("skin uses joint {}, only {} transforms", j, joints->rigid.size());
  }
  return {};
}

void DqsJob::run(std::size_t begin, std::size_t end) const {
  const std::uint32_t width = skin->width;
  const bool with_normals = !in_normals.empty();
  const bool with_stretch = !joints->stretch.empty();
  for (std::size_t v = begin; v < end; ++v) {
    const std::uint16_t* js = &skin->joints[v * width];
    const float* ws = &skin->weights[v * width];
    const DualQuaternion& pivot = joints->rigid[js[0]];
    Vec4f real = Vec4f::Zero(), dual = Vec4f::Zero();
    Mat3f stretch = Mat3f::Zero();
    for (std::uint32_t k = 0; k < width; ++k) {
      const DualQuaternion& dq = joints->rigid[js[k]];
      // Antipodal quaternions describe the same rotation: blend along the pivot's hemisphere.
      const float w = dq.real.coeffs().dot(pivot.real.coeffs()) < 0 ? -ws[k] : ws[k];
      real += w * dq.real.coeffs();
      dual += w * dq.dual.coeffs();
      if (with_stretch) stretch += ws[k] * joints->stretch[js[k]];
    }
    const float length = real.norm();
    real /= length;
    dual /= length;
    const Quatf q_real(real[3], real[0], real[1], real[2]);
    const Quatf q_dual(dual[3], dual[0], dual[1], dual[2]);
    const Vec3f translation = 2.0f * (q_dual * q_real.conjugate()).vec();
    const Mat3f rotation = q_real.toRotationMatrix();
    Vec3f p = in_positions[v];
    if (with_stretch) p = stretch * p;
    out_positions[v] = rotation * p + translation;
    if (with_normals) {
      Vec3f n = in_normals[v];
      if (with_stretch) n = stretch.inverse().transpose() * n;
      n = rotation * n;
      const float n_length = n.norm();
      out_normals[v] = n_length > 0 ? Vec3f(n / n_length) : n;
    }
  }
}

void DqsJob::run(ThreadPool* pool) const {
  const std::size_t n = in_positions.size();
  parallel_chunks(pool, n, kGrain, [this](std::size_t begin, std::size_t end) { run(begin, end); });
}

namespace {

class DqsDeformer final : public deform::PackedSkinDeformer {
 public:
  const DeformerDescription& description() const override { return dqs_description(); }

  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    joints_.set(frame.pose.skinning);
    DqsJob job;
    job.joints = &joints_;
    job.skin = &skin_;
    deform::run_skinning_frame(job, frame, positions, normals, "dqs", deform::vertex_cost_ns::kDqs);
  }

 private:
  DqsJoints joints_;
};

}  // namespace

const DeformerDescription& dqs_description() {
  static const DeformerDescription description = describe::Fields<describe::NoParameters>().deformer(
      "dqs", DeformerStage::Base, "dual-quaternion skinning",
      [](const DeformerSettings&) { return std::unique_ptr<Deformer>(std::make_unique<DqsDeformer>()); });
  return description;
}

}  // namespace wobble
