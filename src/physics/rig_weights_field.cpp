// A character's skin weights spread onto a grid (see rig_weights_field.hpp).
#include <wobble/physics/rig_weights_field.hpp>

#include <algorithm>
#include <cmath>
#include <queue>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

std::shared_ptr<fields::GridField> rig_weights_field(const Character& character,
                                                     const fields::Normalization& normalization,
                                                     const RigWeightsOptions& options) {
  if (!character.is_skinned()) fail(character.source, "has no skin weights to use as a skinning field");
  const Mesh& mesh = character.mesh;
  const std::size_t V = mesh.vertex_count();
  if (V == 0) fail(character.source, "has no vertices");
  std::vector<Vec3d> v(V);
  Vec3d lo = Vec3d::Constant(1e300), hi = Vec3d::Constant(-1e300);
  for (std::size_t i = 0; i < V; ++i) {
    v[i] = normalization.to_normalized(mesh.positions[i].cast<double>());
    lo = lo.cwiseMin(v[i]);
    hi = hi.cwiseMax(v[i]);
  }
  const double h = 2.0 / std::max(2, options.grid_resolution);
  std::array<int, 3> dims;
  Vec3d origin;
  for (int a = 0; a < 3; ++a) {
    const int cells = static_cast<int>(std::ceil((hi[a] - lo[a]) / h + 1e-9)) + 2;
    dims[a] = cells + 1;
    origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * h * cells;
  }
  const std::size_t nodes = static_cast<std::size_t>(dims[0]) * dims[1] * dims[2];
  const int joints = static_cast<int>(character.rig.joint_count());
  Eigen::MatrixXd values = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(nodes), joints);
  const int k = std::clamp(options.neighbours, 1, static_cast<int>(V));
  ThreadPool pool;
  pool.parallel_for(nodes, 64, [&](std::size_t begin, std::size_t end) {
    std::vector<std::pair<double, std::uint32_t>> nearest;
    for (std::size_t n = begin; n < end; ++n) {
      const int i = static_cast<int>(n % dims[0]), j = static_cast<int>((n / dims[0]) % dims[1]),
                kk = static_cast<int>(n / (static_cast<std::size_t>(dims[0]) * dims[1]));
      const Vec3d p = origin + h * Vec3d(i, j, kk);
      nearest.clear();
      for (std::uint32_t q = 0; q < V; ++q) {
        const double d2 = (v[q] - p).squaredNorm();
        if (static_cast<int>(nearest.size()) < k) {
          nearest.emplace_back(d2, q);
          std::push_heap(nearest.begin(), nearest.end());
        } else if (d2 < nearest.front().first) {
          std::pop_heap(nearest.begin(), nearest.end());
          nearest.back() = {d2, q};
          std::push_heap(nearest.begin(), nearest.end());
        }
      }
      double total = 0;
      for (const auto& [d2, q] : nearest) {
        const double w = 1.0 / (d2 + 1e-4 * h * h);
        const auto joints_of = character.skin.joints_of(q);
        const auto weights_of = character.skin.weights_of(q);
        for (std::size_t s = 0; s < joints_of.size(); ++s) {
          values(static_cast<Eigen::Index>(n), joints_of[s]) += w * weights_of[s];
          total += w * weights_of[s];
        }
      }
      if (total > 0) values.row(static_cast<Eigen::Index>(n)) /= total;
    }
  });
  return std::make_shared<fields::GridField>(
      origin, h, dims, std::move(values),
      fmt::format("skin weights of {} ({} joints)", character.source.filename().string(), joints));
}

}  // namespace wobble::physics
