#pragma once
// Skinning decomposition: a mesh animation approximated by linear blend skinning with rigid bones
// (the model of Le and Deng, "Smooth Skinning Decomposition with Rigid Bones", 2012):
//
//   y_i(f) ~ sum_b w_ib M_b(f) [p_i; 1],   w_ib >= 0, sum_b w_ib = 1, at most K non-zero per vertex,
//
// p_i the rest positions, y_i(f) the frames, M_b(f) a 3x4 bind-to-world transform per bone and
// frame. Free bones are rigid (rotation and translation) and found here; fixed bones (a
// character's own joints, for helper bones) keep the transforms they are given. Bones start from
// a clustering of the vertices' motion; then per-frame rigid transforms (weighted Procrustes,
// closed form) and sparse convex weights per vertex (least squares with the constraints above and
// a Laplacian smoothness term) alternate until the error is below a target
// (by default 0.1 % of the motion's size: the rest diagonal) or stops falling.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <wobble/mesh.hpp>
#include <wobble/parameters.hpp>
#include <wobble/skin.hpp>

namespace wobble {

class ThreadPool;

// The settings of a decomposition, described once (decomposition_description(): keys, flags,
// ranges, help); `wobble decompose` and `wobble bake --helper-bones` derive their flags from it.
struct DecompositionParameters {
  int bones = 16;                  // free bones to find
  int influences = 4;              // K: non-zero weights per vertex, fixed and free bones together
  int iterations = 100;            // most alternations of transforms and weights
  double tolerance = 1e-3;         // stop when the RMSE falls by less than this fraction ...
  int patience = 3;                // ... in this many iterations in a row,
  double target_error = 1e-3;      // or as soon as the RMSE is at most this fraction of the motion's size
  int transform_sweeps = 2;        // Gauss-Seidel sweeps over the bones per transform update
  int clustering_iterations = 10;  // reassignments after each split of the initial clustering
  double smoothness = 1e-4;        // weight of the Laplacian term, in squared motion sizes per frame (the
                                   // rest diagonal; with fixed bones, the RMS of what they miss)

  // The first problem ("'influences': 9 is out of range ..."), or empty.
  std::string validate() const;
};

// Its description: a DeformerDescription whose parameters are the fields above (all `bind`:
// nothing of a decomposition changes while it runs). Not a deformer: not in the registry.
const DeformerDescription& decomposition_description();

// A bone's transform in one frame: bind space -> world space, [linear | translation].
using BoneTransform = Eigen::Matrix<double, 3, 4>;

struct DecompositionInput {
  std::span<const Vec3f> rest;                 // p_i, bind space
  std::span<const Triangle> triangles;         // neighbours for the smoothness term (may be empty)
  std::span<const std::vector<Vec3f>> frames;  // y_i(f): [frame][vertex], world space
  // Fixed bones (empty for a plain decomposition): [frame][bone] transforms, which of them may
  // take weight, and the weights the vertices start from (a Skin over the fixed bones).
  std::vector<std::vector<BoneTransform>> fixed;
  std::vector<bool> fixed_usable;
  const Skin* fixed_skin = nullptr;
  // The last frame repeats the first (a loop, both ends): its free transforms are the first's.
  bool periodic = false;
};

struct DecompositionProgress {
  std::size_t iteration = 0, iterations = 0;  // done, most
  double rmse = 0;                            // after this iteration, in scene units
  const char* stage = "";                     // "clustering", "fitting"
};

struct Decomposition {
  std::size_t fixed_bones = 0, free_bones = 0;
  // Free bones' transforms, [frame][free bone] (rigid), and each free bone's centre in bind space
  // (the weighted mean of its vertices: where its joint is placed).
  std::vector<std::vector<BoneTransform>> transforms;
  std::vector<Vec3f> centres;
  // Weights over fixed bones [0, fixed_bones) then free bones [fixed_bones, ...), at most K a vertex.
  Skin weights;
  std::vector<double> rmse_history;  // after each iteration
  std::size_t iterations = 0;
  double rmse = 0;  // of the result, every frame and vertex
};

// Throws Error (naming no file; callers add it) when counts disagree, a position is not finite,
// there are more bones than vertices, or the parameters are out of range.
Decomposition decompose(const DecompositionInput& input, const DecompositionParameters& parameters,
                        ThreadPool* pool = nullptr,
                        const std::function<void(const DecompositionProgress&)>& progress = {});

// Positions of the model in frame f (fixed bones' transforms from the input), into `out`.
void reconstruct_frame(const DecompositionInput& input, const Decomposition& result, std::size_t frame,
                       std::vector<Vec3f>& out);
// RMS over frames and vertices of the model against the input frames.
double reconstruction_rmse(const DecompositionInput& input, const Decomposition& result, ThreadPool* pool = nullptr);

}  // namespace wobble
