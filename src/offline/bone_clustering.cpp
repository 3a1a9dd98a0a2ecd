// The initial free bones, by clustering the vertices' motion as Linde-Buzo-Gray vector
// quantisation does: one cluster, then each cluster split in two (at its worst-fitted vertex)
// until there are enough, with k-means reassignments (each vertex to the rigid bone that moves it
// best, every bone refitted to its vertices) after each round of splits.
#include <algorithm>
#include <numeric>

#include <wobble/parallel.hpp>

#include "offline/decomposition_problem.hpp"
#include "offline/procrustes.hpp"

namespace wobble::decomposition {
namespace {

constexpr std::size_t kClusteringFrames = 64;  // frames the clustering looks at (evenly spaced)
constexpr double kNegligibleError = 1e-12;     // with fixed bones: of the worst vertex's, counts as none
constexpr std::size_t kSeedVertices = 8;       // a free bone's first vertices: the worst and its nearest

struct Clusters {
  static constexpr std::uint32_t kOwnSkin = 0xffffffffu;  // a label: the vertex follows the fixed skin
  std::vector<std::uint32_t> vertices;                    // the vertices clustered
  std::vector<std::uint32_t> labels;                      // per clustered vertex: its free bone
  std::size_t count = 0;
};

// All vertices; with fixed bones, those the fixed skin misses at all (at least one per free bone,
// the worst first). Leaving out the ones it misses least would leave them no free bone to turn
// to: on a character's extremities, whose secondary motion is small, that was most of the error left.
std::vector<std::uint32_t> clustered_vertices(const Problem& problem) {
  std::vector<std::uint32_t> all(problem.vertices);
  std::iota(all.begin(), all.end(), 0u);
  if (problem.fixed == 0) return all;
  const std::vector<double>& errors = problem.fixed_errors;
  std::stable_sort(all.begin(), all.end(), [&](std::uint32_t a, std::uint32_t b) { return errors[a] > errors[b]; });
  const double worst = errors[all.front()];
  std::size_t keep = 0;
  while (keep < all.size() && (errors[all[keep]] > kNegligibleError * worst || keep < problem.free)) ++keep;
  all.resize(keep);
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::size_t> clustering_frames(const Problem& problem) {
  const std::size_t count = std::min(problem.frames, kClusteringFrames);
  std::vector<std::size_t> frames(count);
  for (std::size_t k = 0; k < count; ++k) frames[k] = count == 1 ? 0 : k * (problem.frames - 1) / (count - 1);
  return frames;
}

// Each cluster's rigid bone, fitted to its vertices (weight 1 each) in the given frames.
void fit_clusters(const Problem& problem, const Clusters& clusters, State& state,
                  const std::vector<std::size_t>& frames) {
  parallel_for(problem.pool, frames.size(), 1, [&](std::size_t begin, std::size_t end) {
    std::vector<ProcrustesSums> sums(clusters.count);
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t f = frames[k];
      std::fill(sums.begin(), sums.end(), ProcrustesSums{});
      for (std::size_t c = 0; c < clusters.vertices.size(); ++c) {
        const std::uint32_t v = clusters.vertices[c];
        if (clusters.labels[c] == Clusters::kOwnSkin) continue;
        sums[clusters.labels[c]].add(1.0, problem.rest[v].head<3>(), problem.target(f, v));
      }
      for (std::size_t b = 0; b < clusters.count; ++b) fit_rigid(sums[b], state.free[f][b]);
    }
  });
}

// For each clustered vertex, the squared error under every cluster's bone (row: vertex).
Eigen::MatrixXd cluster_errors(const Problem& problem, const Clusters& clusters, const State& state,
                               const std::vector<std::size_t>& frames) {
  const FrameSums sums = frame_sums(problem, state, frames, problem.fixed, clusters.count);
  Eigen::MatrixXd errors(static_cast<Eigen::Index>(clusters.vertices.size()),
                         static_cast<Eigen::Index>(clusters.count));
  parallel_for(problem.pool, clusters.vertices.size(), 256, [&](std::size_t begin, std::size_t end) {
    const std::span<const std::uint32_t> chunk(clusters.vertices.data() + begin, end - begin);
    const Eigen::MatrixXd targets = target_sums(problem, sums, chunk);
    for (std::size_t c = begin; c < end; ++c) {
      const double energy = target_energy(problem, sums, clusters.vertices[c]);
      for (std::size_t b = 0; b < clusters.count; ++b)
        errors(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(b)) =
            single_bone_error(problem, sums, targets, c - begin, clusters.vertices[c], b, energy);
    }
  });
  return errors;
}

// A cluster left empty takes the worst-fitted vertex of a cluster that can spare one.
void refill_empty_clusters(Clusters& clusters, const Eigen::MatrixXd& errors) {
  std::vector<std::size_t> sizes(clusters.count, 0);
  for (std::uint32_t label : clusters.labels) ++sizes[label];
  for (std::size_t b = 0; b < clusters.count; ++b) {
    if (sizes[b] > 0) continue;
    std::size_t worst = clusters.labels.size();
    for (std::size_t c = 0; c < clusters.labels.size(); ++c) {
      if (sizes[clusters.labels[c]] < 2) continue;
      if (worst == clusters.labels.size() || errors(static_cast<Eigen::Index>(c), clusters.labels[c]) >
                                                 errors(static_cast<Eigen::Index>(worst), clusters.labels[worst]))
        worst = c;
    }
    if (worst == clusters.labels.size()) return;
    --sizes[clusters.labels[worst]];
    clusters.labels[worst] = static_cast<std::uint32_t>(b);
    sizes[b] = 1;
  }
}

// k-means: every vertex to its best bone, every bone refitted, until no vertex moves.
void reassign(const Problem& problem, Clusters& clusters, State& state, const std::vector<std::size_t>& frames) {
  for (int iteration = 0; iteration < problem.parameters.clustering_iterations; ++iteration) {
    const Eigen::MatrixXd errors = cluster_errors(problem, clusters, state, frames);
    bool moved = false;
    for (std::size_t c = 0; c < clusters.labels.size(); ++c) {
      Eigen::Index best = 0;
      errors.row(static_cast<Eigen::Index>(c)).minCoeff(&best);
      if (static_cast<std::uint32_t>(best) != clusters.labels[c] &&
          errors(static_cast<Eigen::Index>(c), best) < errors(static_cast<Eigen::Index>(c), clusters.labels[c])) {
        clusters.labels[c] = static_cast<std::uint32_t>(best);
        moved = true;
      }
    }
    refill_empty_clusters(clusters, errors);
    fit_clusters(problem, clusters, state, frames);
    if (!moved) return;
  }
}

// Splits cluster b at its worst-fitted vertex: the half on that vertex's side of the cluster's
// centre (in the rest pose) becomes cluster `count`.
void split_cluster(const Problem& problem, Clusters& clusters, std::size_t b, const Eigen::MatrixXd& errors) {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  std::size_t size = 0, worst = 0;
  double worst_error = -1;
  for (std::size_t c = 0; c < clusters.labels.size(); ++c) {
    if (clusters.labels[c] != b) continue;
    centre += problem.rest[clusters.vertices[c]].head<3>();
    ++size;
    const double e = errors(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(b));
    if (e > worst_error) worst_error = e, worst = c;
  }
  if (size < 2) return;
  centre /= static_cast<double>(size);
  const Eigen::Vector3d axis = problem.rest[clusters.vertices[worst]].head<3>() - centre;
  const auto label = static_cast<std::uint32_t>(clusters.count++);
  std::size_t moved = 0;
  for (std::size_t c = 0; c < clusters.labels.size(); ++c) {
    if (clusters.labels[c] != b) continue;
    if ((problem.rest[clusters.vertices[c]].head<3>() - centre).dot(axis) > 0) clusters.labels[c] = label, ++moved;
  }
  if (moved == 0 || moved == size) {  // all on one side (the worst vertex at the centre): it alone
    for (std::size_t c = 0; c < clusters.labels.size(); ++c)
      if (clusters.labels[c] == label) clusters.labels[c] = static_cast<std::uint32_t>(b);
    clusters.labels[worst] = label;
  }
}

// One round of splits: the clusters with the largest error first, at most doubling the count.
void split_round(const Problem& problem, Clusters& clusters, const Eigen::MatrixXd& errors) {
  std::vector<double> totals(clusters.count, 0.0);
  for (std::size_t c = 0; c < clusters.labels.size(); ++c)
    totals[clusters.labels[c]] += errors(static_cast<Eigen::Index>(c), clusters.labels[c]);
  std::vector<std::size_t> order(clusters.count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return totals[a] > totals[b]; });
  const std::size_t splits = std::min(clusters.count, problem.free - clusters.count);
  for (std::size_t k = 0; k < splits; ++k) split_cluster(problem, clusters, order[k], errors);
}

// The fixed skin's squared error per vertex over `frames`.
std::vector<double> own_skin_errors(const Problem& problem, const std::vector<std::size_t>& frames) {
  std::vector<double> errors(problem.vertices, 0.0);
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    const auto bones = problem.input.fixed_skin->joints_of(v);
    const auto weights = problem.input.fixed_skin->weights_of(v);
    for (std::size_t f : frames) {
      Eigen::Vector3d model = Eigen::Vector3d::Zero();
      for (std::size_t k = 0; k < bones.size(); ++k)
        model += static_cast<double>(weights[k]) * (problem.input.fixed[f][bones[k]] * problem.rest[v]);
      errors[v] += (model - problem.target(f, v)).squaredNorm();
    }
  }
  return errors;
}

