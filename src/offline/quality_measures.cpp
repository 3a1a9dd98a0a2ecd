#include <wobble/offline/quality_measures.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include <wobble/mesh_topology.hpp>

namespace wobble {

namespace {

double signed_volume(std::span<const Vec3f> p, std::span<const Triangle> triangles) {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (const Vec3f& x : p) centre += x.cast<double>();
  if (!p.empty()) centre /= double(p.size());
  double volume = 0;
  for (const Triangle& t : triangles) {
    const Eigen::Vector3d a = p[t[0]].cast<double>() - centre, b = p[t[1]].cast<double>() - centre,
                          c = p[t[2]].cast<double>() - centre;
    volume += a.dot(b.cross(c)) / 6.0;
  }
  return volume;
}

std::vector<Eigen::Vector3d> unit_normals(std::span<const Vec3f> p, std::span<const Triangle> triangles) {
  std::vector<Eigen::Vector3d> normals(triangles.size());
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const Eigen::Vector3d a = p[triangles[t][0]].cast<double>();
    Eigen::Vector3d n = (p[triangles[t][1]].cast<double>() - a).cross(p[triangles[t][2]].cast<double>() - a);
    const double length = n.norm();
    normals[t] = length > 0 ? Eigen::Vector3d(n / length) : Eigen::Vector3d::Zero();
  }
  return normals;
}

}  // namespace

QualityReference::QualityReference(std::span<const Vec3f> rest, std::span<const Triangle> triangles)
    : triangles_(triangles.begin(), triangles.end()) {
  const std::vector<Edge> edges = unique_edges(triangles);
  const Adjacency adjacency = Adjacency::from_edges(rest.size(), edges);
  adjacency_offsets_ = adjacency.offsets;
  adjacency_ = adjacency.neighbours;
  for (const Edge& e : edges) {
    const double length = (rest[e.a].cast<double>() - rest[e.b].cast<double>()).norm();
    if (!(length > 0)) continue;  // zero-length rest edges have no relative change
    edge_a_.push_back(e.a);
    edge_b_.push_back(e.b);
    rest_length_.push_back(length);
  }
  // Triangle neighbours across edges.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> by_edge;
  for (std::uint32_t t = 0; t < triangles.size(); ++t) {
    for (int k = 0; k < 3; ++k) {
      std::uint32_t a = triangles[t][k], b = triangles[t][(k + 1) % 3];
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      by_edge[{a, b}].push_back(t);
    }
  }
  std::vector<std::vector<std::uint32_t>> lists(triangles.size());
  for (const auto& [key, list] : by_edge) {
    for (std::uint32_t t : list) {
      for (std::uint32_t u : list) {
        if (u != t) lists[t].push_back(u);
      }
    }
  }
  triangle_neighbour_offsets_.assign(1, 0);
  for (auto& list : lists) {
    std::sort(list.begin(), list.end());
    triangle_neighbours_.insert(triangle_neighbours_.end(), list.begin(), list.end());
    triangle_neighbour_offsets_.push_back(static_cast<std::uint32_t>(triangle_neighbours_.size()));
  }
  const std::vector<Eigen::Vector3d> normals = unit_normals(rest, triangles);
  rest_consistent_.assign(triangles.size(), 0);
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    double sum = 0;
    for (std::uint32_t k = triangle_neighbour_offsets_[t]; k < triangle_neighbour_offsets_[t + 1]; ++k) {
      sum += normals[t].dot(normals[triangle_neighbours_[k]]);
    }
    rest_consistent_[t] = sum > 0;
  }
  rest_detail_.assign(rest.size(), 0.0);
  double sum2 = 0;
  std::size_t counted = 0;
  for (std::size_t v = 0; v < rest.size(); ++v) {
    const std::uint32_t begin = adjacency_offsets_[v], end = adjacency_offsets_[v + 1];
    if (begin == end) continue;
    Eigen::Vector3d mean = Eigen::Vector3d::Zero();
    for (std::uint32_t k = begin; k < end; ++k) mean += rest[adjacency_[k]].cast<double>();
    rest_detail_[v] = (rest[v].cast<double>() - mean / double(end - begin)).norm();
    sum2 += rest_detail_[v] * rest_detail_[v];
    ++counted;
  }
  rest_detail_rms_ = counted ? std::sqrt(sum2 / double(counted)) : 0.0;
  rest_volume_ = signed_volume(rest, triangles);
}

