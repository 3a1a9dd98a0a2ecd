#pragma once
// What a neural fields network sees of one shape (PhysSkin++ III-B): a surface point cloud with
// normals for the shape encoder and cubature points with volumes (the physics runtime's sampler)
// for the losses and the output normalisation, all in the runtime's normalised frame (centred,
// longest side spanning [-1, 1]).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <wobble/mesh.hpp>
#include <wobble/fields/sampling.hpp>

namespace wobble::fields {

struct ShapeSampleOptions {
  int surface_points = 1024;   // encoder input
  int cubature_points = 1000;  // candidates for the losses (runtime sampler, subsampled)
  int grid_resolution = 16;    // runtime sampler's interior grid
};

struct ShapeSample {
  std::string name;
  Eigen::MatrixXf surface;   // N x 6: position, unit normal (normalised frame)
  Eigen::MatrixXf cubature;  // C x 3 (normalised frame)
  Eigen::VectorXf volumes;   // C, summing to the estimated volume
  Normalization normalization;
  Eigen::MatrixXf rig_weights;  // C x joints at the cubature points (rig-complementary training); else empty
};

// Area-weighted random surface points with their triangle's normal. Throws Error for a mesh
// without triangles of positive area.
Eigen::MatrixXf surface_point_cloud(const Mesh& mesh, const Normalization& normalization, int count,
                                    std::uint64_t seed);
// Surface cloud plus the runtime's cubature samples. Deterministic for a seed. A mesh without
// triangles is a point cloud: make_point_shape_sample of its positions.
ShapeSample make_shape_sample(const Mesh& mesh, std::string name, const ShapeSampleOptions& options,
                              std::uint64_t seed);
// A point cloud without a mesh (file coordinates; e.g. Gaussian centres): the encoder's points
// drawn from the cloud with outward normals estimated from it (point_normals.hpp), cubature
// points from the point-cloud sampler (sample_point_cloud: occupied and enclosed grid cells plus
// the points). Throws Error for fewer than 3 points.
ShapeSample make_point_shape_sample(std::span<const Vec3d> points, std::string name, const ShapeSampleOptions& options,
                                    std::uint64_t seed);
// The cubature points as the runtime's points (normalised frame), for evaluating fields there.
std::vector<Vec3d> cubature_points(const ShapeSample& sample);

}  // namespace wobble::fields
