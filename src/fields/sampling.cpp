// Sample points: generalized winding number (with a bounding-volume hierarchy whose far clusters
// are replaced by their dipole term, after Barill et al. 2018), grid interior points, and surface
// samples with extra samples along sharp and boundary edges.
#include <wobble/fields/sampling.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include <wobble/error.hpp>
#include <wobble/parallel.hpp>
#include <wobble/fields/point_normals.hpp>

#include "core/fail.hpp"
#include "fields/area_weighted_picker.hpp"
#include "fields/grid_flood_fill.hpp"

namespace wobble::fields {

std::uint64_t Random::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Normalization Normalization::of_points(std::span<const Vec3d> points) {
  if (points.empty()) fail_plain("cannot normalise an empty point set");
  Vec3d lo = points[0], hi = points[0];
  for (const Vec3d& p : points) {
    if (!p.allFinite()) fail_plain("cannot normalise: a point is not finite");
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double longest = (hi - lo).maxCoeff();
  if (!(longest > 0)) fail_plain("cannot normalise: all points coincide");
  Normalization n;
  n.center = 0.5 * (lo + hi);
  n.scale = 2.0 / longest;
  return n;
}

std::vector<Vec3d> to_double(std::span<const Vec3f> points) {
  std::vector<Vec3d> out(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) out[i] = points[i].cast<double>();
  return out;
}

namespace {

// Signed solid angle of triangle (a, b, c) seen from the origin (Van Oosterom and Strackee).
double solid_angle(const Vec3d& a, const Vec3d& b, const Vec3d& c) {
  const double la = a.norm(), lb = b.norm(), lc = c.norm();
  const double numerator = a.dot(b.cross(c));
  const double denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
  return 2.0 * std::atan2(numerator, denominator);
}

// A binary tree over triangles; each node keeps its dipole (area-weighted normal at the area centroid).
struct WindingTree {
  struct Node {
    Vec3d centroid = Vec3d::Zero(), normal = Vec3d::Zero();
    double radius = 0;
    int left = -1, right = -1;
    std::uint32_t begin = 0, end = 0;
  };
  std::span<const Vec3d> vertices;
  std::span<const Triangle> triangles;
  std::vector<std::uint32_t> order;
  std::vector<Node> nodes;

  WindingTree(std::span<const Vec3d> v, std::span<const Triangle> t) : vertices(v), triangles(t), order(t.size()) {
    std::iota(order.begin(), order.end(), 0u);
    centers.resize(t.size());
    area_vectors.resize(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
      centers[i] = (v[t[i][0]] + v[t[i][1]] + v[t[i][2]]) / 3.0;
      area_vectors[i] = 0.5 * (v[t[i][1]] - v[t[i][0]]).cross(v[t[i][2]] - v[t[i][0]]);
    }
    nodes.reserve(2 * t.size() / 4 + 2);
    if (!t.empty()) build(0, static_cast<std::uint32_t>(t.size()));
  }

  std::vector<Vec3d> centers, area_vectors;  // per triangle: centroid, area-weighted normal

  int build(std::uint32_t begin, std::uint32_t end) {
    const int index = static_cast<int>(nodes.size());
    nodes.push_back({});
    Node node;
    node.begin = begin;
    node.end = end;
    double area = 0;
    Vec3d lo = Vec3d::Constant(1e300), hi = Vec3d::Constant(-1e300);
    for (std::uint32_t k = begin; k < end; ++k) {
      const Triangle& t = triangles[order[k]];
      const Vec3d& n = area_vectors[order[k]];
      const double a = n.norm();
      node.normal += n;
      node.centroid += a * centers[order[k]];
      area += a;
      for (int j = 0; j < 3; ++j) {
        lo = lo.cwiseMin(vertices[t[j]]);
        hi = hi.cwiseMax(vertices[t[j]]);
      }
    }
    node.centroid = area > 0 ? Vec3d(node.centroid / area) : Vec3d(0.5 * (lo + hi));
    double radius_squared = 0;  // one square root per node, the same radius
    for (std::uint32_t k = begin; k < end; ++k)
      for (int j = 0; j < 3; ++j)
        radius_squared = std::max(radius_squared, (vertices[triangles[order[k]][j]] - node.centroid).squaredNorm());
    node.radius = std::sqrt(radius_squared);
    if (end - begin > 8) {
      int axis = 0;
      (hi - lo).maxCoeff(&axis);
      const std::uint32_t mid = (begin + end) / 2;
      std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                       [&](std::uint32_t a, std::uint32_t b) { return centers[a][axis] < centers[b][axis]; });
      node.left = build(begin, mid);
      node.right = build(mid, end);
    }
    nodes[index] = node;
    return index;
  }

  double winding(const Vec3d& p) const {
    if (nodes.empty()) return 0;
    double sum = 0;
    int stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = nodes[stack[--top]];
      const Vec3d r = node.centroid - p;
      const double distance = r.norm();
      if (node.left >= 0 && distance > 2.5 * node.radius) {
        sum += node.normal.dot(r) / (distance * distance * distance);  // dipole far field
      } else if (node.left < 0) {
        for (std::uint32_t k = node.begin; k < node.end; ++k) {
          const Triangle& t = triangles[order[k]];
          sum += solid_angle(vertices[t[0]] - p, vertices[t[1]] - p, vertices[t[2]] - p);
        }
      } else {
        stack[top++] = node.left;
        stack[top++] = node.right;
      }
    }
    return sum / (4.0 * std::numbers::pi);
  }
};

double triangle_area(const Vec3d& a, const Vec3d& b, const Vec3d& c) { return 0.5 * (b - a).cross(c - a).norm(); }

void spread_volume(SamplePoints& s, double total) {
  s.volumes.assign(s.points.size(), s.points.empty() ? 0.0 : total / static_cast<double>(s.points.size()));
}

struct Grid {
  int n[3];
  Vec3d origin;
  double h;
  Vec3d point(int i, int j, int k) const { return origin + h * Vec3d(i, j, k); }
  std::size_t index(int i, int j, int k) const { return (static_cast<std::size_t>(k) * n[1] + j) * n[0] + i; }
  std::size_t count() const { return static_cast<std::size_t>(n[0]) * n[1] * n[2]; }
};

// Grid of cell centres covering the box [lo, hi] with cells of size h.
Grid make_grid(const Vec3d& lo, const Vec3d& hi, double h) {
  Grid g;
  g.h = h;
  for (int a = 0; a < 3; ++a) {
    g.n[a] = std::max(1, static_cast<int>(std::ceil((hi[a] - lo[a]) / h - 1e-9)));
    g.origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * h * (g.n[a] - 1);
  }
  return g;
}

// `count` area-weighted random points on the triangles; returns the total area.
double add_surface_samples(SamplePoints& s, std::span<const Vec3d> v, std::span<const Triangle> triangles, int count,
                           Random& random) {
  std::vector<double> areas(triangles.size());
  for (std::size_t t = 0; t < triangles.size(); ++t)
    areas[t] = triangle_area(v[triangles[t][0]], v[triangles[t][1]], v[triangles[t][2]]);
  const AreaWeightedPicker picker(areas);
  if (!(picker.total() > 0)) return picker.total();
  for (int k = 0; k < count; ++k) {
    const AreaWeightedPicker::Pick pick = picker(random);
    const Triangle& tri = triangles[pick.triangle];
    s.points.push_back(v[tri[0]] + pick.a * (v[tri[1]] - v[tri[0]]) + pick.b * (v[tri[2]] - v[tri[0]]));
  }
  return picker.total();
}

using Edge = std::pair<std::uint32_t, std::uint32_t>;

// The mesh's feature edges in the order of their vertex pairs (a < b): those not shared by
// exactly two triangles (boundaries, non-manifold edges) and sharp ones (dihedral angle above
// the threshold). The triangles' sides are sorted so that each edge's sides are neighbours.
std::vector<Edge> feature_edges(std::span<const Vec3d> v, std::span<const Triangle> triangles,
                                double sharp_angle_degrees) {
  struct Side {
    Edge edge;
    std::uint32_t triangle;
    bool operator<(const Side& o) const { return edge != o.edge ? edge < o.edge : triangle < o.triangle; }
  };
  std::vector<Side> sides;
  sides.reserve(3 * triangles.size());
  for (std::uint32_t t = 0; t < triangles.size(); ++t)
    for (int e = 0; e < 3; ++e) {
      const std::uint32_t a = triangles[t][e], b = triangles[t][(e + 1) % 3];
      if (a != b) sides.push_back({{std::min(a, b), std::max(a, b)}, t});
    }
  std::sort(sides.begin(), sides.end());
  auto normal = [&](std::uint32_t t) {
    const Triangle& tri = triangles[t];
    return Vec3d((v[tri[1]] - v[tri[0]]).cross(v[tri[2]] - v[tri[0]]).normalized());
  };
  const double cos_sharp = std::cos(sharp_angle_degrees * std::numbers::pi / 180.0);
  std::vector<Edge> features;
  for (std::size_t i = 0, j = 0; i < sides.size(); i = j) {
    while (j < sides.size() && sides[j].edge == sides[i].edge) ++j;
    bool feature = j - i != 2;
    if (!feature) {
      const Vec3d n0 = normal(sides[i].triangle), n1 = normal(sides[i + 1].triangle);
      feature = n0.allFinite() && n1.allFinite() && n0.dot(n1) < cos_sharp;
    }
    if (feature) features.push_back(sides[i].edge);
  }
  return features;
}

// `count` points evenly spaced along the chain of feature edges, from a random offset.
void add_edge_samples(SamplePoints& s, std::span<const Vec3d> v, const std::vector<Edge>& features, int count,
                      Random& random) {
  double feature_length = 0;
  for (const auto& [a, b] : features) feature_length += (v[a] - v[b]).norm();
  if (!(feature_length > 0)) return;
  const double step = feature_length / count;
  double carry = random.uniform() * step;  // distance to the next sample along the chain of edges
  for (const auto& [a, b] : features) {
    const double length = (v[a] - v[b]).norm();
    while (carry < length) {
      s.points.push_back(v[a] + (carry / length) * (v[b] - v[a]));
      carry += step;
    }
    carry -= length;
  }
}

}  // namespace

