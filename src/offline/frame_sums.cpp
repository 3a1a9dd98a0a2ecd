#include <numeric>

#include "offline/decomposition_problem.hpp"

namespace wobble::decomposition {

FrameSums frame_sums(const Problem& problem, const State& state, std::vector<std::size_t> frames,
                     std::size_t first_bone, std::size_t bone_count) {
  FrameSums sums;
  sums.frames = std::move(frames);
  sums.first_bone = first_bone;
  sums.bone_count = bone_count;
  const auto rows = static_cast<Eigen::Index>(3 * sums.frames.size());
  sums.stacked.resize(rows, static_cast<Eigen::Index>(4 * bone_count));
  for (std::size_t f = 0; f < sums.frames.size(); ++f)
    for (std::size_t b = 0; b < bone_count; ++b)
      sums.stacked.block<3, 4>(static_cast<Eigen::Index>(3 * f), static_cast<Eigen::Index>(4 * b)) =
          bone_transform(problem, state, sums.frames[f], first_bone + b);
  sums.products.noalias() = sums.stacked.transpose() * sums.stacked;
  return sums;
}

FrameSums frame_sums(const Problem& problem, const State& state) {
  std::vector<std::size_t> frames(problem.frames);
  std::iota(frames.begin(), frames.end(), std::size_t{0});
  return frame_sums(problem, state, std::move(frames), 0, problem.bones());
}

Eigen::MatrixXd target_sums(const Problem& problem, const FrameSums& sums, std::span<const std::uint32_t> vertices) {
  Eigen::MatrixXd targets(static_cast<Eigen::Index>(3 * sums.frames.size()),
                          static_cast<Eigen::Index>(vertices.size()));
  for (std::size_t f = 0; f < sums.frames.size(); ++f)
    for (std::size_t c = 0; c < vertices.size(); ++c)
      targets.block<3, 1>(static_cast<Eigen::Index>(3 * f), static_cast<Eigen::Index>(c)) =
          problem.target(sums.frames[f], vertices[c]);
  return sums.stacked.transpose() * targets;
}

double target_energy(const Problem& problem, const FrameSums& sums, std::size_t vertex) {
  double energy = 0;
  for (std::size_t f : sums.frames) energy += problem.target(f, vertex).squaredNorm();
  return energy;
}

}  // namespace wobble::decomposition
