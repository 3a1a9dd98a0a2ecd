#include <wobble/delta_mush.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numbers>

#include <fmt/core.h>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/delta_mush_kernels.hpp"
#include "deform/deformers.hpp"
#include "deform/describe.hpp"
#include "deform/mush_edge_weights.hpp"
#include "deform/vertex_costs.hpp"

namespace wobble {

namespace {

constexpr std::size_t kGrain = 8192;  // the largest chunk (chunk_grain: the same chunks for any thread count)

// The centroid of positions (double sums in a fixed order: the same bytes for any thread count).
// Four sums taking the vertices in turn, so that the additions do not wait on each other.
Vec3f centroid(std::span<const Vec3f> positions) {
  Eigen::Vector3d s0 = Eigen::Vector3d::Zero(), s1 = s0, s2 = s0, s3 = s0;
  std::size_t v = 0;
  for (; v + 4 <= positions.size(); v += 4) {
    s0 += positions[v].cast<double>(), s1 += positions[v + 1].cast<double>();
    s2 += positions[v + 2].cast<double>(), s3 += positions[v + 3].cast<double>();
  }
  for (; v < positions.size(); ++v) s0 += positions[v].cast<double>();
  const Eigen::Vector3d sum = (s0 + s1) + (s2 + s3);
  return positions.empty() ? Vec3f::Zero() : Vec3f((sum / double(positions.size())).cast<float>());
}

}  // namespace

const std::vector<std::pair<std::string, MushSmoothing>>& mush_smoothing_names() {
  static const std::vector<std::pair<std::string, MushSmoothing>> names = {
      {"uniform", MushSmoothing::Uniform}, {"length", MushSmoothing::Length}, {"cotangent", MushSmoothing::Cotangent}};
  return names;
}

const std::vector<std::pair<std::string, MushMode>>& mush_mode_names() {
  static const std::vector<std::pair<std::string, MushMode>> names = {{"wobble", MushMode::Wobble},
                                                                      {"blender", MushMode::Blender}};
  return names;
}

const std::vector<std::pair<std::string, BlenderVersion>>& blender_version_names() {
  static const std::vector<std::pair<std::string, BlenderVersion>> names = {{"3.4", BlenderVersion::V3_4},
                                                                            {"4.3", BlenderVersion::V4_3}};
  return names;
}

namespace {

template <typename Enum>
Enum parse_name(const std::vector<std::pair<std::string, Enum>>& names, std::string_view text, const char* what) {
  std::string known;
  for (const auto& [name, value] : names) {
    if (name == text) return value;
    known += (known.empty() ? "" : ", ") + name;
  }
  fail_plain("delta mush: unknown {} '{}' ({})", what, text, known);
}

template <typename Enum>
const char* name_of(const std::vector<std::pair<std::string, Enum>>& names, Enum value) {
  for (const auto& [name, v] : names) {
    if (v == value) return name.c_str();
  }
  return "?";
}

}  // namespace

MushSmoothing parse_mush_smoothing(std::string_view text) {
  return parse_name(mush_smoothing_names(), text, "smoothing");
}
MushMode parse_mush_mode(std::string_view text) { return parse_name(mush_mode_names(), text, "mode"); }
const char* to_string(MushSmoothing smoothing) { return name_of(mush_smoothing_names(), smoothing); }
const char* to_string(MushMode mode) { return name_of(mush_mode_names(), mode); }

std::string DeltaMushSettings::validate(std::size_t vertex_count) const {
  if (!mask.empty() && mask.size() != vertex_count) {
    return fmt::format("mask has {} values for {} vertices", mask.size(), vertex_count);
  }
  DeltaMushParameters parameters{*this, {mask, {}}};
  parameters.mush.mask.clear();
  return delta_mush_description().problems(&parameters);
}

void DeltaMush::set_output(float scale, bool smooth_only) {
  settings_.scale = scale;
  settings_.smooth_only = smooth_only;
}

void DeltaMush::check_same_mesh(std::span<const Vec3f> rest, std::span<const Triangle> triangles) const {
  if (!bound_) fail_plain("delta mush: not bound to a mesh");
  const MeshFingerprint other = MeshFingerprint::of(rest, triangles);
  if (!(other == fingerprint_)) {
    fail_plain("delta mush: bind data was computed from another mesh ({}); this mesh has {}", fingerprint_.describe(),
               other.describe());
  }
}

void DeltaMush::bind(std::span<const Vec3f> rest, std::span<const Triangle> triangles,
                     const DeltaMushSettings& settings) {
  if (std::string problem = settings.validate(rest.size()); !problem.empty()) fail_plain("delta mush: {}", problem);
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (std::uint32_t v : triangles[t]) {
      if (v >= rest.size()) fail_plain("delta mush: triangle {} uses vertex {}, the mesh has {}", t, v, rest.size());
    }
  }
  for (std::size_t v = 0; v < rest.size(); ++v) {
    if (!rest[v].allFinite()) fail_plain("delta mush: rest position of vertex {} is not finite", v);
  }
  bound_ = false;
  folded_.reset();
  folded_corners_.reset();
  settings_ = settings;
  for (float& m : settings_.mask) m = std::clamp(settings_.invert_mask ? 1.0f - m : m, 0.0f, 1.0f);
  fingerprint_ = MeshFingerprint::of(rest, triangles);
  triangles_.assign(triangles.begin(), triangles.end());
  if (settings_.mode == MushMode::Blender) {
    bind_blender(rest);
  } else {
    bind_wobble(rest);
  }
  bound_ = true;
}