double winding_number(std::span<const Vec3d> vertices, std::span<const Triangle> triangles, const Vec3d& p) {
  double sum = 0;
  for (const Triangle& t : triangles) sum += solid_angle(vertices[t[0]] - p, vertices[t[1]] - p, vertices[t[2]] - p);
  return sum / (4.0 * std::numbers::pi);
}

std::vector<double> winding_numbers(std::span<const Vec3d> vertices, std::span<const Triangle> triangles,
                                    std::span<const Vec3d> points) {
  WindingTree tree(vertices, triangles);
  std::vector<double> out(points.size());
  ThreadPool pool;
  pool.parallel_for(points.size(), 256, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) out[i] = tree.winding(points[i]);
  });
  return out;
}

double SamplePoints::total_volume() const { return std::accumulate(volumes.begin(), volumes.end(), 0.0); }

SamplePoints sample_mesh(const Mesh& mesh, const SampleOptions& options) {
  if (mesh.triangles.empty()) fail_plain("cannot sample a mesh without triangles");
  if (options.grid_resolution < 2 || options.grid_resolution > 512)
    fail_plain("grid resolution {} out of range [2, 512]", options.grid_resolution);
  SamplePoints s;
  std::vector<Vec3d> v = to_double(mesh.positions);
  s.normalization = Normalization::of_points(v);
  for (Vec3d& p : v) p = s.normalization.to_normalized(p);
  for (const Triangle& t : mesh.triangles)
    for (std::uint32_t i : t)
      if (i >= v.size()) fail_plain("triangle refers to vertex {} of {}", i, v.size());

  // Interior: grid cell centres with winding number above the threshold.
  Vec3d lo = Vec3d::Constant(1e300), hi = Vec3d::Constant(-1e300);
  for (const Vec3d& p : v) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double h = 2.0 / options.grid_resolution;
  const Grid grid = make_grid(lo, hi, h);
  std::vector<Vec3d> candidates;
  candidates.reserve(grid.count());
  for (int k = 0; k < grid.n[2]; ++k)
    for (int j = 0; j < grid.n[1]; ++j)
      for (int i = 0; i < grid.n[0]; ++i) candidates.push_back(grid.point(i, j, k));
  const std::vector<double> w = winding_numbers(v, mesh.triangles, candidates);
  for (std::size_t c = 0; c < candidates.size(); ++c)
    if (w[c] > options.inside_threshold) s.points.push_back(candidates[c]);
  s.interior_count = s.points.size();
  s.grid_spacing = h;

  Random random(options.seed);
  const double area = add_surface_samples(s, v, mesh.triangles, options.surface_samples, random);
  if (options.edge_samples > 0)
    add_edge_samples(s, v, feature_edges(v, mesh.triangles, options.sharp_angle_degrees), options.edge_samples, random);

  const double total = s.interior_count > 0 ? static_cast<double>(s.interior_count) * h * h * h : area * h;
  spread_volume(s, total);
  return s;
}