FrameQuality QualityReference::measure(std::span<const Vec3f> positions) const {
  FrameQuality q;
  const double volume = signed_volume(positions, triangles_);
  q.volume_change = std::abs(rest_volume_) > 0 ? (volume - rest_volume_) / std::abs(rest_volume_) : 0.0;
  double sum2 = 0;
  for (std::size_t e = 0; e < rest_length_.size(); ++e) {
    const double length = (positions[edge_a_[e]].cast<double>() - positions[edge_b_[e]].cast<double>()).norm();
    const double relative = length / rest_length_[e] - 1.0;
    sum2 += relative * relative;
    q.max_edge_stretch = std::max(q.max_edge_stretch, relative);
  }
  q.edge_error = rest_length_.empty() ? 0.0 : std::sqrt(sum2 / double(rest_length_.size()));
  double detail2 = 0;
  std::size_t counted = 0;
  for (std::size_t v = 0; v + 1 < adjacency_offsets_.size(); ++v) {
    const std::uint32_t begin = adjacency_offsets_[v], end = adjacency_offsets_[v + 1];
    if (begin == end) continue;
    Eigen::Vector3d mean = Eigen::Vector3d::Zero();
    for (std::uint32_t k = begin; k < end; ++k) mean += positions[adjacency_[k]].cast<double>();
    const double detail = (positions[v].cast<double>() - mean / double(end - begin)).norm();
    detail2 += (detail - rest_detail_[v]) * (detail - rest_detail_[v]);
    ++counted;
  }
  q.detail_error = rest_detail_rms_ > 0 && counted ? std::sqrt(detail2 / double(counted)) / rest_detail_rms_ : 0.0;
  const std::vector<Eigen::Vector3d> normals = unit_normals(positions, triangles_);
  for (std::size_t t = 0; t < triangles_.size(); ++t) {
    if (!rest_consistent_[t]) continue;
    double sum = 0;
    for (std::uint32_t k = triangle_neighbour_offsets_[t]; k < triangle_neighbour_offsets_[t + 1]; ++k) {
      sum += normals[t].dot(normals[triangle_neighbours_[k]]);
    }
    if (sum < 0) ++q.flipped_triangles;
  }
  return q;
}

QualitySummary summarize(std::span<const FrameQuality> frames) {
  QualitySummary s;
  s.frames = frames.size();
  for (const FrameQuality& f : frames) {
    s.mean_abs_volume_change += std::abs(f.volume_change);
    s.max_abs_volume_change = std::max(s.max_abs_volume_change, std::abs(f.volume_change));
    s.mean_detail_error += f.detail_error;
    s.max_detail_error = std::max(s.max_detail_error, f.detail_error);
    s.mean_edge_error += f.edge_error;
    s.max_edge_stretch = std::max(s.max_edge_stretch, f.max_edge_stretch);
    s.max_flipped_triangles = std::max(s.max_flipped_triangles, f.flipped_triangles);
    s.total_flipped_triangles += f.flipped_triangles;
  }
  if (!frames.empty()) {
    s.mean_abs_volume_change /= double(frames.size());
    s.mean_detail_error /= double(frames.size());
    s.mean_edge_error /= double(frames.size());
  }
  return s;
}

Difference difference(std::span<const Vec3f> a, std::span<const Vec3f> b, double size) {
  Difference d;
  const std::size_t n = std::min(a.size(), b.size());
  double sum2 = 0;
  for (std::size_t v = 0; v < n; ++v) {
    const double distance = (a[v].cast<double>() - b[v].cast<double>()).norm();
    d.max = std::max(d.max, distance);
    sum2 += distance * distance;
  }
  d.rms = n ? std::sqrt(sum2 / double(n)) : 0.0;
  if (size > 0) d.max /= size, d.rms /= size;
  return d;
}

}  // namespace wobble