void DeltaMush::check_position_count(std::size_t count) const {
  if (count != fingerprint_.vertex_count)
    fail_plain("delta mush: bind data was computed from another mesh ({}); got {} positions", fingerprint_.describe(),
               count);
}

void DeltaMush::evaluate(std::span<Vec3f> positions, ThreadPool* pool) {
  if (!bound_) fail_plain("delta mush: evaluate() before bind()");
  check_position_count(positions.size());
  if (settings_.mode == MushMode::Blender) {
    evaluate_blender(positions, pool);
  } else {
    evaluate_wobble(positions, pool);
  }
}

void DeltaMush::recompute_normals(std::span<const Vec3f> positions, std::span<Vec3f> normals) {
  area_weighted_normals(triangles_, positions, normals, normal_scratch_);
}

// ------------------------------------------------------------------------------------------
// Wobble mode

namespace {

// Welded vertex -> its original vertices: members[offsets[w], offsets[w + 1]).
struct WeldGroups {
  std::vector<std::uint32_t> offsets, members;
};

WeldGroups weld_groups(const Welding& welding) {
  const std::uint32_t n = welding.welded_count;
  WeldGroups groups{std::vector<std::uint32_t>(n + 1, 0), std::vector<std::uint32_t>(welding.welded_of.size())};
  for (std::uint32_t w : welding.welded_of) ++groups.offsets[w + 1];
  for (std::uint32_t w = 0; w < n; ++w) groups.offsets[w + 1] += groups.offsets[w];
  std::vector<std::uint32_t> fill(groups.offsets.begin(), groups.offsets.end() - 1);
  for (std::uint32_t v = 0; v < welding.welded_of.size(); ++v) groups.members[fill[welding.welded_of[v]]++] = v;
  return groups;
}

// Per welded vertex smoothing weight: the members' mean mask, 0 on pinned boundaries.
std::vector<float> smoothing_weights(const DeltaMushSettings& settings, const WeldGroups& groups,
                                     std::span<const Edge> edges) {
  const std::size_t n = groups.offsets.size() - 1;
  std::vector<float> weight(n, 1.0f);
  if (!settings.mask.empty()) {
    for (std::uint32_t w = 0; w < n; ++w) {
      double sum = 0;
      for (std::uint32_t k = groups.offsets[w]; k < groups.offsets[w + 1]; ++k) sum += settings.mask[groups.members[k]];
      weight[w] = static_cast<float>(sum / (groups.offsets[w + 1] - groups.offsets[w]));
    }
  }
  if (settings.pin_boundary) {
    const std::vector<bool> boundary = boundary_vertices(n, edges);
    for (std::uint32_t w = 0; w < n; ++w)
      if (boundary[w]) weight[w] = 0.0f;
  }
  return weight;
}

// The smoothing operator's rows, new_i = self_i p_i + sum_j row_ij p_j: row_ij = lambda m_i w_ij /
// sum_j w_ij (uniform where every weight of the row vanished), self_i = 1 - lambda m_i, and
// uniform smoothing's common weight lambda m_i / degree_i.
struct RowWeights {
  std::vector<float> row, self, uniform;
};

RowWeights row_weights(const Adjacency& adjacency, std::span<const Edge> edges, const std::vector<double>& edge_weight,
                       std::span<const float> vertex_weight, float lambda, bool uniform) {
  const std::size_t n = vertex_weight.size();
  RowWeights weights{std::vector<float>(adjacency.neighbours.size(), 0.0f), std::vector<float>(n, 1.0f),
                     std::vector<float>(n, 0.0f)};
  // Per vertex, the weights of its edges in neighbour order.
  std::vector<double> row(adjacency.neighbours.size(), 1.0);
  if (!uniform) {
    std::vector<std::uint32_t> fill(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
    // Edges sorted by (a, b) and neighbour lists sorted ascending: same placement as from_edges.
    for (std::size_t e = 0; e < edges.size(); ++e) row[fill[edges[e].b]++] = edge_weight[e];
    for (std::size_t e = 0; e < edges.size(); ++e) row[fill[edges[e].a]++] = edge_weight[e];
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t begin = adjacency.offsets[i], end = adjacency.offsets[i + 1];
    if (begin == end) continue;
    double sum = 0;
    for (std::uint32_t k = begin; k < end; ++k) sum += row[k];
    const bool fallback = !(sum > 0);  // all weights vanished: uniform for this vertex
    const double step = double(lambda) * vertex_weight[i];
    for (std::uint32_t k = begin; k < end; ++k)
      weights.row[k] = static_cast<float>(fallback ? step / (end - begin) : step * row[k] / sum);
    weights.uniform[i] = static_cast<float>(step / (end - begin));
    weights.self[i] = static_cast<float>(1.0 - step);
  }
  return weights;
}

}  // namespace

void DeltaMush::bind_wobble(std::span<const Vec3f> rest) {
  welding_ = Welding::by_position(rest);
  const std::uint32_t n = welding_.welded_count;
  WeldGroups groups = weld_groups(welding_);
  std::vector<Vec3f> welded_rest(n);
  std::vector<Eigen::Vector3d> welded_rest_double(n);
  for (std::uint32_t w = 0; w < n; ++w) {
    welded_rest[w] = rest[groups.members[groups.offsets[w]]];
    welded_rest_double[w] = welded_rest[w].cast<double>();
  }
  const std::vector<Triangle> triangles = welding_.weld(triangles_);
  const std::vector<Edge> edges = unique_edges(triangles);
  const Adjacency adjacency = Adjacency::from_edges(n, edges);
  vertex_weight_ = smoothing_weights(settings_, groups, edges);
  weld_offsets_ = std::move(groups.offsets);
  weld_members_ = std::move(groups.members);
  const std::vector<double> edge_weight = mush::edge_weights(settings_.smoothing, welded_rest_double, triangles, edges);
  const bool uniform = settings_.smoothing == MushSmoothing::Uniform;
  const RowWeights weights = row_weights(adjacency, edges, edge_weight, vertex_weight_, settings_.step, uniform);

  // Buffers: whole groups of vertices for the kernels, plus one group whose first two rows stay
  // zero (the padding neighbour, or pair of neighbours, of short rows).
  const std::uint32_t zero_row = static_cast<std::uint32_t>(mush::padded_rows(n));
  mush::SweepRows rows = mush::SweepRows::from_csr(
      adjacency.offsets, adjacency.neighbours, uniform ? std::span<const float>() : std::span<const float>(weights.row),
      weights.self, weights.uniform, zero_row);
  mush::plan_layout(rows, settings_.iterations);
  rows_ = std::make_shared<const mush::SweepRows>(std::move(rows));
  buffer_a_.assign(4 * (std::size_t(zero_row) + mush::kLanes), 0.0f);
  buffer_b_.assign(4 * (std::size_t(zero_row) + mush::kLanes), 0.0f);
  const Vec3f centre = centroid(rest);
  for (std::uint32_t w = 0; w < n; ++w) {
    const Vec3f p = welded_rest[w] - centre;
    for (int c = 0; c < 3; ++c) buffer_a_[4 * w + c] = p[c];
  }
  smooth_wobble(nullptr);
  bind_corners(rest, centre, buffer_a_.data(), corners_, keep_input_);
}

void DeltaMush::bind_corners(std::span<const Vec3f> rest, const Vec3f& centre, const float* smoothed,
                             std::shared_ptr<const mush::CornerBlocks>& corners,
                             std::vector<std::uint8_t>& keep_input) const {
  const std::size_t n = welding_.welded_count;
  const std::vector<Triangle> triangles = welding_.weld(triangles_);
  auto S = [&](std::uint32_t w) { return Eigen::Vector3d(smoothed[4 * w], smoothed[4 * w + 1], smoothed[4 * w + 2]); };

  // Corners per welded vertex, weighted by their angle on the smoothed rest mesh.
  std::vector<std::uint32_t> corner_offsets(n + 1, 0);
  for (const Triangle& t : triangles) {
    for (int k = 0; k < 3; ++k) ++corner_offsets[t[k] + 1];
  }
  for (std::size_t w = 0; w < n; ++w) corner_offsets[w + 1] += corner_offsets[w];
  const std::size_t corner_count = corner_offsets.back();
  std::vector<std::uint32_t> next(corner_count), prev(corner_count);
  {
    std::vector<std::uint32_t> fill(corner_offsets.begin(), corner_offsets.end() - 1);
    for (const Triangle& t : triangles) {
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t slot = fill[t[k]]++;
        next[slot] = t[(k + 1) % 3];
        prev[slot] = t[(k + 2) % 3];
      }
    }
  }
  std::vector<std::uint32_t> kept_offsets(n + 1, 0);
  std::vector<std::uint32_t> corner_next, corner_prev;
  std::vector<float> corner_delta;  // x, y, z, 0 per kept corner
  keep_input.assign(n, 0);
  std::vector<double> weights;
  std::vector<Eigen::Vector3d> locals;
  for (std::uint32_t i = 0; i < std::uint32_t(n); ++i) {
    const Eigen::Vector3d s = S(i);
    const Vec3f rest_relative = rest[weld_members_[weld_offsets_[i]]] - centre;
    const Eigen::Vector3d delta = rest_relative.cast<double>() - s;
    weights.clear();
    locals.clear();
    for (std::uint32_t c = corner_offsets[i]; c < corner_offsets[i + 1]; ++c) {
      const Eigen::Vector3d a = S(next[c]) - s, b = S(prev[c]) - s;
      const Eigen::Vector3d normal = a.cross(b);
      const double la = a.norm(), lb = b.norm(), ln = normal.norm();
      if (!(la > 0 && lb > 0 && ln > 1e-6 * la * lb)) continue;  // degenerate corner: no frame
      const Eigen::Vector3d x = a / la, z = normal / ln, y = z.cross(x);
      weights.push_back(std::atan2(ln, a.dot(b)));  // the corner's angle
      locals.emplace_back(x.dot(delta), y.dot(delta), z.dot(delta));
      corner_next.push_back(next[c]);
      corner_prev.push_back(prev[c]);
    }
    double total = 0;
    for (double w : weights) total += w;
    if (!(total > 0)) keep_input[i] = 1;
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const Eigen::Vector3d d = locals[k] * (weights[k] / total);
      corner_delta.insert(corner_delta.end(), {float(d.x()), float(d.y()), float(d.z()), 0.0f});
    }
    kept_offsets[i + 1] = static_cast<std::uint32_t>(corner_next.size());
  }
  corners = std::make_shared<const mush::CornerBlocks>(
      mush::CornerBlocks::from_corners(n, kept_offsets, corner_next, corner_prev, corner_delta));
}