SamplePoints sample_point_cloud(std::span<const Vec3d> input, const SampleOptions& options) {
  if (input.empty()) fail_plain("cannot sample an empty point cloud");
  SamplePoints s;
  s.normalization = Normalization::of_points(input);
  std::vector<Vec3d> v(input.size());
  for (std::size_t i = 0; i < input.size(); ++i) v[i] = s.normalization.to_normalized(input[i]);
  Vec3d lo = Vec3d::Constant(1e300), hi = Vec3d::Constant(-1e300);
  for (const Vec3d& p : v) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double h = 2.0 / options.grid_resolution;
  // One empty cell of margin all around, so that the outside is connected.
  const Grid grid = make_grid(lo - Vec3d::Constant(h), hi + Vec3d::Constant(h), h);
  std::vector<std::uint8_t> state(grid.count(), 0);  // 0 unknown, 1 occupied, 2 outside
  auto cell_of = [&](const Vec3d& p, int* c) {
    for (int a = 0; a < 3; ++a)
      c[a] = std::clamp(static_cast<int>(std::floor((p[a] - grid.origin[a]) / h + 0.5)), 0, grid.n[a] - 1);
  };
  for (const Vec3d& p : v) {
    int c[3];
    cell_of(p, c);
    state[grid.index(c[0], c[1], c[2])] = 1;
  }
  flood_fill_outside({grid.n[0], grid.n[1], grid.n[2]}, state, 0, 2);
  // Enclosed cells are inside; an occupied cell only when its centre lies behind the outward
  // normal of the nearest point (else the surface layer would count whole, fattening thin parts).
  std::vector<Vec3d> enclosed, occupied;
  for (int k = 0; k < grid.n[2]; ++k)
    for (int j = 0; j < grid.n[1]; ++j)
      for (int i = 0; i < grid.n[0]; ++i) {
        const std::uint8_t st = state[grid.index(i, j, k)];
        if (st != 2) (st == 1 ? occupied : enclosed).push_back(grid.point(i, j, k));
      }
  std::vector<Vec3d> interior = enclosed;
  interior.insert(interior.end(), occupied.begin(), occupied.end());
  const std::vector<bool> behind = behind_nearest_normal(v, occupied, interior, h);
  s.points = enclosed;
  for (std::size_t c = 0; c < occupied.size(); ++c)
    if (behind[c]) s.points.push_back(occupied[c]);
  s.interior_count = s.points.size();
  s.grid_spacing = h;
  const double total = static_cast<double>(s.interior_count) * h * h * h;
  Random random(options.seed);
  const std::size_t surface =
      std::min<std::size_t>(v.size(), static_cast<std::size_t>(std::max(0, options.surface_samples)));
  for (std::size_t k = 0; k < surface; ++k) s.points.push_back(v[random.next() % v.size()]);
  spread_volume(s, total);
  return s;
}

SamplePoints subsample(const SamplePoints& samples, std::size_t n, std::uint64_t seed) {
  if (n >= samples.size()) return samples;
  std::vector<std::size_t> index(samples.size());
  std::iota(index.begin(), index.end(), std::size_t{0});
  Random random(seed);
  for (std::size_t i = 0; i < n; ++i) std::swap(index[i], index[i + random.next() % (index.size() - i)]);
  index.resize(n);
  std::sort(index.begin(), index.end());
  SamplePoints out;
  out.normalization = samples.normalization;
  out.grid_spacing = samples.grid_spacing;
  const double total = samples.total_volume();
  for (std::size_t i : index) {
    out.points.push_back(samples.points[i]);
    if (i < samples.interior_count) ++out.interior_count;
  }
  spread_volume(out, total);
  return out;
}

}  // namespace wobble::fields
