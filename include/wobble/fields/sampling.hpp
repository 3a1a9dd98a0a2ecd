#pragma once
// Sample points for reduced-order physics (PhysSkin++ III-A, "cubature points"): interior points
// on a regular grid inside the shape plus surface samples that keep sharp and boundary edges, all
// in the shape's normalised frame (centred on the bounding box, scaled uniformly so that its
// longest side spans [-1, 1]), each with a volume (m^3 of the normalised frame) for integration.
//
// The inside test is the generalized winding number (sum of signed solid angles / 4 pi), which
// degrades gracefully on meshes that are open, holed or self-intersecting: a point counts as
// inside when its winding number is above 0.5.
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

#include <wobble/math.hpp>
#include <wobble/mesh.hpp>

namespace wobble::fields {

// The similarity between a file's coordinates and the normalised frame: n = (x - center) * scale.
struct Normalization {
  Vec3d center = Vec3d::Zero();
  double scale = 1.0;

  Vec3d to_normalized(const Vec3d& x) const { return (x - center) * scale; }
  Vec3d from_normalized(const Vec3d& n) const { return n / scale + center; }
  // Bounding box centre; the longest side maps to length 2. Throws Error for empty or flat-to-a-point input.
  static Normalization of_points(std::span<const Vec3d> points);
};

std::vector<Vec3d> to_double(std::span<const Vec3f> points);

// Generalized winding number of a triangle soup at p (1 inside a closed, outward-oriented mesh,
// 0 outside, fractional near holes).
double winding_number(std::span<const Vec3d> vertices, std::span<const Triangle> triangles, const Vec3d& p);
// The same at many points (threaded over points; identical results for any thread count).
std::vector<double> winding_numbers(std::span<const Vec3d> vertices, std::span<const Triangle> triangles,
                                    std::span<const Vec3d> points);

struct SampleOptions {
  int grid_resolution = 24;         // grid cells along the longest side of [-1, 1]^3
  int surface_samples = 600;        // random area-weighted surface samples
  int edge_samples = 200;           // samples along sharp and boundary edges (split by length)
  double sharp_angle_degrees = 40;  // dihedral angle above which an edge counts as sharp
  double inside_threshold = 0.5;    // winding number above which a grid point is inside
  std::uint64_t seed = 1;           // results are deterministic for a given seed
};

struct SamplePoints {
  std::vector<Vec3d> points;       // normalised frame; interior grid points first
  std::vector<double> volumes;     // per point; sums to the estimated volume of the shape
  std::size_t interior_count = 0;  // points[0, interior_count) are grid points
  double grid_spacing = 0;         // spacing of the interior grid (normalised units)
  Normalization normalization;

  std::size_t size() const { return points.size(); }
  double total_volume() const;
};

// Samples a triangle mesh (positions in file coordinates). The total volume is the number of
// inside grid points times the cell volume; for shapes too thin to hold grid points it is the
// surface area times one grid spacing (a shell). The volume is spread evenly over all points.
// Throws Error for a mesh without triangles.
SamplePoints sample_mesh(const Mesh& mesh, const SampleOptions& options = {});
// Samples a point cloud (e.g. Gaussian centres): the grid cells enclosed by the occupied ones (the
// outside is flood-filled from the grid border) and the occupied cells whose centre lies behind the
// outward normal of its nearest point (point_normals.hpp), plus the points themselves as surface samples.
SamplePoints sample_point_cloud(std::span<const Vec3d> points, const SampleOptions& options = {});
// A deterministic random subset of n points (all when n >= size), volumes rescaled to keep the total.
SamplePoints subsample(const SamplePoints& samples, std::size_t n, std::uint64_t seed = 7);

// A small deterministic generator (splitmix64), so that samples are identical on every platform.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)

 private:
  std::uint64_t state_;
};

}  // namespace wobble::fields