void DeltaMush::smooth_wobble(ThreadPool* pool) {
  const std::size_t n = rows_->vertex_count();
  if (rows_->chunk > 0) {
    // All sweeps as cache-friendly wavefronts, on one thread or pipelined over the pool's (same
    // arithmetic as the loop below).
    if (pool && pool->thread_count() > 1) {
      mush::smooth_wavefront(*rows_, buffer_a_.data(), buffer_b_.data(), settings_.iterations, *pool);
    } else {
      mush::smooth_wavefront(*rows_, buffer_a_.data(), buffer_b_.data(), settings_.iterations);
    }
    if (settings_.iterations % 2) buffer_a_.swap(buffer_b_);
    return;
  }
  for (int iteration = 0; iteration < settings_.iterations; ++iteration) {
    const float* in = buffer_a_.data();
    float* out = buffer_b_.data();
    parallel_chunks(pool, n, kGrain,
                    [&](std::size_t begin, std::size_t end) { mush::sweep(*rows_, in, out, begin, end); });
    buffer_a_.swap(buffer_b_);
  }
}

void DeltaMush::evaluate_wobble(std::span<Vec3f> positions, ThreadPool* pool) {
  const std::size_t n = rows_->vertex_count();
  float* a = buffer_a_.data();
  // Gather the input into the welded float4 buffer (seam copies: the common position, or their
  // mean where they differ), relative to the centroid so that precision does not depend on where
  // the character stands.
  const Vec3f centre = centroid(positions);
  const bool welded = !welding_.identity();
  parallel_chunks(pool, n, kGrain, [&](std::size_t begin, std::size_t end) {
    if (!welded) {  // no seams: a plain copy (from locals: the stores could alias the captures)
      const float cx = centre.x(), cy = centre.y(), cz = centre.z();
      const Vec3f* from = positions.data();
      float* to = a;
      for (std::size_t i = begin; i < end; ++i) {
        to[4 * i] = from[i].x() - cx, to[4 * i + 1] = from[i].y() - cy, to[4 * i + 2] = from[i].z() - cz;
        to[4 * i + 3] = 0;
      }
      return;
    }
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t first = weld_offsets_[i], last = weld_offsets_[i + 1];
      Vec3f p = positions[weld_members_[first]];
      bool differ = false;
      for (std::uint32_t k = first + 1; k < last; ++k) differ |= positions[weld_members_[k]] != p;
      if (differ) {
        Vec3f sum = Vec3f::Zero();
        for (std::uint32_t k = first; k < last; ++k) sum += positions[weld_members_[k]];
        p = sum / static_cast<float>(last - first);
      }
      p -= centre;
      a[4 * i] = p.x(), a[4 * i + 1] = p.y(), a[4 * i + 2] = p.z(), a[4 * i + 3] = 0;
    }
  });
  smooth_wobble(pool);
  restore_and_scatter(positions, centre, *corners_, keep_input_, pool);
}

