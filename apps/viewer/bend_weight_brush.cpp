#include "bend_weight_brush.hpp"

#include <cmath>
#include <limits>

namespace wobble::viewer {

std::optional<Vec3f> cast_ray(std::span<const Vec3f> positions, std::span<const Triangle> triangles,
                              const Vec3f& origin, const Vec3f& direction) {
  // Moller-Trumbore, both faces.
  float best = std::numeric_limits<float>::infinity();
  for (const Triangle& t : triangles) {
    const Vec3f& a = positions[t[0]];
    const Vec3f e1 = positions[t[1]] - a, e2 = positions[t[2]] - a;
    const Vec3f p = direction.cross(e2);
    const float det = e1.dot(p);
    if (std::abs(det) < 1e-12f) continue;
    const float inv = 1.0f / det;
    const Vec3f s = origin - a;
    const float u = s.dot(p) * inv;
    if (u < 0 || u > 1) continue;
    const Vec3f q = s.cross(e1);
    const float v = direction.dot(q) * inv;
    if (v < 0 || u + v > 1) continue;
    const float distance = e2.dot(q) * inv;
    if (distance > 0 && distance < best) best = distance;
  }
  if (!std::isfinite(best)) return std::nullopt;
  return Vec3f(origin + best * direction);
}

std::vector<float> initial_bend_weights(const Mesh& mesh, const std::vector<float>& from_settings,
                                        const std::string& attribute) {
  if (from_settings.size() == mesh.vertex_count()) return from_settings;
  if (!attribute.empty())
    if (auto it = mesh.vertex_scalars.find(attribute);
        it != mesh.vertex_scalars.end() && it->second.size() == mesh.vertex_count())
      return it->second;
  return std::vector<float>(mesh.vertex_count(), 1.0f);
}

void BendWeightBrush::bind(const Mesh& mesh) {
  adjacency_ = Adjacency::from_edges(mesh.vertex_count(), unique_edges(mesh.triangles));
}

std::size_t BendWeightBrush::dab(std::span<const Vec3f> positions, const Vec3f& centre, float size,
                                 const BrushSettings& settings, std::vector<float>& gamma) const {
  const float radius = settings.radius * size;
  if (radius <= 0 || gamma.size() != positions.size()) return 0;
  const float radius2 = radius * radius;
  // Read from a copy so that smoothing does not depend on the vertex order.
  const std::vector<float> before = settings.smooth ? gamma : std::vector<float>{};
  std::size_t changed = 0;
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const float r2 = (positions[v] - centre).squaredNorm();
    if (r2 >= radius2) continue;
    const float falloff = (1 - r2 / radius2) * (1 - r2 / radius2);
    float target = settings.value;
    if (settings.smooth) {
      if (v >= adjacency_.vertex_count() || adjacency_.degree(v) == 0) continue;
      double sum = 0;
      for (std::uint32_t n : adjacency_.of(v)) sum += before[n];
      target = static_cast<float>(sum / adjacency_.degree(v));
    }
    gamma[v] += (target - gamma[v]) * settings.strength * falloff;
    ++changed;
  }
  return changed;
}

void BendWeightBrush::smooth_all(std::vector<float>& gamma, int iterations) const {
  if (gamma.size() != adjacency_.vertex_count()) return;
  std::vector<float> next(gamma.size());
  for (int i = 0; i < iterations; ++i) {
    for (std::size_t v = 0; v < gamma.size(); ++v) {
      if (adjacency_.degree(v) == 0) {
        next[v] = gamma[v];
        continue;
      }
      double sum = 0;
      for (std::uint32_t n : adjacency_.of(v)) sum += gamma[n];
      next[v] = 0.5f * gamma[v] + 0.5f * static_cast<float>(sum / adjacency_.degree(v));
    }
    gamma.swap(next);
  }
}

}  // namespace wobble::viewer
