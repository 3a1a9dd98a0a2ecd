#include <wobble/mesh.hpp>

namespace wobble {

void Mesh::compute_normals() {
  std::vector<Vec3f> accumulated(positions.size(), Vec3f::Zero());
  for (const Triangle& t : triangles) {
    const Vec3f& a = positions[t[0]];
    const Vec3f& b = positions[t[1]];
    const Vec3f& c = positions[t[2]];
    const Vec3f area_normal = (b - a).cross(c - a);  // length = twice the area
    for (std::uint32_t v : t) accumulated[v] += area_normal;
  }
  normals.resize(positions.size());
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const float length = accumulated[v].norm();
    normals[v] = length > 0 ? Vec3f(accumulated[v] / length) : Vec3f::UnitY();
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