void DeltaMush::restore_and_scatter(std::span<Vec3f> positions, const Vec3f& centre, const mush::CornerBlocks& corners,
                                    const std::vector<std::uint8_t>& keep_input, ThreadPool* pool) {
  const std::size_t n = rows_->vertex_count();
  // Restore the deltas in the deformed corner frames (smooth only: the smoothed mesh itself).
  const bool smooth_only = settings_.smooth_only;
  const float scale = settings_.scale;
  const bool blend = scale != 1.0f && !smooth_only;
  const float* out = buffer_a_.data();
  if (!smooth_only && !blend && welding_.identity()) {
    // Nothing to blend or weld: restore straight into the positions (32 bytes a vertex fewer).
    const float centre4[4] = {centre.x(), centre.y(), centre.z(), 0.0f};
    const std::span<float> points(positions.data()->data(), 3 * positions.size());
    parallel_chunks(pool, n, kGrain, [&](std::size_t begin, std::size_t end) {
      mush::restore_points(corners, out, centre4, keep_input, points, begin, end);
    });
    return;
  }
  if (!smooth_only) {
    const float* s = buffer_a_.data();
    float* restored = buffer_b_.data();
    parallel_chunks(pool, n, kGrain, [&](std::size_t begin, std::size_t end) {
      mush::restore_details(corners, s, restored, begin, end);
    });
    out = restored;
  }
  // Scatter to the original vertices (vertices without a usable corner keep their input). The
  // scale multiplies the correction Delta Mush makes: out = in + scale (mush - in), so that the
  // rest pose and rigid motions stay exact for any scale.
  const std::uint32_t* welded_of = welding_.identity() ? nullptr : welding_.welded_of.data();
  parallel_chunks(pool, positions.size(), kGrain, [&](std::size_t begin, std::size_t end) {
    // Locals, not captures: the stores to positions could alias them and force reloads.
    const float cx = centre.x(), cy = centre.y(), cz = centre.z(), s = scale;
    const bool blend_in = blend, keep_some = !smooth_only;
    const std::uint32_t* weld = welded_of;
    const std::uint8_t* kept = keep_input.data();
    const float* mush = out;
    Vec3f* target = positions.data();
    for (std::size_t v = begin; v < end; ++v) {
      const std::size_t w = weld ? weld[v] : v;
      if (keep_some && kept[w]) continue;
      const Vec3f mushed(mush[4 * w] + cx, mush[4 * w + 1] + cy, mush[4 * w + 2] + cz);
      target[v] = blend_in ? Vec3f(target[v] + s * (mushed - target[v])) : mushed;
    }
  });
}

