// The post-deformers' shared part: their output tables and the normals kernel.
#include <wobble/error.hpp>

#include "render/data_texture.hpp"
#include "render/gpu_post_deformer.hpp"
#include "render/kernel_shaders.hpp"
#include "core/fail.hpp"

namespace wobble::render {

GpuNormals::GpuNormals(KernelContext& context, std::size_t vertex_count, std::span<const Triangle> triangles)
    : kernel_(context, "normals kernel", "", shaders::kNormalsKernel, {"u_vertex_corners", "u_corner_vertices"},
              {"u_positions"}) {
  // Per vertex its corners: the other two vertices of each of its triangles, in winding order.
  std::vector<std::uint32_t> ranges(2 * vertex_count, 0);
  for (const Triangle& t : triangles) {
    for (std::uint32_t v : t) {
      if (v >= vertex_count) fail_plain("renderer: a triangle uses vertex {}, the mesh has {}", v, vertex_count);
      ++ranges[2 * v + 1];
    }
  }
  for (std::size_t v = 1; v < vertex_count; ++v) ranges[2 * v] = ranges[2 * v - 2] + ranges[2 * v - 1];
  std::vector<std::uint32_t> corners(6 * triangles.size());
  std::vector<std::uint32_t> fill(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v) fill[v] = ranges[2 * v];
  for (const Triangle& t : triangles) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t slot = fill[t[k]]++;
      corners[2 * slot] = t[(k + 1) % 3];
      corners[2 * slot + 1] = t[(k + 2) % 3];
    }
  }
  upload_data_texture(vertex_corners_, ranges.data(), vertex_count, 2);
  upload_data_texture(corner_vertices_, corners.data(), 3 * triangles.size(), 2);
}

GpuNormals::~GpuNormals() {
  const GLuint textures[] = {vertex_corners_, corner_vertices_};
  glDeleteTextures(2, textures);
}

void GpuNormals::run(KernelContext& context, const FrameTable& positions, FrameTable& normals) const {
  const GLuint tables[] = {vertex_corners_, corner_vertices_};
  const FrameTable* frames[] = {&positions};
  kernel_.run(context, tables, frames, normals);
}

GpuPostDeformer::GpuPostDeformer(KernelContext& context, std::size_t vertex_count, std::span<const Triangle> triangles)
    : normal_kernel_(context, vertex_count, triangles) {
  positions_.allocate(vertex_count, context.backend(), true);
  normals_.allocate(vertex_count, context.backend(), false);
}

}  // namespace wobble::render
