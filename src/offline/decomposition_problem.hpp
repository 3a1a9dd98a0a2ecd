#pragma once
// The working data of a skinning decomposition (private to wobble::offline): the input seen as
// bones, the current free transforms and weights, and the per-step functions that update them.
#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include <wobble/mesh_topology.hpp>
#include <wobble/offline/skinning_decomposition.hpp>

namespace wobble::decomposition {

struct Problem {
  Problem(const DecompositionInput& input, const DecompositionParameters& parameters, ThreadPool* pool)
      : input(input), parameters(parameters), pool(pool) {}
  const DecompositionInput& input;
  const DecompositionParameters& parameters;
  ThreadPool* pool = nullptr;
  std::size_t vertices = 0;
  std::size_t frames = 0;  // frames fitted (a periodic input's last frame is its first)
  std::size_t fixed = 0;   // fixed bones come first, free bones after them
  std::size_t free = 0;
  std::vector<Eigen::Vector4d> rest;  // [p_i; 1]
  std::vector<double> target_energy;  // sum_f |y_i(f)|^2
  Adjacency neighbours;               // across UV seams (welded by position)
  double size = 0;                    // the rest bounding-box diagonal
  // With fixed bones: per vertex, sum_f of the fixed skin's squared error (empty without).
  std::vector<double> fixed_errors;
  // The size of the motion the free bones are to carry, the smoothness term's unit: the rest
  // diagonal, or with fixed bones the RMS of what the fixed skin misses (a character's secondary
  // motion, far smaller than the character: measured in its size, the pull would swamp it).
  double motion_scale = 0;

  std::size_t bones() const { return fixed + free; }
  bool usable(std::size_t bone) const { return bone >= fixed || input.fixed_usable[bone]; }
  Eigen::Vector3d target(std::size_t frame, std::size_t vertex) const {
    return input.frames[frame][vertex].cast<double>();
  }
};

struct State {
  std::vector<std::vector<BoneTransform>> free;  // [frame][free bone], frames fitted
  Skin weights;                                  // over all bones
  std::vector<double> errors;                    // per vertex, after the last weights update
};

// The vertices' neighbours for smoothing: mesh edges, with vertices split along seams joined.
Adjacency seam_joined_neighbours(std::size_t vertex_count, std::span<const Triangle> triangles,
                                 std::span<const Vec3f> positions);

// Per vertex, sum over the fitted frames of the fixed skin's squared error (fixed_errors).
std::vector<double> fixed_skin_errors(const Problem& problem);

// Every bone's transform in frame f, fixed then free.
const BoneTransform& bone_transform(const Problem& problem, const State& state, std::size_t frame, std::size_t bone);

// The frame sums of the weights problem over some frames and a run of bones. With S the stacked
// transforms (3F x 4B; block (f, b) is M_b(f)), products = S^T S: its 4x4 block (j, k) is
// sum_f M_j(f)^T M_k(f), so that a vertex's Gram matrix is G_jk = p~^T products_jk p~ whatever
// the number of frames.
struct FrameSums {
  std::vector<std::size_t> frames;
  std::size_t first_bone = 0, bone_count = 0;
  Eigen::MatrixXd stacked;   // S
  Eigen::MatrixXd products;  // S^T S
};
FrameSums frame_sums(const Problem& problem, const State& state, std::vector<std::size_t> frames,
                     std::size_t first_bone, std::size_t bone_count);
// Every fitted frame, every bone.
FrameSums frame_sums(const Problem& problem, const State& state);

// S^T Y for some vertices: column c is sum_f M_b(f)^T y_v(f), v = vertices[c], for every bone b
// of the sums (rows 4b .. 4b+3). One matrix product for all of them.
Eigen::MatrixXd target_sums(const Problem& problem, const FrameSums& sums, std::span<const std::uint32_t> vertices);

// sum_f |y_v(f)|^2 over the sums' frames.
double target_energy(const Problem& problem, const FrameSums& sums, std::size_t vertex);

// The squared error of vertex v over the sums' frames when bone b (counted from the sums' first
// bone) carries it alone; energy is target_energy of v.
inline double single_bone_error(const Problem& problem, const FrameSums& sums, const Eigen::MatrixXd& targets,
                                std::size_t column, std::size_t vertex, std::size_t bone, double energy) {
  const Eigen::Vector4d& p = problem.rest[vertex];
  const auto b = static_cast<Eigen::Index>(4 * bone);
  const auto block = sums.products.block<4, 4>(b, b);
  const auto cross = targets.block<4, 1>(b, static_cast<Eigen::Index>(column));
  return energy - 2 * p.dot(cross) + p.dot(block * p);
}

// The steps (one file each).
void update_transforms(const Problem& problem, State& state);  // bone_transforms.cpp
double update_weights(const Problem& problem, State& state);   // skinning_weights.cpp: the RMSE
// The initial free bones: a clustering of the vertices by their motion (all vertices; with fixed
// bones, those the fixed skin does not reproduce), each cluster one rigid bone carrying its
// vertices alone; the other vertices keep the fixed skin.
void cluster_bones(const Problem& problem, State& state);  // bone_clustering.cpp

}  // namespace wobble::decomposition
