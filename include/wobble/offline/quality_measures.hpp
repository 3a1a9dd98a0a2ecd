#pragma once
// Quality figures of a deformed mesh against its rest mesh, all invariant to rigid motions of the
// whole mesh and to the unit of length (used by `wobble measure` and the tests):
//  - volume_change: (V - V_rest) / |V_rest|, V the signed volume by the divergence theorem taken
//    about the vertices' centroid (exact enclosed volume for closed meshes; for open meshes a
//    translation-invariant stand-in).
//  - detail_error: how much small-scale shape was lost or distorted. With the uniform Laplacian
//    coordinate delta_i = x_i - mean of its neighbours, a rotation-invariant local detail
//    measure, detail_error = sqrt(mean_i (|delta_i| - |delta_i_rest|)^2) / sqrt(mean_i |delta_i_rest|^2):
//    0 keeps all detail, 1 is the size of all the rest detail (a fully smoothed mesh is near 1).
//  - edge_error: sqrt(mean_e ((|e| - |e_rest|) / |e_rest|)^2), relative edge-length change (RMS).
//  - max_edge_stretch: max_e |e| / |e_rest| - 1 (0: no edge longer than at rest).
//  - flipped_triangles: triangles that agree with their edge neighbours' orientation at rest
//    (sum of the dot products of unit normals > 0) and disagree after deformation (< 0): folds
//    and inversions, independent of the pose's global rotation.
#include <span>
#include <string>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/mesh.hpp>

namespace wobble {

struct FrameQuality {
  double volume_change = 0;
  double detail_error = 0;
  double edge_error = 0;
  double max_edge_stretch = 0;
  std::size_t flipped_triangles = 0;
};

struct QualitySummary {
  std::size_t frames = 0;
  double mean_abs_volume_change = 0, max_abs_volume_change = 0;
  double mean_detail_error = 0, max_detail_error = 0;
  double mean_edge_error = 0;
  double max_edge_stretch = 0;
  std::size_t max_flipped_triangles = 0;
  std::size_t total_flipped_triangles = 0;  // summed over frames
};

// What the measures need from the rest mesh, computed once.
class QualityReference {
 public:
  QualityReference(std::span<const Vec3f> rest, std::span<const Triangle> triangles);
  FrameQuality measure(std::span<const Vec3f> positions) const;
  double rest_volume() const { return rest_volume_; }

 private:
  std::vector<Triangle> triangles_;
  std::vector<std::uint32_t> edge_a_, edge_b_;
  std::vector<double> rest_length_;
  std::vector<std::uint32_t> adjacency_offsets_, adjacency_;  // vertex neighbours
  std::vector<std::uint32_t> triangle_neighbour_offsets_, triangle_neighbours_;
  std::vector<double> rest_detail_;  // |delta_i| at rest
  double rest_detail_rms_ = 0;
  std::vector<std::uint8_t> rest_consistent_;  // per triangle
  double rest_volume_ = 0;
};

QualitySummary summarize(std::span<const FrameQuality> frames);

// Per-vertex distance between two deformations of the same mesh, relative to a length (the
// character size): the maximum and the root mean square over vertices.
struct Difference {
  double max = 0, rms = 0;
};
Difference difference(std::span<const Vec3f> a, std::span<const Vec3f> b, double size);

}  // namespace wobble
