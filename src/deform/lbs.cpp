#include <wobble/lbs.hpp>

#include <cmath>

#include <fmt/core.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"
#include "deform/describe.hpp"
#include "deform/skinning_job_frame.hpp"
#include "deform/lbs_kernels.hpp"
#include "deform/vertex_costs.hpp"

namespace wobble {

namespace {

constexpr std::size_t kGrain = 16384;  // the largest chunk (chunk_grain: smaller on small meshes)

// The straightforward per-vertex loop (Eigen, scalar): the reference the SIMD kernels are tested against.
void run_scalar(const LbsJob& job, std::size_t begin, std::size_t end) {
  const std::uint32_t width = job.skin->width;
  const bool with_normals = !job.in_normals.empty();
  for (std::size_t v = begin; v < end; ++v) {
    Eigen::Matrix<float, 3, 4> m = Eigen::Matrix<float, 3, 4>::Zero();
    for (std::uint32_t k = 0; k < width; ++k) {
      const float w = job.skin->weights[v * width + k];
      m += w * job.skinning_matrices[job.skin->joints[v * width + k]].topRows<3>();
    }
    job.out_positions[v] = m.leftCols<3>() * job.in_positions[v] + m.col(3);
    if (with_normals) {
      Vec3f n = m.leftCols<3>() * job.in_normals[v];
      if (job.normalize_normals) {
        const float length = n.norm();
        if (length > 0) n /= length;
      }
      job.out_normals[v] = n;
    }
  }
}

}  // namespace

std::string LbsJob::validate() const {
  if (!skin) return "no skin";
  const std::size_t n = in_positions.size();
  if (skin->vertex_count() != n) return fmt::format("skin has {} vertices, positions {}", skin->vertex_count(), n);
  if (out_positions.size() != n)
    return fmt::format("output has room for {} positions, needs {}", out_positions.size(), n);
  if (!in_normals.empty() && in_normals.size() != n)
    return fmt::format("{} normals for {} positions", in_normals.size(), n);
  if (in_normals.size() != out_normals.size()) return "input and output normals differ in size";
  for (std::uint16_t j : skin->joints) {
    if (j >= skinning_matrices.size())
      return fmt::format("skin uses joint {}, only {} matrices", j, skinning_matrices.size());
  }
  return {};
}

void LbsJob::run(std::size_t begin, std::size_t end) const {
  if (begin >= end) return;
  lbs_kernels::table().run(*this, begin, end);
}

void LbsJob::run(ThreadPool* pool) const {
  const std::size_t n = in_positions.size();
  parallel_chunks(pool, n, kGrain, [this](std::size_t begin, std::size_t end) { run(begin, end); });
}

namespace lbs_kernels {
extern const Table reference = {run_scalar};
WOBBLE_SIMD_DEFINE_TABLE_FOR
}  // namespace lbs_kernels

namespace {

class LbsDeformer final : public deform::PackedSkinDeformer {
 public:
  const DeformerDescription& description() const override { return lbs_description(); }

  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    LbsJob job;
    job.skinning_matrices = frame.pose.skinning;
    job.skin = &skin_;
    deform::run_skinning_frame(job, frame, positions, normals, "lbs", deform::vertex_cost_ns::kLbs);
  }
};

}  // namespace

const DeformerDescription& lbs_description() {
  static const DeformerDescription description = [] {
    DeformerDescription d = describe::Fields<describe::NoParameters>().deformer(
        "lbs", DeformerStage::Base, "linear blend skinning",
        [](const DeformerSettings&) { return std::unique_ptr<Deformer>(std::make_unique<LbsDeformer>()); });
    d.linear_blend_output = true;
    return d;
  }();
  return description;
}

}  // namespace wobble