double cost_of(const Clusters& clusters, const Eigen::MatrixXd& errors, const std::vector<double>& own, std::size_t c) {
  return clusters.labels[c] == Clusters::kOwnSkin ? own[c] : errors(static_cast<Eigen::Index>(c), clusters.labels[c]);
}

// k-means with the fixed skin as one more choice: every vertex to whichever moves it best.
void reassign_with_own(const Problem& problem, Clusters& clusters, State& state, const std::vector<std::size_t>& frames,
                       const std::vector<double>& own) {
  for (int iteration = 0; iteration < problem.parameters.clustering_iterations; ++iteration) {
    const Eigen::MatrixXd errors = cluster_errors(problem, clusters, state, frames);
    bool moved = false;
    for (std::size_t c = 0; c < clusters.labels.size(); ++c) {
      Eigen::Index best = 0;
      const double best_error = errors.row(static_cast<Eigen::Index>(c)).minCoeff(&best);
      const std::uint32_t label = best_error < own[c] ? static_cast<std::uint32_t>(best) : Clusters::kOwnSkin;
      if (label != clusters.labels[c] && (best_error < cost_of(clusters, errors, own, c))) {
        clusters.labels[c] = label;
        moved = true;
      }
    }
    fit_clusters(problem, clusters, state, frames);
    if (!moved) return;
  }
}

