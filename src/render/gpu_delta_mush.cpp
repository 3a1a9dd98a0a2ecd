// Delta Mush on the GPU: the DeltaMushOperator's steps as kernels (render/kernel_shaders.cpp).
#include <cstring>

#include <wobble/error.hpp>

#include "render/data_texture.hpp"
#include "render/gpu_post_deformer.hpp"
#include "render/kernel_shaders.hpp"
#include "render/shaders.hpp"
#include "core/fail.hpp"

namespace wobble::render {

namespace {

// A float's bits (the kernels read them back with uintBitsToFloat); memcpy: Emscripten 3.1.6's
// library has no std::bit_cast.
std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

std::string skin_kernel_source() {
  return std::string(shaders::kSkinningMatrices) + shaders::kSkinningFunctions + shaders::kSkinKernel;
}

// Per welded vertex two texels: (members first, count, row first, count), (corners first, count,
// self weight's bits, keep input).
std::vector<std::uint32_t> weld_table(const DeltaMushOperator& mush) {
  const std::size_t n = mush.welded_count();
  std::vector<std::uint32_t> table(8 * n);
  for (std::size_t w = 0; w < n; ++w) {
    std::uint32_t* t = table.data() + 8 * w;
    t[0] = mush.member_offsets[w], t[1] = mush.member_offsets[w + 1] - t[0];
    t[2] = mush.row_offsets[w], t[3] = mush.row_offsets[w + 1] - t[2];
    t[4] = mush.corner_offsets[w], t[5] = mush.corner_offsets[w + 1] - t[4];
    t[6] = bits(mush.self_weights[w]), t[7] = mush.keep_input[w];
  }
  return table;
}

}  // namespace

GpuDeltaMush::GpuDeltaMush(KernelContext& context, const DeltaMushOperator& mush, std::size_t vertex_count,
                           std::span<const Triangle> triangles)
    : GpuPostDeformer(context, vertex_count, triangles),
      skin_(context, "Delta Mush input kernel", "", skin_kernel_source().c_str(),
            {"u_matrices", "u_skin", "u_pairs", "u_joints", "u_ranges", "u_rest"}, {}),
      gather_(context, "Delta Mush gather kernel", "", shaders::kMushGatherKernel, {"u_weld", "u_members"},
              {"u_input"}),
      sweep_(context, "Delta Mush sweep kernel", "", shaders::kMushSweepKernel, {"u_weld", "u_rows"}, {"u_smoothed"}),
      restore_(context, "Delta Mush restore kernel", "", shaders::kMushRestoreKernel, {"u_weld", "u_corners"},
               {"u_smoothed"}),
      scatter_(context, "Delta Mush scatter kernel", "", shaders::kMushScatterKernel, {"u_welded_of", "u_weld"},
               {"u_input", "u_mushed"}),
      iterations_(mush.iterations) {
  if (mush.welded_of.size() != vertex_count) {
    fail_plain("renderer: the Delta Mush operator has {} vertices, the mesh {}", mush.welded_of.size(), vertex_count);
  }
  const std::size_t n = mush.welded_count();
  const std::vector<std::uint32_t> weld = weld_table(mush);
  upload_data_texture(weld_, weld.data(), 2 * n, 4);
  upload_data_texture(members_, mush.members.data(), mush.members.size(), 1);
  std::vector<std::uint32_t> rows(2 * mush.row_columns.size());
  for (std::size_t k = 0; k < mush.row_columns.size(); ++k)
    rows[2 * k] = mush.row_columns[k], rows[2 * k + 1] = bits(mush.row_weights[k]);
  upload_data_texture(rows_, rows.data(), mush.row_columns.size(), 2);
  std::vector<std::uint32_t> corners(8 * mush.corner_next.size(), 0);
  for (std::size_t c = 0; c < mush.corner_next.size(); ++c) {
    const Vec3f& d = mush.corner_deltas[c];
    std::uint32_t* t = corners.data() + 8 * c;
    t[0] = mush.corner_next[c], t[1] = mush.corner_prev[c], t[2] = bits(d.x()), t[3] = bits(d.y()), t[4] = bits(d.z());
  }
  upload_data_texture(corners_, corners.data(), 2 * mush.corner_next.size(), 4);
  upload_data_texture(welded_of_, mush.welded_of.data(), vertex_count, 1);
  const KernelBackend backend = context.backend();
  input_.allocate(vertex_count, backend, true);
  smoothed_a_.allocate(n, backend, true);
  smoothed_b_.allocate(n, backend, true);
  restored_.allocate(n, backend, true);
}

GpuDeltaMush::~GpuDeltaMush() {
  const GLuint textures[] = {weld_, members_, rows_, corners_, welded_of_};
  glDeleteTextures(5, textures);
}

void GpuDeltaMush::run(KernelContext& context, const GpuFrame& frame) {
  skin_.use();
  glUniform1i(skin_.uniform("u_dynamic"), frame.dynamic);
  glUniform1f(skin_.uniform("u_inv_max_angle2"), frame.inv_max_angle2);
  const GLuint skin_tables[] = {frame.matrices, frame.skin, frame.pairs, frame.joints, frame.ranges, frame.rest};
  skin_.run(context, skin_tables, {}, input_);

  const Vec3f& centre = frame.lbs_centroid;  // positions relative to it: precision away from the origin
  gather_.use();
  glUniform3f(gather_.uniform("u_centre"), centre.x(), centre.y(), centre.z());
  const GLuint gather_tables[] = {weld_, members_};
  const FrameTable* input[] = {&input_};
  gather_.run(context, gather_tables, input, smoothed_a_);

  FrameTable* in = &smoothed_a_;
  FrameTable* out = &smoothed_b_;
  const GLuint sweep_tables[] = {weld_, rows_};
  for (int k = 0; k < iterations_; ++k) {
    const FrameTable* source[] = {in};
    sweep_.run(context, sweep_tables, source, *out);
    std::swap(in, out);
  }
  const FrameTable* mushed = in;
  if (!smooth_only_) {
    const GLuint restore_tables[] = {weld_, corners_};
    const FrameTable* smoothed[] = {in};
    restore_.run(context, restore_tables, smoothed, restored_);
    mushed = &restored_;
  }
  scatter_.use();
  glUniform3f(scatter_.uniform("u_centre"), centre.x(), centre.y(), centre.z());
  glUniform1f(scatter_.uniform("u_scale"), scale_);
  glUniform1i(scatter_.uniform("u_smooth_only"), smooth_only_);
  const GLuint scatter_tables[] = {welded_of_, weld_};
  const FrameTable* scatter_frames[] = {&input_, mushed};
  scatter_.run(context, scatter_tables, scatter_frames, positions_);
  normal_kernel_.run(context, positions_, normals_);
}

}  // namespace wobble::render
