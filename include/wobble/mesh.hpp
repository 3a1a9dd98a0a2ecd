#pragma once
// Mesh: positions, normals, UVs and triangles of all primitives of a character, merged into one
// vertex array, with a map back to the primitives they came from (in file order, never welded).
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <wobble/math.hpp>

namespace wobble {

using Triangle = std::array<std::uint32_t, 3>;

// Where a run of merged vertices and triangles came from.
struct Primitive {
  std::string name;          // mesh name in the source file
  int source_mesh = 0;       // index of the mesh in the file
  int source_primitive = 0;  // index of the primitive within that mesh
  std::uint32_t first_vertex = 0, vertex_count = 0;
  std::uint32_t first_triangle = 0, triangle_count = 0;
  int material = -1;  // index into Mesh::materials, or -1
};

struct Image {
  std::string name;
  std::string mime_type;              // "image/png" or "image/jpeg"
  std::vector<std::uint8_t> encoded;  // the file's bytes, as stored in the source
};

struct Material {
  std::string name;
  Vec4f base_color = Vec4f::Ones();  // linear RGBA factor
  int base_color_image = -1;         // index into Mesh::images, or -1
  float metallic = 0.0f, roughness = 1.0f;
  bool double_sided = false;
};

struct Mesh {
  std::vector<Vec3f> positions;     // bind space (the space the skin's inverse bind matrices expect)
  std::vector<Vec3f> normals;       // unit length; empty if the source had none (see compute_normals)
  std::vector<Vec2f> uvs;           // TEXCOORD_0; empty if absent
  std::vector<Triangle> triangles;  // indices into the merged vertex array
  std::vector<Primitive> primitives;
  // Per-vertex scalar attributes by name, e.g. "_BEND_WEIGHT", "_MUSH_WEIGHT".
  std::map<std::string, std::vector<float>> vertex_scalars;
  std::vector<Material> materials;
  std::vector<Image> images;

  std::size_t vertex_count() const { return positions.size(); }
  std::size_t triangle_count() const { return triangles.size(); }
  // Area-weighted vertex normals from the triangles (vertices in no triangle get +Y).
  void compute_normals();
  Eigen::AlignedBox3f bounds() const;
  // The character size L: the diagonal of the bounding box (0 for an empty mesh).
  float size() const;
};

// Area-weighted vertex normals of the triangles at these positions, unit length, into normals
// (a vertex in no triangle of nonzero area keeps its normal). accumulated is scratch space, kept
// by the caller between frames so that a frame allocates nothing.
void area_weighted_normals(std::span<const Triangle> triangles, std::span<const Vec3f> positions,
                           std::span<Vec3f> normals, std::vector<Vec3f>& accumulated);

}  // namespace wobble