// The `count` vertices nearest to `centre` at rest, itself included: enough points to fix a rigid
// bone's rotation even where the mesh gives no neighbours (a point cloud, a chain of segments).
std::vector<std::uint32_t> nearest_at_rest(const Problem& problem, std::size_t centre, std::size_t count) {
  std::vector<std::pair<double, std::uint32_t>> by_distance(problem.vertices);
  for (std::size_t v = 0; v < problem.vertices; ++v)
    by_distance[v] = {(problem.rest[v] - problem.rest[centre]).squaredNorm(), static_cast<std::uint32_t>(v)};
  const std::size_t keep = std::min(count, by_distance.size());
  std::partial_sort(by_distance.begin(), by_distance.begin() + static_cast<std::ptrdiff_t>(keep), by_distance.end());
  std::vector<std::uint32_t> out;
  for (std::size_t k = 0; k < keep; ++k) out.push_back(by_distance[k].second);
  return out;
}

// With fixed bones: free bones seeded one at a time where the vertices are served worst (at the
// worst vertex, its mesh neighbours and its nearest vertices), each followed by k-means in which a
// vertex may keep the fixed skin. The free bones go where the fixed ones fall short, however little that is.
void seed_free_bones(const Problem& problem, Clusters& clusters, State& state, const std::vector<std::size_t>& frames) {
  const std::vector<double> own = own_skin_errors(problem, frames);
  clusters.labels.assign(clusters.vertices.size(), Clusters::kOwnSkin);
  std::vector<bool> tried(problem.vertices, false);
  Eigen::MatrixXd errors(static_cast<Eigen::Index>(problem.vertices), 0);
  for (std::size_t attempt = 0; clusters.count < problem.free && attempt < 4 * problem.free; ++attempt) {
    std::size_t worst = problem.vertices;
    double worst_cost = 0;
    for (std::size_t c = 0; c < clusters.vertices.size(); ++c) {
      const double cost = clusters.count == 0 ? own[c] : cost_of(clusters, errors, own, c);
      if (!tried[c] && cost > worst_cost) worst_cost = cost, worst = c;
    }
    if (worst == problem.vertices) break;
    tried[worst] = true;
    const auto label = static_cast<std::uint32_t>(clusters.count++);
    clusters.labels[worst] = label;
    for (std::uint32_t n : problem.neighbours.of(worst)) clusters.labels[n] = label;
    for (std::uint32_t n : nearest_at_rest(problem, worst, kSeedVertices)) clusters.labels[n] = label;
    fit_clusters(problem, clusters, state, frames);
    reassign_with_own(problem, clusters, state, frames, own);
    errors = cluster_errors(problem, clusters, state, frames);
    if (std::find(clusters.labels.begin(), clusters.labels.end(), label) == clusters.labels.end()) --clusters.count;
  }
}

}  // namespace