void DeltaMush::evaluate_skinned(std::span<const Mat4f> skinning, std::span<Vec3f> positions, ThreadPool* pool) {
  if (!bound_ || !folded_) fail_plain("delta mush: evaluate_skinned() before fold_skin()");
  check_position_count(positions.size());
  const mush::SmoothedSkin& skin = *folded_;
  if (skinning.size() < skin.joint_count) {
    fail_plain("delta mush: {} skinning matrices for a skin of {} joints", skinning.size(), skin.joint_count);
  }
  const Vec3f centre = prepare_folded_palette(skinning);
  const float centre4[4] = {centre.x(), centre.y(), centre.z(), 0.0f};
  float* a = buffer_a_.data();
  parallel_chunks(pool, skin.vertex_count(), kGrain, [&](std::size_t begin, std::size_t end) {
    mush::blend_smoothed(skin, folded_palette_.data(), centre4, a, begin, end);
  });
  restore_and_scatter(positions, centre, *folded_corners_, folded_keep_input_, pool);
}

Vec3f DeltaMush::prepare_folded_palette(std::span<const Mat4f> skinning) {
  const mush::SmoothedSkin& skin = *folded_;
  // The frame's centre: the centroid of the LBS positions, sum_j T_j m_j (double). Each joint's
  // matrix then acts on points relative to the rest centroid c0 and lands relative to the centre.
  const Eigen::Vector3d c0(skin.rest_centre[0], skin.rest_centre[1], skin.rest_centre[2]);
  Eigen::Vector3d centre_d = Eigen::Vector3d::Zero();
  for (std::size_t j = 0; j < skin.joint_count; ++j) {
    const Eigen::Matrix4d t = skinning[j].cast<double>();
    const double* m = skin.joint_moments.data() + 4 * j;
    centre_d += t.topLeftCorner<3, 3>() * Eigen::Vector3d(m[0], m[1], m[2]) + t.topRightCorner<3, 1>() * m[3];
  }
  const Vec3f centre = centre_d.cast<float>();
  folded_palette_.resize(16 * skin.joint_count);
  for (std::size_t j = 0; j < skin.joint_count; ++j) {
    const Eigen::Matrix4d t = skinning[j].cast<double>();
    Eigen::Matrix4d m = Eigen::Matrix4d::Zero();
    m.topLeftCorner<3, 3>() = t.topLeftCorner<3, 3>();
    m.topRightCorner<3, 1>() = t.topLeftCorner<3, 3>() * c0 + t.topRightCorner<3, 1>() - centre.cast<double>();
    Eigen::Map<Mat4f>(folded_palette_.data() + 16 * j) = m.cast<float>();
  }
  return centre;
}

