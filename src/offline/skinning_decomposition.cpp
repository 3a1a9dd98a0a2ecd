// The decomposition's outer loop: checks, the initial clustering, then transforms and weights in
// turn until the RMSE is small enough or stops falling; bones that lose every vertex start again where the model
// is worst.
#include <wobble/offline/skinning_decomposition.hpp>

#include <algorithm>
#include <cmath>

#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "offline/decomposition_problem.hpp"
#include "offline/procrustes.hpp"

namespace wobble {
namespace {

using decomposition::Problem;
using decomposition::State;

void check_input(const DecompositionInput& input, const DecompositionParameters& parameters) {
  if (std::string problem = parameters.validate(); !problem.empty()) fail_plain("decompose: {}", problem);
  const std::size_t n = input.rest.size();
  if (n == 0) fail_plain("the rest pose has no vertices");
  if (input.frames.empty()) fail_plain("the animation has no frames");
  if (input.periodic && input.frames.size() < 2) fail_plain("a loop needs at least two frames (both ends)");
  for (std::size_t v = 0; v < n; ++v)
    if (!input.rest[v].allFinite()) fail_plain("the rest pose: vertex {} is not finite", v);
  for (std::size_t f = 0; f < input.frames.size(); ++f) {
    if (input.frames[f].size() != n)
      fail_plain("frame {} has {} vertices, the rest pose {}", f, input.frames[f].size(), n);
    for (std::size_t v = 0; v < n; ++v)
      if (!input.frames[f][v].allFinite()) fail_plain("frame {}: vertex {} is not finite", f, v);
  }
  if (static_cast<std::size_t>(parameters.bones) > n)
    fail_plain("{} bones for {} vertices: at most one bone a vertex", parameters.bones, n);
  if (input.fixed.empty()) return;
  if (input.fixed.size() != input.frames.size())
    fail_plain("{} frames of fixed bones for {} frames", input.fixed.size(), input.frames.size());
  if (!input.fixed_skin || input.fixed_skin->vertex_count() != n)
    fail_plain("the fixed bones need a skin of {} vertices", n);
  for (const auto& frame : input.fixed)
    if (frame.size() != input.fixed_usable.size())
      fail_plain("fixed bones: {} transforms for {} bones", frame.size(), input.fixed_usable.size());
}

Problem make_problem(const DecompositionInput& input, const DecompositionParameters& parameters, ThreadPool* pool) {
  Problem problem(input, parameters, pool);
  problem.vertices = input.rest.size();
  problem.frames = input.frames.size() - (input.periodic ? 1 : 0);
  problem.fixed = input.fixed_usable.size();
  problem.free = static_cast<std::size_t>(parameters.bones);
  Eigen::AlignedBox3d box;
  for (const Vec3f& p : input.rest) {
    problem.rest.emplace_back(p.x(), p.y(), p.z(), 1.0);
    box.extend(p.cast<double>());
  }
  problem.size = box.diagonal().norm();
  problem.target_energy.assign(problem.vertices, 0.0);
  for (std::size_t v = 0; v < problem.vertices; ++v)
    for (std::size_t f = 0; f < problem.frames; ++f) problem.target_energy[v] += problem.target(f, v).squaredNorm();
  problem.neighbours = decomposition::seam_joined_neighbours(problem.vertices, input.triangles, input.rest);
  problem.motion_scale = problem.size;
  if (problem.fixed > 0) {
    problem.fixed_errors = decomposition::fixed_skin_errors(problem);
    double total = 0;
    for (double e : problem.fixed_errors) total += e;
    problem.motion_scale = std::sqrt(total / static_cast<double>(problem.vertices * problem.frames));
  }
  return problem;
}

// A free bone that carries no vertex any more starts again at the worst-reproduced vertex: fitted
// to it and its neighbours, and given that vertex whole, so that the next updates can grow it.
bool restart_dead_bones(const Problem& problem, State& state) {
  std::vector<double> carried(problem.free, 0.0);
  for (std::size_t k = 0; k < state.weights.joints.size(); ++k)
    if (state.weights.joints[k] >= problem.fixed)
      carried[state.weights.joints[k] - problem.fixed] += state.weights.weights[k];
  bool any = false;
  std::vector<double> errors = state.errors;
  for (std::size_t b = 0; b < problem.free; ++b) {
    if (carried[b] > 0) continue;
    const auto worst = static_cast<std::size_t>(std::max_element(errors.begin(), errors.end()) - errors.begin());
    errors[worst] = -1;
    for (std::uint32_t n : problem.neighbours.of(worst)) errors[n] = -1;  // the next restart goes elsewhere
    for (std::size_t f = 0; f < problem.frames; ++f) {
      decomposition::ProcrustesSums sums;
      sums.add(1.0, problem.rest[worst].head<3>(), problem.target(f, worst));
      for (std::uint32_t n : problem.neighbours.of(worst))
        sums.add(1.0, problem.rest[n].head<3>(), problem.target(f, n));
      decomposition::fit_rigid(sums, state.free[f][b]);
    }
    Skin weights;
    for (std::size_t v = 0; v < problem.vertices; ++v) {
      std::vector<Influence> row;
      if (v == worst) {
        row.push_back({static_cast<std::uint32_t>(problem.fixed + b), 1.0f});
      } else {
        for (std::size_t k = 0; k < state.weights.joints_of(v).size(); ++k)
          row.push_back({state.weights.joints_of(v)[k], state.weights.weights_of(v)[k]});
      }
      weights.add_vertex(row);
    }
    state.weights = std::move(weights);
    any = true;
  }
  return any;
}

std::vector<Vec3f> bone_centres(const Problem& problem, const State& state) {
  std::vector<Eigen::Vector3d> sums(problem.free, Eigen::Vector3d::Zero());
  std::vector<double> weights(problem.free, 0.0);
  for (std::size_t v = 0; v < problem.vertices; ++v) {
    const auto bones = state.weights.joints_of(v);
    const auto values = state.weights.weights_of(v);
    for (std::size_t k = 0; k < bones.size(); ++k) {
      if (bones[k] < problem.fixed) continue;
      sums[bones[k] - problem.fixed] += values[k] * problem.rest[v].head<3>();
      weights[bones[k] - problem.fixed] += values[k];
    }
  }
  std::vector<Vec3f> centres(problem.free, Vec3f::Zero());
  for (std::size_t b = 0; b < problem.free; ++b)
    if (weights[b] > 0) centres[b] = (sums[b] / weights[b]).cast<float>();
  return centres;
}

}  // namespace

Decomposition decompose(const DecompositionInput& input, const DecompositionParameters& parameters, ThreadPool* pool,
                        const std::function<void(const DecompositionProgress&)>& progress) {
  check_input(input, parameters);
  const Problem problem = make_problem(input, parameters, pool);
  State state;
  state.free.assign(problem.frames, std::vector<BoneTransform>(problem.free, BoneTransform::Identity()));
  const auto report = [&](std::size_t done, double rmse, const char* stage) {
    if (progress) progress({done, static_cast<std::size_t>(parameters.iterations), rmse, stage});
  };
  report(0, 0, "clustering");
  decomposition::cluster_bones(problem, state);

  Decomposition result;
  int calm = 0;  // iterations in a row that gained less than the tolerance
  for (int iteration = 0; iteration < parameters.iterations; ++iteration) {
    const double rmse = decomposition::update_weights(problem, state);
    result.rmse_history.push_back(rmse);
    result.iterations = static_cast<std::size_t>(iteration + 1);
    report(result.iterations, rmse, "fitting");
    if (rmse <= parameters.target_error * problem.motion_scale) break;
    const bool restarted = iteration < parameters.iterations / 2 && restart_dead_bones(problem, state);
    if (iteration > 0 && !restarted) {
      const double before = result.rmse_history[result.rmse_history.size() - 2];
      calm = before - rmse < parameters.tolerance * before ? calm + 1 : 0;
      if (calm >= parameters.patience) break;
    }
    if (iteration + 1 < parameters.iterations) decomposition::update_transforms(problem, state);
  }

  result.fixed_bones = problem.fixed;
  result.free_bones = problem.free;
  result.transforms = std::move(state.free);
  if (input.periodic) result.transforms.push_back(result.transforms.front());  // the loop's last frame is its first
  result.centres = bone_centres(problem, state);
  result.weights = std::move(state.weights);
  result.rmse = reconstruction_rmse(input, result, pool);
  return result;
}

void reconstruct_frame(const DecompositionInput& input, const Decomposition& result, std::size_t frame,
                       std::vector<Vec3f>& out) {
  out.resize(input.rest.size());
  for (std::size_t v = 0; v < input.rest.size(); ++v) {
    const Eigen::Vector4d p(input.rest[v].x(), input.rest[v].y(), input.rest[v].z(), 1.0);
    const auto bones = result.weights.joints_of(v);
    const auto weights = result.weights.weights_of(v);
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    for (std::size_t k = 0; k < bones.size(); ++k) {
      const BoneTransform& m = bones[k] < result.fixed_bones ? input.fixed[frame][bones[k]]
                                                             : result.transforms[frame][bones[k] - result.fixed_bones];
      sum += static_cast<double>(weights[k]) * (m * p);
    }
    out[v] = sum.cast<float>();
  }
}

double reconstruction_rmse(const DecompositionInput& input, const Decomposition& result, ThreadPool* pool) {
  std::vector<double> frame_errors(input.frames.size(), 0.0);
  parallel_for(pool, input.frames.size(), 1, [&](std::size_t begin, std::size_t end) {
    std::vector<Vec3f> positions;
    for (std::size_t f = begin; f < end; ++f) {
      reconstruct_frame(input, result, f, positions);
      for (std::size_t v = 0; v < positions.size(); ++v)
        frame_errors[f] += (positions[v].cast<double>() - input.frames[f][v].cast<double>()).squaredNorm();
    }
  });
  double total = 0;
  for (double e : frame_errors) total += e;
  return std::sqrt(total / static_cast<double>(input.frames.size() * input.rest.size()));
}

}  // namespace wobble
