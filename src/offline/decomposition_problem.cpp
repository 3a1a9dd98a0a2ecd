#include "offline/decomposition_problem.hpp"

#include <algorithm>

#include <wobble/parallel.hpp>

namespace wobble::decomposition {

Adjacency seam_joined_neighbours(std::size_t vertex_count, std::span<const Triangle> triangles,
                                 std::span<const Vec3f> positions) {
  const Welding welding = Welding::by_position(positions);
  const std::vector<Triangle> welded = welding.weld(triangles);
  const Adjacency welded_adjacency = Adjacency::from_edges(welding.welded_count, unique_edges(welded));
  // The vertices of each welded position.
  std::vector<std::vector<std::uint32_t>> members(welding.welded_count);
  for (std::uint32_t v = 0; v < vertex_count; ++v) members[welding.welded_of[v]].push_back(v);
  Adjacency out;
  out.offsets.reserve(vertex_count + 1);
  std::vector<std::uint32_t> around;
  for (std::uint32_t v = 0; v < vertex_count; ++v) {
    around.clear();
    const std::uint32_t w = welding.welded_of[v];
    for (std::uint32_t twin : members[w])
      if (twin != v) around.push_back(twin);
    for (std::uint32_t n : welded_adjacency.of(w)) around.insert(around.end(), members[n].begin(), members[n].end());
    std::sort(around.begin(), around.end());
    around.erase(std::unique(around.begin(), around.end()), around.end());
    out.neighbours.insert(out.neighbours.end(), around.begin(), around.end());
    out.offsets.push_back(static_cast<std::uint32_t>(out.neighbours.size()));
  }
  return out;
}

std::vector<double> fixed_skin_errors(const Problem& problem) {
  std::vector<double> errors(problem.vertices, 0.0);
  parallel_for(problem.pool, problem.vertices, 256, [&](std::size_t begin, std::size_t end) {
    for (std::size_t v = begin; v < end; ++v) {
      const auto bones = problem.input.fixed_skin->joints_of(v);
      const auto weights = problem.input.fixed_skin->weights_of(v);
      for (std::size_t f = 0; f < problem.frames; ++f) {
        Eigen::Vector3d model = Eigen::Vector3d::Zero();
        for (std::size_t k = 0; k < bones.size(); ++k)
          model += static_cast<double>(weights[k]) * (problem.input.fixed[f][bones[k]] * problem.rest[v]);
        errors[v] += (model - problem.target(f, v)).squaredNorm();
      }
    }
  });
  return errors;
}

const BoneTransform& bone_transform(const Problem& problem, const State& state, std::size_t frame, std::size_t bone) {
  return bone < problem.fixed ? problem.input.fixed[frame][bone] : state.free[frame][bone - problem.fixed];
}

}  // namespace wobble::decomposition