std::size_t DeltaMush::folded_width() const {
  std::size_t width = 0;
  if (folded_) {
    for (std::size_t i = 0; i < folded_->vertex_count(); ++i)
      width = std::max<std::size_t>(width, folded_->offsets[i + 1] - folded_->offsets[i]);
  }
  return width;
}

double DeltaMush::folded_mean_width() const {
  return folded_ && folded_->vertex_count() ? double(folded_->offsets.back()) / double(folded_->vertex_count()) : 0.0;
}

// ------------------------------------------------------------------------------------------
// The deformer

namespace {

class DeltaMushDeformer final : public Deformer {
 public:
  explicit DeltaMushDeformer(const DeltaMushParameters& parameters) : parameters_(parameters) {}
  const DeformerDescription& description() const override { return delta_mush_description(); }

  // Directly after plain linear blend skinning (with the character's own skin and this frame's
  // skinning matrices), the sweeps fold into the skin at bind time.
  void set_stack_position(const StackDescription& stack, std::size_t index) override {
    folds_input_ = stack.entries()[index].folds_input;
  }

  void bind(const Character& character) override {
    const Mesh& mesh = character.mesh;
    const DeltaMushSettings settings = delta_mush_settings_for(character, parameters_);
    if (std::string problem = settings.validate(mesh.vertex_count()); !problem.empty()) {
      fail(character.source, "deltamush: {}", problem);
    }
    mush_.bind(mesh.positions, mesh.triangles, settings);
    if (folds_input_ && settings.mode == MushMode::Wobble && character.is_skinned()) {
      mush_.fold_skin(mesh.positions, PackedSkin::from(character.skin), character.rig.joint_count());
    }
    bound_ = &character;
  }