void cluster_bones(const Problem& problem, State& state) {
  Clusters clusters;
  clusters.vertices = clustered_vertices(problem);
  clusters.labels.assign(clusters.vertices.size(), 0);
  clusters.count = 1;
  const std::vector<std::size_t> frames = clustering_frames(problem);
  if (problem.fixed > 0) {
    clusters.vertices.resize(problem.vertices);
    std::iota(clusters.vertices.begin(), clusters.vertices.end(), 0u);
    clusters.count = 0;
    seed_free_bones(problem, clusters, state, frames);
  } else {
    fit_clusters(problem, clusters, state, frames);
  }
  while (problem.fixed == 0 && clusters.count < problem.free) {
    const std::size_t before = clusters.count;
    split_round(problem, clusters, cluster_errors(problem, clusters, state, frames));
    if (clusters.count == before) break;  // nothing left to split (fewer vertices than bones)
    fit_clusters(problem, clusters, state, frames);
    reassign(problem, clusters, state, frames);
  }
  // The assignments looked at `frames` alone; the bones now move in every frame.
  std::vector<std::size_t> all(problem.frames);
  std::iota(all.begin(), all.end(), std::size_t{0});
  fit_clusters(problem, clusters, state, all);
  // Each clustered vertex on its bone alone; the others keep the fixed skin.
  std::vector<std::int64_t> label_of(problem.vertices, -1);
  for (std::size_t c = 0; c < clusters.vertices.size(); ++c)
    if (clusters.labels[c] != Clusters::kOwnSkin) label_of[clusters.vertices[c]] = clusters.labels[c];
  Skin weights;
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    if (label_of[v] >= 0) {
      const Influence only{static_cast<std::uint32_t>(problem.fixed + static_cast<std::size_t>(label_of[v])), 1.0f};
      weights.add_vertex(std::span(&only, 1));
      continue;
    }
    std::vector<Influence> row;
    for (std::size_t k = 0; k < problem.input.fixed_skin->joints_of(v).size(); ++k)
      row.push_back({problem.input.fixed_skin->joints_of(v)[k], problem.input.fixed_skin->weights_of(v)[k]});
    weights.add_vertex(row);
  }
  state.weights = std::move(weights);
}

}  // namespace wobble::decomposition
