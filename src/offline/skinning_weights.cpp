// The weights update: for each vertex on its own, the convex, K-sparse weights over the bones
// that best reproduce its frames, pulled towards its neighbours' weights (the Laplacian term).
// The frames enter only through sums over frames (frame_sums, target_sums), so a vertex's
// problem is a small dense one whatever the length of the animation.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <wobble/parallel.hpp>

#include "offline/decomposition_problem.hpp"
#include "offline/simplex_least_squares.hpp"

namespace wobble::decomposition {
namespace {

constexpr std::size_t kVerticesPerChunk = 64;

// With fixed bones, the K free bones that carry the vertex best alone, wherever they rank among all
// (`ranked`: single-bone errors, sorted up to its first few). A free bone fitted to some
// secondary motion is a poor single bone next to the vertex's own joints, yet it is what the
// vertex is to blend in: ranked with all, 16 helpers of clonk reached few vertices (14.3 % of
// its secondary motion left with 4 influences; 4.2 % with them always candidates).
void add_best_free_bones(const Problem& problem, std::vector<std::pair<double, int>>& ranked, std::vector<int>& bones) {
  if (problem.fixed == 0) return;
  const auto first_free = std::partition(
      ranked.begin(), ranked.end(), [&](const auto& r) { return static_cast<std::size_t>(r.second) >= problem.fixed; });
  const auto keep = std::min<std::ptrdiff_t>(problem.parameters.influences, first_free - ranked.begin());
  std::partial_sort(ranked.begin(), ranked.begin() + keep, first_free);
  for (std::ptrdiff_t k = 0; k < keep; ++k) bones.push_back(ranked[static_cast<std::size_t>(k)].second);
}

// The bones a vertex may take weight from: its current ones, and the usable bones that carry it
// best alone, up to a few times K (enough to choose K from; bounded so that many bones stay fast),
// and with fixed bones the K best free ones.
std::vector<int> candidate_bones(const Problem& problem, const State& state, const FrameSums& sums,
                                 const Eigen::MatrixXd& targets, std::size_t column, std::size_t v) {
  const std::size_t most = static_cast<std::size_t>(std::max(4 * problem.parameters.influences, 16));
  std::vector<std::pair<double, int>> ranked;
  for (std::size_t b = 0; b < problem.bones(); ++b)
    if (problem.usable(b))
      ranked.emplace_back(single_bone_error(problem, sums, targets, column, v, b, problem.target_energy[v]),
                          static_cast<int>(b));
  const std::size_t keep = std::min(most, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
  std::vector<int> bones;
  for (std::size_t k = 0; k < keep; ++k) bones.push_back(ranked[k].second);
  add_best_free_bones(problem, ranked, bones);
  for (std::uint32_t b : state.weights.joints_of(v))
    if (problem.usable(b)) bones.push_back(static_cast<int>(b));
  std::sort(bones.begin(), bones.end());
  bones.erase(std::unique(bones.begin(), bones.end()), bones.end());
  return bones;
}

// The neighbours' mean weight on each candidate bone (the smoothness term's target).
Eigen::VectorXd neighbour_mean(const Problem& problem, const Skin& weights, std::size_t v,
                               const std::vector<int>& bones) {
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(bones.size()));
  const auto around = problem.neighbours.of(v);
  if (around.empty()) return mean;
  for (std::uint32_t n : around) {
    const auto joints = weights.joints_of(n);
    const auto values = weights.weights_of(n);
    for (std::size_t k = 0; k < joints.size(); ++k) {
      const auto it = std::lower_bound(bones.begin(), bones.end(), static_cast<int>(joints[k]));
      if (it != bones.end() && *it == static_cast<int>(joints[k])) mean(it - bones.begin()) += values[k];
    }
  }
  return mean / static_cast<double>(around.size());
}

struct VertexSolution {
  std::vector<Influence> influences;
  double error = 0;  // sum over frames of the squared distance, smoothness aside
};

VertexSolution solve_vertex(const Problem& problem, const State& state, const FrameSums& sums,
                            const Eigen::MatrixXd& targets, std::size_t column, std::size_t v, double smoothness) {
  const std::vector<int> bones = candidate_bones(problem, state, sums, targets, column, v);
  const auto n = static_cast<Eigen::Index>(bones.size());
  const Eigen::Vector4d& p = problem.rest[v];
  Eigen::MatrixXd gram(n, n);
  Eigen::VectorXd linear(n);
  for (Eigen::Index a = 0; a < n; ++a) {
    const Eigen::Index ba = 4 * bones[static_cast<std::size_t>(a)];
    linear(a) = p.dot(targets.block<4, 1>(ba, static_cast<Eigen::Index>(column)));
    for (Eigen::Index b = a; b < n; ++b)
      gram(a, b) = gram(b, a) = p.dot(sums.products.block<4, 4>(ba, 4 * bones[static_cast<std::size_t>(b)]) * p);
  }
  const Eigen::VectorXd pull = neighbour_mean(problem, state.weights, v, bones);
  Eigen::MatrixXd regularised = gram;
  regularised.diagonal().array() += smoothness;
  std::vector<int> start;
  for (std::uint32_t b : state.weights.joints_of(v)) {
    const auto it = std::lower_bound(bones.begin(), bones.end(), static_cast<int>(b));
    if (it != bones.end() && *it == static_cast<int>(b)) start.push_back(static_cast<int>(it - bones.begin()));
  }
  const Eigen::VectorXd w =
      sparse_simplex_least_squares(regularised, linear + smoothness * pull, start, problem.parameters.influences);
  VertexSolution solution;
  solution.error = std::max(0.0, w.dot(gram * w) - 2 * linear.dot(w) + problem.target_energy[v]);
  for (Eigen::Index a = 0; a < n; ++a)
    if (w(a) > 0)
      solution.influences.push_back(
          {static_cast<std::uint32_t>(bones[static_cast<std::size_t>(a)]), static_cast<float>(w(a))});
  return solution;
}

Skin skin_of(const std::vector<VertexSolution>& solutions) {
  Skin skin;
  std::vector<Influence> row;
  for (const VertexSolution& s : solutions) {
    row = s.influences;
    float sum = 0;
    for (const Influence& i : row) sum += i.weight;
    for (Influence& i : row) i.weight /= sum;
    skin.add_vertex(row);
  }
  return skin;
}

}  // namespace

double update_weights(const Problem& problem, State& state) {
  const FrameSums sums = frame_sums(problem, state);
  const double scale = std::max(problem.motion_scale, 1e-30);
  const double smoothness = problem.parameters.smoothness * static_cast<double>(problem.frames) * scale * scale;
  std::vector<VertexSolution> solutions(problem.vertices);
  parallel_for(problem.pool, problem.vertices, kVerticesPerChunk, [&](std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> chunk(end - begin);
    std::iota(chunk.begin(), chunk.end(), static_cast<std::uint32_t>(begin));
    const Eigen::MatrixXd targets = target_sums(problem, sums, chunk);
    for (std::size_t v = begin; v < end; ++v)
      solutions[v] = solve_vertex(problem, state, sums, targets, v - begin, v, smoothness);
  });
  state.weights = skin_of(solutions);
  state.errors.resize(problem.vertices);
  double total = 0;
  for (std::size_t v = 0; v < problem.vertices; ++v) total += state.errors[v] = solutions[v].error;
  return std::sqrt(total / static_cast<double>(problem.vertices * problem.frames));
}

}  // namespace wobble::decomposition