  // scale and smooth_only act on the output; a new step changes the smoothing operator, which
  // Delta Mush (stateless) rebuilds.
  void update(const DeformerSettings& settings) override {
    const DeltaMushParameters& next = settings.as<DeltaMushParameters>();
    const bool rebuild = next.mush.step != parameters_.mush.step;
    parameters_ = next;
    if (rebuild && bound_) {
      bind(*bound_);
    } else {
      mush_.set_output(next.mush.scale, next.mush.smooth_only);
    }
  }

  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    const Mesh& mesh = frame.character.mesh;
    if (&frame.character != bound_ || mesh.vertex_count() != mush_.fingerprint().vertex_count ||
        mesh.triangle_count() != mush_.fingerprint().triangle_count) {
      mush_.check_same_mesh(mesh.positions, mesh.triangles);
      bound_ = &frame.character;
    }
    ThreadPool* pool = pool_worth_using(frame.pool, positions.size(), deform::vertex_cost_ns::kDeltaMush);
    if (mush_.skin_folded()) {
      mush_.evaluate_skinned(frame.pose.skinning, positions, pool);
    } else {
      mush_.evaluate(positions, pool);
    }
    if (!normals.empty() && normals.size() == positions.size()) mush_.recompute_normals(positions, normals);
  }

 private:
  DeltaMushParameters parameters_;
  DeltaMush mush_;
  const Character* bound_ = nullptr;
  bool folds_input_ = false;
};

}  // namespace

