// Wavefront OBJ writing: one mesh (write_obj) or one file per baked frame in a folder
// (write_obj_sequence), each written whole or not at all. Texture coordinates are flipped back to
// OBJ's v = 0 at the bottom.
#include <algorithm>
#include <iterator>
#include <span>
#include <string>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/io/atomic_file.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/output_file.hpp>

#include "core/fail.hpp"
#include "text_format.hpp"

namespace wobble {

using text_format::is_space;
namespace fs = std::filesystem;

namespace {

std::string group_name_of(const Primitive& primitive, std::size_t index) {
  std::string name = primitive.name.empty() ? fmt::format("primitive_{}", index) : primitive.name;
  for (char& c : name)
    if (is_space(c)) c = '_';
  return name;
}

void check_mesh(const fs::path& path, const Mesh& mesh, std::span<const Vec3f> positions) {
  const std::size_t n = mesh.vertex_count();
  if (positions.size() != n) fail(path, "{} positions for a mesh of {} vertices", positions.size(), n);
  if (!mesh.uvs.empty() && mesh.uvs.size() != n)
    fail(path, "{} texture coordinates for {} vertices", mesh.uvs.size(), n);
  if (!mesh.normals.empty() && mesh.normals.size() != n)
    fail(path, "{} normals for {} vertices", mesh.normals.size(), n);
  for (std::size_t v = 0; v < n; ++v)
    if (!positions[v].allFinite()) fail(path, "vertex {} is not finite", v);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::uint32_t i : mesh.triangles[t])
      if (i >= n) fail(path, "triangle {} refers to vertex {}, the mesh has {}", t, i, n);
}

// The OBJ text of one mesh. Normals are written only with the rest positions: they belong to the
// rest shape and would be wrong for a deformed one (viewers recompute them).
std::string obj_text(const Mesh& mesh, std::span<const Vec3f> positions) {
  const bool rest_shape = positions.data() == mesh.positions.data() ||
                          std::equal(positions.begin(), positions.end(), mesh.positions.begin(), mesh.positions.end(),
                                     [](const Vec3f& a, const Vec3f& b) { return a == b; });
  const bool write_normals = !mesh.normals.empty() && rest_shape;
  const bool write_uvs = !mesh.uvs.empty();

  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "# wobble {} vertices, {} triangles\n", mesh.vertex_count(),
                 mesh.triangle_count());
  for (const Vec3f& p : positions) fmt::format_to(std::back_inserter(out), "v {} {} {}\n", p.x(), p.y(), p.z());
  if (write_uvs)
    for (const Vec2f& uv : mesh.uvs) fmt::format_to(std::back_inserter(out), "vt {} {}\n", uv.x(), 1.0f - uv.y());
  if (write_normals)
    for (const Vec3f& n : mesh.normals) fmt::format_to(std::back_inserter(out), "vn {} {} {}\n", n.x(), n.y(), n.z());

  auto write_triangles = [&](std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      out.push_back('f');
      for (std::uint32_t i : mesh.triangles[t]) {
        const std::uint32_t k = i + 1;
        if (write_uvs && write_normals)
          fmt::format_to(std::back_inserter(out), " {}/{}/{}", k, k, k);
        else if (write_uvs)
          fmt::format_to(std::back_inserter(out), " {}/{}", k, k);
        else if (write_normals)
          fmt::format_to(std::back_inserter(out), " {}//{}", k, k);
        else
          fmt::format_to(std::back_inserter(out), " {}", k);
      }
      out.push_back('\n');
    }
  };

  // Groups per primitive when the primitives tile the triangles in order; otherwise one group.
  bool tiled = !mesh.primitives.empty();
  std::size_t next = 0;
  for (const Primitive& p : mesh.primitives) {
    if (p.first_triangle != next) tiled = false;
    next = std::size_t(p.first_triangle) + p.triangle_count;
  }
  if (next != mesh.triangle_count()) tiled = false;
  if (tiled) {
    for (std::size_t k = 0; k < mesh.primitives.size(); ++k) {
      const Primitive& p = mesh.primitives[k];
      fmt::format_to(std::back_inserter(out), "g {}\n", group_name_of(p, k));
      if (p.material >= 0 && p.material < static_cast<int>(mesh.materials.size()) &&
          !mesh.materials[p.material].name.empty()) {
        std::string name = mesh.materials[p.material].name;
        for (char& c : name)
          if (is_space(c)) c = '_';
        fmt::format_to(std::back_inserter(out), "usemtl {}\n", name);
      }
      write_triangles(p.first_triangle, std::size_t(p.first_triangle) + p.triangle_count);
    }
  } else {
    write_triangles(0, mesh.triangle_count());
  }
  return fmt::to_string(out);
}

void write_text_file(const fs::path& shown_path, const fs::path& file, const std::string& text) {
  OutputFile out(file, shown_path);
  out.write(text);
  out.close();
}

}  // namespace

void write_obj(const fs::path& path, const Mesh& mesh, std::span<const Vec3f> positions) {
  check_mesh(path, mesh, positions);
  write_output(path, obj_text(mesh, positions));
}

void write_obj_sequence(const fs::path& folder, const Mesh& mesh, const BakedFrames& baked) {
  for (std::size_t f = 0; f < baked.positions.size(); ++f) {
    if (baked.positions[f].size() != mesh.vertex_count())
      fail(folder, "frame {} has {} positions for a mesh of {} vertices", f, baked.positions[f].size(),
           mesh.vertex_count());
    check_mesh(folder, mesh, baked.positions[f]);
  }
  AtomicOutput output(folder, true);
  for (std::size_t f = 0; f < baked.positions.size(); ++f)
    write_text_file(folder, output.temporary() / fmt::format("frame_{:04d}.obj", f),
                    obj_text(mesh, baked.positions[f]));
  output.commit();
}

}  // namespace wobble
