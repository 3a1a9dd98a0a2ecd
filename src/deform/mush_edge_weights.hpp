#pragma once
// The edge weights of Delta Mush's and Direct Delta Mush's smoothings on a welded rest mesh
// (mush_edge_weights.cpp): 1 (uniform), the edge's length, or half the cotangents of the angles
// opposite the edge, clamped at 0. Internal.
#include <span>
#include <vector>

#include <Eigen/Core>

#include <wobble/delta_mush.hpp>
#include <wobble/mesh_topology.hpp>

namespace wobble::mush {

// `edges` sorted by (a, b) with a < b (unique_edges), over the vertices `u` of `triangles`.
std::vector<double> edge_weights(MushSmoothing smoothing, std::span<const Eigen::Vector3d> u,
                                 std::span<const Triangle> triangles, std::span<const Edge> edges);

}  // namespace wobble::mush
