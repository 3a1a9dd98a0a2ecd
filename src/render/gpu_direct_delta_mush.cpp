// Direct Delta Mush on the GPU: one kernel per vertex (render/kernel_shaders.cpp), then normals.
#include <Eigen/Geometry>

#include <wobble/error.hpp>

#include "render/data_texture.hpp"
#include "render/gpu_post_deformer.hpp"
#include "render/kernel_shaders.hpp"
#include "render/shaders.hpp"
#include "core/fail.hpp"

namespace wobble::render {

namespace {

int variant_number(DdmVariant variant) {
  switch (variant) {
    case DdmVariant::V0: return 0;
    case DdmVariant::V1: return 1;
    case DdmVariant::V2: return 2;
    case DdmVariant::V3: return 3;
  }
  return 0;
}

std::string kernel_defines(DdmVariant variant) {
  return "#define DDM_VARIANT " + std::to_string(variant_number(variant)) + "\n";
}
std::string kernel_source() {
  return std::string(shaders::kSkinningMatrices) + shaders::kRotationFunctions + shaders::kDirectDeltaMushKernel;
}

// The layouts of kDirectDeltaMushKernel: per vertex (p, fallback), (u - p, 0) [, covariance in
// two texels for v1]; per slot [Omega in 2.5 texels for v0,] then (joint, psi) in z, w.
std::vector<float> vertex_table(const DirectDeltaMushTables& ddm) {
  const std::size_t count = ddm.rest.size(), texels = ddm.variant == DdmVariant::V1 ? 4 : 2;
  std::vector<float> table(4 * texels * count, 0.0f);
  for (std::size_t v = 0; v < count; ++v) {
    float* t = table.data() + 4 * texels * v;
    for (int k = 0; k < 3; ++k) {
      t[k] = ddm.centre[3 * v + k];
      t[4 + k] = static_cast<float>(double(ddm.rest[v][k]) - double(ddm.centre[3 * v + k]));
    }
    t[3] = ddm.linear_fallback[v] ? 1.0f : 0.0f;
    if (texels == 4) {
      for (int k = 0; k < 6; ++k) t[8 + k] = ddm.covariance[6 * v + k];
    }
  }
  return table;
}

std::vector<float> slot_table(const DirectDeltaMushTables& ddm) {
  const std::size_t slots = ddm.rest.size() * ddm.width, texels = ddm.variant == DdmVariant::V0 ? 3 : 1;
  std::vector<float> table(4 * texels * slots, 0.0f);
  for (std::size_t s = 0; s < slots; ++s) {
    float* t = table.data() + 4 * texels * s;
    if (texels == 3) {
      for (int k = 0; k < 10; ++k) t[k] = ddm.omega[10 * s + k];
    }
    t[4 * texels - 2] = static_cast<float>(ddm.joints[s]);
    t[4 * texels - 1] = ddm.psi[s];
  }
  return table;
}

}  // namespace

GpuDirectDeltaMush::GpuDirectDeltaMush(KernelContext& context, const DirectDeltaMushTables& ddm,
                                       std::span<const Triangle> triangles)
    : GpuPostDeformer(context, ddm.rest.size(), triangles),
      kernel_(context, "Direct Delta Mush kernel", kernel_defines(ddm.variant), kernel_source().c_str(),
              {"u_matrices", "u_vertices", "u_slots", "u_quaternions"}, {}),
      variant_(ddm.variant),
      width_(ddm.width),
      joint_count_(ddm.joint_count) {
  const std::vector<float> vertices = vertex_table(ddm);
  upload_data_texture(vertices_, vertices.data(), vertices.size() / 4, 4);
  const std::vector<float> slots = slot_table(ddm);
  upload_data_texture(slots_, slots.data(), slots.size() / 4, 4);
  quaternion_table_.assign(4 * std::max<std::size_t>(1, joint_count_), 0.0f);
  upload_data_texture(quaternions_, quaternion_table_.data(), quaternion_table_.size() / 4, 4);
}

GpuDirectDeltaMush::~GpuDirectDeltaMush() {
  const GLuint textures[] = {vertices_, slots_, quaternions_};
  glDeleteTextures(3, textures);
}

void GpuDirectDeltaMush::run(KernelContext& context, const GpuFrame& frame) {
  if (frame.skinning.size() < joint_count_) {
    fail_plain("renderer: {} skinning matrices for Direct Delta Mush bound to {} joints", frame.skinning.size(),
               joint_count_);
  }
  if (variant_ == DdmVariant::V3) {
    // Each joint's rotation, once per frame, for the per-vertex quaternion blend.
    for (std::size_t j = 0; j < joint_count_; ++j) {
      const Eigen::Quaternionf q(nearest_rotation(frame.skinning[j].topLeftCorner<3, 3>()));
      for (int c = 0; c < 4; ++c) quaternion_table_[4 * j + c] = q.coeffs()[c];
    }
    upload_data_texture(quaternions_, quaternion_table_.data(), quaternion_table_.size() / 4, 4);
  }
  kernel_.use();
  glUniform1i(kernel_.uniform("u_width"), static_cast<GLint>(width_));
  const GLuint tables[] = {frame.matrices, vertices_, slots_, quaternions_};
  kernel_.run(context, tables, {}, positions_);
  normal_kernel_.run(context, positions_, normals_);
}

}  // namespace wobble::render
