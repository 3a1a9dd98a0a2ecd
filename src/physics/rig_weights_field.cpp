// A character's skin weights spread onto a grid (see rig_weights_field.hpp).
#include <wobble/physics/rig_weights_field.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

namespace {

// A grid of spacing 2 / resolution around the points, one empty cell beyond them on every side.
struct GridFrame {
  Vec3d origin;
  double spacing = 0;
  std::array<int, 3> dims{};
  std::size_t nodes() const { return static_cast<std::size_t>(dims[0]) * dims[1] * dims[2]; }
  Vec3d node(std::size_t n) const {
    const auto i = static_cast<double>(n % dims[0]), j = static_cast<double>((n / dims[0]) % dims[1]),
               k = static_cast<double>(n / (static_cast<std::size_t>(dims[0]) * dims[1]));
    return origin + spacing * Vec3d(i, j, k);
  }
};

GridFrame grid_around(const std::vector<Vec3d>& points, int resolution) {
  Vec3d lo = Vec3d::Constant(1e300), hi = Vec3d::Constant(-1e300);
  for (const Vec3d& p : points) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  GridFrame g;
  g.spacing = 2.0 / std::max(2, resolution);
  for (int a = 0; a < 3; ++a) {
    const int cells = static_cast<int>(std::ceil((hi[a] - lo[a]) / g.spacing + 1e-9)) + 2;
    g.dims[a] = cells + 1;
    g.origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * g.spacing * cells;
  }
  return g;
}

// The k points nearest p as (squared distance, index), in heap order.
void nearest_points(const Vec3d& p, const std::vector<Vec3d>& points, int k,
                    std::vector<std::pair<double, std::uint32_t>>& nearest) {
  nearest.clear();
  for (std::uint32_t q = 0; q < points.size(); ++q) {
    const double d2 = (points[q] - p).squaredNorm();
    if (static_cast<int>(nearest.size()) < k) {
      nearest.emplace_back(d2, q);
      std::push_heap(nearest.begin(), nearest.end());
    } else if (d2 < nearest.front().first) {
      std::pop_heap(nearest.begin(), nearest.end());
      nearest.back() = {d2, q};
      std::push_heap(nearest.begin(), nearest.end());
    }
  }
}

// The nearest vertices' skin weights, each vertex weighted by its inverse squared distance
// (regularised by a small part of the spacing), normalised to sum 1.
void blend_skin_weights(const Skin& skin, const std::vector<std::pair<double, std::uint32_t>>& nearest, double spacing,
                        Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> row) {
  double total = 0;
  for (const auto& [d2, q] : nearest) {
    const double w = 1.0 / (d2 + 1e-4 * spacing * spacing);
    const auto joints_of = skin.joints_of(q);
    const auto weights_of = skin.weights_of(q);
    for (std::size_t s = 0; s < joints_of.size(); ++s) {
      row(joints_of[s]) += w * weights_of[s];
      total += w * weights_of[s];
    }
  }
  if (total > 0) row /= total;
}

}  // namespace

std::shared_ptr<fields::GridField> rig_weights_field(const Character& character,
                                                     const fields::Normalization& normalization,
                                                     const RigWeightsOptions& options) {
  if (!character.is_skinned()) fail(character.source, "has no skin weights to use as a skinning field");
  const Mesh& mesh = character.mesh;
  const std::size_t V = mesh.vertex_count();
  if (V == 0) fail(character.source, "has no vertices");
  std::vector<Vec3d> v(V);
  for (std::size_t i = 0; i < V; ++i) v[i] = normalization.to_normalized(mesh.positions[i].cast<double>());
  const GridFrame grid = grid_around(v, options.grid_resolution);
  const int joints = static_cast<int>(character.rig.joint_count());
  Eigen::MatrixXd values = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(grid.nodes()), joints);
  const int k = std::clamp(options.neighbours, 1, static_cast<int>(V));
  ThreadPool pool;
  pool.parallel_for(grid.nodes(), 64, [&](std::size_t begin, std::size_t end) {
    std::vector<std::pair<double, std::uint32_t>> nearest;
    for (std::size_t n = begin; n < end; ++n) {
      nearest_points(grid.node(n), v, k, nearest);
      blend_skin_weights(character.skin, nearest, grid.spacing, values.row(static_cast<Eigen::Index>(n)));
    }
  });
  return std::make_shared<fields::GridField>(
      grid.origin, grid.spacing, grid.dims, std::move(values),
      fmt::format("skin weights of {} ({} joints)", character.source.filename().string(), joints));
}

}  // namespace wobble::physics
