#include <wobble/lbs.hpp>

#include <cmath>
#include <immintrin.h>

#include <fmt/core.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "deform/deformers.hpp"
#include "deform/describe.hpp"

namespace wobble {

namespace {

constexpr std::size_t kGrain = 16384;  // vertices per chunk: large enough to amortise scheduling

// Straightforward per-vertex loop (Eigen, scalar). Also the fallback without AVX2.
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

// AVX2/FMA kernel. The blended matrix is kept as four columns in two 256-bit registers
// (columns 0-1, columns 2-3) read straight from the column-major Mat4f palette.
template <std::uint32_t kWidth>
__attribute__((target("avx2,fma"))) void run_avx2(const LbsJob& job, std::size_t begin, std::size_t end) {
  const std::uint32_t width = kWidth ? kWidth : job.skin->width;
  const float* palette = job.skinning_matrices.data()->data();
  const std::uint16_t* joints = job.skin->joints.data();
  const float* weights = job.skin->weights.data();
  const float* in_p = job.in_positions.data()->data();
  float* out_p = job.out_positions.data()->data();
  const bool with_normals = !job.in_normals.empty();
  const float* in_n = with_normals ? job.in_normals.data()->data() : nullptr;
  float* out_n = with_normals ? job.out_normals.data()->data() : nullptr;
  const bool normalize = job.normalize_normals;

  for (std::size_t v = begin; v < end; ++v) {
    __m256 c01 = _mm256_setzero_ps();
    __m256 c23 = _mm256_setzero_ps();
    for (std::uint32_t k = 0; k < width; ++k) {
      const __m256 w = _mm256_broadcast_ss(weights + v * width + k);
      const float* m = palette + 16 * joints[v * width + k];
      c01 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m), c01);
      c23 = _mm256_fmadd_ps(w, _mm256_loadu_ps(m + 8), c23);
    }
    const __m128 c0 = _mm256_castps256_ps128(c01), c1 = _mm256_extractf128_ps(c01, 1);
    const __m128 c2 = _mm256_castps256_ps128(c23), c3 = _mm256_extractf128_ps(c23, 1);
    const float* p = in_p + 3 * v;
    __m128 r = _mm_fmadd_ps(c0, _mm_set1_ps(p[0]), c3);
    r = _mm_fmadd_ps(c1, _mm_set1_ps(p[1]), r);
    r = _mm_fmadd_ps(c2, _mm_set1_ps(p[2]), r);
    __m128 rn;
    if (with_normals) {
      const float* n = in_n + 3 * v;
      rn = _mm_mul_ps(c0, _mm_set1_ps(n[0]));
      rn = _mm_fmadd_ps(c1, _mm_set1_ps(n[1]), rn);
      rn = _mm_fmadd_ps(c2, _mm_set1_ps(n[2]), rn);
      if (normalize) {
        const __m128 length2 = _mm_dp_ps(rn, rn, 0x7F);  // xyz only
        const __m128 length = _mm_sqrt_ps(length2);
        const __m128 safe = _mm_cmpgt_ps(length, _mm_setzero_ps());
        rn = _mm_blendv_ps(rn, _mm_div_ps(rn, length), safe);
      }
    }
    if (v + 1 < end) {
      // A 4-wide store writes one float into the next vertex, which the next iteration rewrites.
      _mm_storeu_ps(out_p + 3 * v, r);
      if (with_normals) _mm_storeu_ps(out_n + 3 * v, rn);
    } else {
      // The range's last vertex: never touch memory past it (it may belong to another thread).
      alignas(16) float tmp[4];
      _mm_store_ps(tmp, r);
      out_p[3 * v] = tmp[0], out_p[3 * v + 1] = tmp[1], out_p[3 * v + 2] = tmp[2];
      if (with_normals) {
        _mm_store_ps(tmp, rn);
        out_n[3 * v] = tmp[0], out_n[3 * v + 1] = tmp[1], out_n[3 * v + 2] = tmp[2];
      }
    }
  }
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

}  // namespace

std::string LbsJob::Validate() const {
  if (!skin) return "no skin";
  const std::size_t n = in_positions.size();
  if (skin->vertex_count() != n) return fmt::format("skin has {} vertices, positions {}", skin->vertex_count(), n);
  if (out_positions.size() != n) return fmt::format("output has room for {} positions, needs {}", out_positions.size(), n);
  if (!in_normals.empty() && in_normals.size() != n) return fmt::format("{} normals for {} positions", in_normals.size(), n);
  if (in_normals.size() != out_normals.size()) return "input and output normals differ in size";
  for (std::uint16_t j : skin->joints) {
    if (j >= skinning_matrices.size()) return fmt::format("skin uses joint {}, only {} matrices", j, skinning_matrices.size());
  }
  return {};
}

void LbsJob::Run(std::size_t begin, std::size_t end) const {
  if (begin >= end) return;
  if (!cpu_has_avx2()) return run_scalar(*this, begin, end);
  switch (skin->width) {
    case 1: return run_avx2<1>(*this, begin, end);
    case 2: return run_avx2<2>(*this, begin, end);
    case 3: return run_avx2<3>(*this, begin, end);
    case 4: return run_avx2<4>(*this, begin, end);
    case 8: return run_avx2<8>(*this, begin, end);
    default: return run_avx2<0>(*this, begin, end);
  }
}

void LbsJob::Run(ThreadPool* pool) const {
  const std::size_t n = in_positions.size();
  parallel_for(pool, n, kGrain, [this](std::size_t begin, std::size_t end) { Run(begin, end); });
}

void lbs_reference(const LbsJob& job, std::size_t begin, std::size_t end) { run_scalar(job, begin, end); }

namespace {

class LbsDeformer final : public Deformer {
 public:
  const DeformerDescription& description() const override { return lbs_description(); }
  void update(const DeformerSettings&) override {}

  void bind(const Character& character) override {
    require_skinned(character, name());
    skin_ = PackedSkin::from(character.skin);
  }

  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    LbsJob job;
    job.skinning_matrices = frame.pose.skinning;
    job.skin = &skin_;
    // The rest mesh is read from the character the stack was bound to, not copied at bind.
    const Mesh& rest = frame.character.mesh;
    job.in_positions = rest.positions;
    job.out_positions = positions;
    if (!normals.empty() && rest.normals.size() == positions.size()) {
      job.in_normals = rest.normals;
      job.out_normals = normals;
    }
    if (std::string problem = job.Validate(); !problem.empty()) fail_plain("lbs: {}", problem);
    job.Run(frame.pool);
  }

 private:
  PackedSkin skin_;
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
