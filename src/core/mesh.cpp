#include <wobble/mesh.hpp>

namespace wobble {

void Mesh::compute_normals() {
  normals.assign(positions.size(), Vec3f::UnitY());
  std::vector<Vec3f> accumulated;
  area_weighted_normals(triangles, positions, normals, accumulated);
}

void area_weighted_normals(std::span<const Triangle> triangles, std::span<const Vec3f> positions,
                           std::span<Vec3f> normals, std::vector<Vec3f>& accumulated) {
  accumulated.assign(positions.size(), Vec3f::Zero());
  for (const Triangle& t : triangles) {
    const Vec3f& a = positions[t[0]];
    const Vec3f area_normal = (positions[t[1]] - a).cross(positions[t[2]] - a);  // length = twice the area
    for (std::uint32_t v : t) accumulated[v] += area_normal;
  }
  for (std::size_t v = 0; v < normals.size() && v < positions.size(); ++v) {
    const float length = accumulated[v].norm();
    if (length > 0 && std::isfinite(length)) normals[v] = accumulated[v] / length;
  }
}

Eigen::AlignedBox3f Mesh::bounds() const {
  Eigen::AlignedBox3f box;
  for (const Vec3f& p : positions) box.extend(p);
  return box;
}

float Mesh::size() const {
  if (positions.empty()) return 0.0f;
  return bounds().diagonal().norm();
}

}  // namespace wobble