DeltaMushSettings delta_mush_settings_for(const Character& character, const DeltaMushParameters& parameters) {
  DeltaMushSettings settings = parameters.mush;
  const VertexValues& mask = parameters.mask;
  if (mask.attribute.empty() || mask.attribute == "none") {
    settings.mask = mask.values;
    return settings;
  }
  settings.mask.clear();
  const auto found = character.mesh.vertex_scalars.find(mask.attribute);
  if (found == character.mesh.vertex_scalars.end()) {
    if (mask.attribute == "_MUSH_WEIGHT") return settings;
    fail(character.source, "deltamush: no per-vertex attribute '{}' for the mask", mask.attribute);
  }
  settings.mask = found->second;
  for (float& m : settings.mask) m = std::isfinite(m) ? std::clamp(m, 0.0f, 1.0f) : 0.0f;
  return settings;
}

const DeformerDescription& delta_mush_description() {
  static const DeformerDescription description = [] {
    // One chain per parameter (key, accessor, unit, range, help), laid out by hand:
    // clang-format off
    describe::Fields<DeltaMushParameters> f;
    f.integer("iterations", [](auto& p) -> auto& { return p.mush.iterations; })
        .flag("mush-iterations").bind().range(0, 100000).soft(0, 100).help("smoothing sweeps");
    f.number("step", [](auto& p) -> auto& { return p.mush.step; })
        .flag("mush-step").range(0, 1).help("smoothing step lambda: the fraction of the way to the neighbours' mean per sweep");
    f.choice("smoothing", [](auto& p) -> auto& { return p.mush.smoothing; }, mush_smoothing_names())
        .flag("mush-smoothing").bind().help("smoothing weights (blender mode: uniform is Simple, length is Length Weight)");
    f.boolean("pin_boundary", [](auto& p) -> auto& { return p.mush.pin_boundary; })
        .flag("mush-pin-boundary").bind().help("do not smooth open-boundary vertices");
    f.number("scale", [](auto& p) -> auto& { return p.mush.scale; })
        .flag("mush-scale").range(-1e6, 1e6).soft(0, 2)
        .help("wobble mode: how much of the correction is applied, out = in + scale (mush - in), exact at rest for any "
              "scale; blender mode: multiplies the restored detail, as Corrective Smooth's Scale");
    f.boolean("smooth_only", [](auto& p) -> auto& { return p.mush.smooth_only; })
        .flag("mush-smooth-only").help("output the smoothed mesh only, no detail restored");
    f.choice("mode", [](auto& p) -> auto& { return p.mush.mode; }, mush_mode_names())
        .flag("mush-mode").bind()
        .help("wobble welds seams and smooths with a fixed operator; blender reproduces Blender's Corrective Smooth");
    f.choice("blender_version", [](auto& p) -> auto& { return p.mush.blender_version; }, blender_version_names())
        .flag("mush-blender-version").bind()
        .help("blender mode: the Blender whose Corrective Smooth to match bit for bit at one thread (their edge "
              "orders differ)");
    f.vertex_array("mask", [](auto& p) -> auto& { return p.mask; })
        .flag("mush-mask").bind().range(0, 1).attribute_allowed()
        .help("per-vertex smoothing weight in [0, 1]: a JSON array, or a per-vertex attribute's name (none: no mask; "
              "_MUSH_WEIGHT is used when present)");
    f.boolean("invert_mask", [](auto& p) -> auto& { return p.mush.invert_mask; })
        .flag("mush-invert-mask").bind().help("use 1 - mask");
    // clang-format on
    DeformerDescription d =
        f.deformer("deltamush", DeformerStage::Post, "Delta Mush: smooth, then restore the rest detail in local frames",
                   [](const DeformerSettings& s) {
                     return std::unique_ptr<Deformer>(std::make_unique<DeltaMushDeformer>(s.as<DeltaMushParameters>()));
                   });
    d.folds_linear_blend_input = true;
    d.check_together = [](const void* object) -> std::string {
      const DeltaMushSettings& s = static_cast<const DeltaMushParameters*>(object)->mush;
      if (s.mode == MushMode::Blender && s.smoothing == MushSmoothing::Cotangent) {
        return "mode 'blender' supports smoothing 'uniform' (Simple) and 'length' (Length Weight), not 'cotangent'";
      }
      return {};
    };
    return d;
  }();
  return description;
}

}  // namespace wobble
