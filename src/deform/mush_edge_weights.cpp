#include "deform/mush_edge_weights.hpp"

#include <algorithm>
#include <utility>

namespace wobble::mush {
namespace {

std::size_t edge_index(std::span<const Edge> edges, std::uint32_t x, std::uint32_t y) {
  if (x > y) std::swap(x, y);
  auto it = std::lower_bound(edges.begin(), edges.end(), std::pair{x, y},
                             [](const Edge& e, std::pair<std::uint32_t, std::uint32_t> key) {
                               return e.a != key.first ? e.a < key.first : e.b < key.second;
                             });
  return static_cast<std::size_t>(it - edges.begin());
}

// Obtuse angles give negative cotangents (clamped); degenerate triangles and angles add nothing.
std::vector<double> cotangent_weights(std::span<const Eigen::Vector3d> u, std::span<const Triangle> triangles,
                                      std::span<const Edge> edges) {
  std::vector<double> weight(edges.size(), 0.0);
  for (const Triangle& t : triangles) {
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d a = u[t[(k + 1) % 3]] - u[t[k]], b = u[t[(k + 2) % 3]] - u[t[k]];
      const double sine = a.cross(b).norm();
      if (!(sine > 1e-12 * a.norm() * b.norm())) continue;
      weight[edge_index(edges, t[(k + 1) % 3], t[(k + 2) % 3])] += 0.5 * a.dot(b) / sine;
    }
  }
  for (double& x : weight) x = std::max(x, 0.0);
  return weight;
}

}  // namespace

std::vector<double> edge_weights(MushSmoothing smoothing, std::span<const Eigen::Vector3d> u,
                                 std::span<const Triangle> triangles, std::span<const Edge> edges) {
  if (smoothing == MushSmoothing::Cotangent) return cotangent_weights(u, triangles, edges);
  std::vector<double> weight(edges.size(), 1.0);
  if (smoothing == MushSmoothing::Length)
    for (std::size_t e = 0; e < edges.size(); ++e) weight[e] = (u[edges[e].a] - u[edges[e].b]).norm();
  return weight;
}

}  // namespace wobble::mush
