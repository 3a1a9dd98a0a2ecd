// Delta Mush in Blender mode: Blender's Corrective Smooth modifier, 3.4's or 4.3's
// (settings.blender_version: they differ in their edge order and in the corner angle's acos),
// reproduced operation by operation in float so that results are Blender's bit for bit on every
// vertex of every frame.
//
// What matching Blender takes beyond the method itself (each was a visible difference):
// - Smoothing sums each vertex's neighbours in the order of Blender's edge list
//   (blender_mesh_edges.hpp; settings.blender_version says whose). Where smoothing folds a thin triangle flat (clonk's triangle 0 at
//   vertex 0 in the Walk: the two edge directions exactly opposite), the corner's frame comes from
//   the cross product of nearly opposite vectors, that is from the last bits of the smoothed
//   positions, and the corner weighs pi: another summation order moved that vertex by up to
//   0.53 units. (Blender itself gives another result there on another number of threads and in
//   another version, which is why the parity test runs it with one, in both versions.)
// - Bind: the stored delta of a corner is inverse(frame) * (rest - smoothed), the inverse computed
//   as Blender does (adjugate over determinant; the transpose only when the determinant is 0), not
//   the transpose: a near-degenerate corner's frame is far from orthonormal.
// - Corner weights are fabsf(acosf(dot(dir_next, dir_prev))) in Blender 3.4 (the results agree
//   to the bit only with this formula). When the dot product of two nearly equal unit vectors
//   rounds above 1, acosf gives NaN, Blender adds it to the vertex's weight total, every corner of
//   that vertex then fails its "weight > 0" test and the vertex keeps its smoothed position.
//   Blender 4.3 takes a polynomial approximation of acos instead (acos_approx), 0 above 1.
// - Each corner's delta is added to the vertex in corner order, scaled as Blender scales it
//   ((delta * (weight / total)) * scale), and the Simple smoothing factor with a vertex group or
//   pinning is (weight * lambda) * (1 / edges), in that order.
#include <wobble/delta_mush.hpp>

#include <cfloat>
#include <cmath>
#include <numbers>

#include <wobble/mesh_topology.hpp>
#include <wobble/parallel.hpp>

#include "deform/blender_mesh_edges.hpp"

namespace wobble {

namespace {

constexpr std::size_t kGrain = 8192;  // the largest chunk (chunk_grain: the same chunks for any thread count)

// Blender's 3x3 matrices are arrays m[i][j] with m[i] the i-th axis; here m[i] is row i of a Mat3f.
using BlenderMatrix = Mat3f;

// normalize_v3: vectors shorter than ~1e-17 become zero.
void normalize_in_place(Vec3f& v) {
  const float d = v.x() * v.x() + v.y() * v.y() + v.z() * v.z();
  if (d > 1.0e-35f) {
    v *= 1.0f / std::sqrt(d);
  } else {
    v.setZero();
  }
}

Vec3f cross(const Vec3f& a, const Vec3f& b) {
  return Vec3f(a.y() * b.z() - a.z() * b.y(), a.z() * b.x() - a.x() * b.z(), a.x() * b.y() - a.y() * b.x());
}

float dot(const Vec3f& a, const Vec3f& b) { return a.x() * b.x() + a.y() * b.y() + a.z() * b.z(); }

bool nearly_equal(const Vec3f& a, const Vec3f& b, float limit) {
  return std::abs(a.x() - b.x()) <= limit && std::abs(a.y() - b.y()) <= limit && std::abs(a.z() - b.z()) <= limit;
}

// calc_tangent_loop: the corner frame from dir_prev = unit(prev - curr), dir_next = unit(curr -
// next); false (and the identity) for a degenerate corner.
bool corner_frame(const Vec3f& dir_prev, const Vec3f& dir_next, BlenderMatrix& frame) {
  if (nearly_equal(dir_prev, dir_next, FLT_EPSILON * 10.0f)) {
    frame.setIdentity();
    return false;
  }
  Vec3f z = cross(dir_prev, dir_next);
  normalize_in_place(z);
  Vec3f x = dir_prev + dir_next;
  normalize_in_place(x);
  frame.row(0) = x;
  frame.row(1) = cross(z, x);
  frame.row(2) = z;
  return true;
}

// mul_v3_m3v3: m[0] * a[0] + m[1] * a[1] + m[2] * a[2], summed in Blender's order.
Vec3f multiply(const BlenderMatrix& m, const Vec3f& a) {
  Vec3f r;
  for (int j = 0; j < 3; ++j) r[j] = m(0, j) * a[0] + m(1, j) * a[1] + m(2, j) * a[2];
  return r;
}

// invert_m3_m3: the adjugate divided by the determinant; the transpose when the determinant is 0.
BlenderMatrix inverse(const BlenderMatrix& m) {
  BlenderMatrix r;
  r(0, 0) = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
  r(0, 1) = -m(0, 1) * m(2, 2) + m(0, 2) * m(2, 1);
  r(0, 2) = m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1);
  r(1, 0) = -m(1, 0) * m(2, 2) + m(1, 2) * m(2, 0);
  r(1, 1) = m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0);
  r(1, 2) = -m(0, 0) * m(1, 2) + m(0, 2) * m(1, 0);
  r(2, 0) = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  r(2, 1) = -m(0, 0) * m(2, 1) + m(0, 1) * m(2, 0);
  r(2, 2) = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  const float determinant = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) -
                            m(1, 0) * (m(0, 1) * m(2, 2) - m(0, 2) * m(2, 1)) +
                            m(2, 0) * (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1));
  if (determinant == 0.0f) return m.transpose();
  const float inverse_determinant = 1.0f / determinant;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) *= inverse_determinant;
  return r;
}

// Blender 4.3's angle: an approximation of acos in float (max error 4.5e-5: sqrt(1 - |x|) times a
// cubic in |x|, mirrored for x < 0; 0 at |x| >= 1 instead of NaN), its math::safe_acos_approx.
float acos_approx(float x) {
  const float f = std::abs(x);
  const float m = f < 1.0f ? 1.0f - (1.0f - f) : 1.0f;  // clamped, denormals crushed
  const float a = std::sqrt(1.0f - m) * (1.5707963267f + m * (-0.213300989f + m * (0.077980478f + m * -0.02164095f)));
  return x < 0.0f ? static_cast<float>(std::numbers::pi) - a : a;
}

// The corner's frame and weight, the angle between its edges: Blender 3.4's fabsf(acosf(dot)), NaN
// when the dot product rounds above 1, or 4.3's fabsf(acos_approx(dot)); 0 for a degenerate corner.
float corner_weight(const Vec3f& dir_prev, const Vec3f& dir_next, BlenderMatrix& frame, BlenderVersion version) {
  if (!corner_frame(dir_prev, dir_next, frame)) return 0.0f;
  const float cosine = dot(dir_next, dir_prev);
  return std::fabs(version == BlenderVersion::V3_4 ? std::acos(cosine) : acos_approx(cosine));
}

// The corner's directions at positions p, each normalised.
void corner_directions(std::span<const Vec3f> p, std::uint32_t prev, std::uint32_t curr, std::uint32_t next,
                       Vec3f& dir_prev, Vec3f& dir_next) {
  dir_prev = p[prev] - p[curr];
  dir_next = p[curr] - p[next];
  normalize_in_place(dir_prev);
  normalize_in_place(dir_next);
}

// Each vertex's neighbours in the order of Blender's edge list, so that sums over them are
// Blender's sums bit for bit.
Adjacency blender_adjacency(std::size_t vertex_count, std::span<const Triangle> triangles, BlenderVersion version) {
  const std::vector<BlenderEdge> edges = blender_mesh_edges(triangles, version);
  Adjacency adjacency;
  adjacency.offsets.assign(vertex_count + 1, 0);
  for (const BlenderEdge& e : edges) ++adjacency.offsets[e[0] + 1], ++adjacency.offsets[e[1] + 1];
  for (std::size_t v = 0; v < vertex_count; ++v) adjacency.offsets[v + 1] += adjacency.offsets[v];
  adjacency.neighbours.resize(adjacency.offsets.back());
  std::vector<std::uint32_t> fill(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
  for (const BlenderEdge& e : edges) {
    adjacency.neighbours[fill[e[0]]++] = e[1];
    adjacency.neighbours[fill[e[1]]++] = e[0];
  }
  return adjacency;
}

}  // namespace

void DeltaMush::bind_blender(std::span<const Vec3f> rest) {
  const std::size_t n = rest.size();
  const std::vector<Edge> edges = unique_edges(triangles_);
  adjacency_ = blender_adjacency(n, triangles_, settings_.blender_version);
  blender_weighted_ = !settings_.mask.empty() || settings_.pin_boundary;  // Blender's smooth_weights != NULL
  vertex_weight_.assign(n, 1.0f);
  if (!settings_.mask.empty()) vertex_weight_ = settings_.mask;
  if (settings_.pin_boundary) {
    const std::vector<bool> boundary = boundary_vertices(n, edges);
    for (std::size_t v = 0; v < n; ++v) {
      if (boundary[v]) vertex_weight_[v] = 0.0f;
    }
  }
  std::vector<Vec3f> smoothed(rest.begin(), rest.end());
  smooth_blender(smoothed, nullptr);

  // Corners per vertex, each vertex's in Blender's corner order (faces in order, then a, b, c).
  vcorner_offsets_.assign(n + 1, 0);
  for (const Triangle& t : triangles_) {
    for (int k = 0; k < 3; ++k) ++vcorner_offsets_[t[k] + 1];
  }
  for (std::size_t v = 0; v < n; ++v) vcorner_offsets_[v + 1] += vcorner_offsets_[v];
  vcorner_next_.resize(vcorner_offsets_.back());
  vcorner_prev_.resize(vcorner_offsets_.back());
  vcorner_delta_.resize(vcorner_offsets_.back());
  std::vector<std::uint32_t> fill(vcorner_offsets_.begin(), vcorner_offsets_.end() - 1);
  for (const Triangle& t : triangles_) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t curr = t[k], next = t[(k + 1) % 3], prev = t[(k + 2) % 3];
      const std::uint32_t slot = fill[curr]++;
      vcorner_next_[slot] = next;
      vcorner_prev_[slot] = prev;
      Vec3f dir_prev, dir_next;
      corner_directions(smoothed, prev, curr, next, dir_prev, dir_next);
      BlenderMatrix frame;
      corner_frame(dir_prev, dir_next, frame);
      vcorner_delta_[slot] = multiply(inverse(frame), Vec3f(rest[curr] - smoothed[curr]));
    }
  }
  work_.resize(n);
}

void DeltaMush::smooth_blender(std::vector<Vec3f>& p, ThreadPool* pool) const {
  const std::size_t n = p.size();
  std::vector<Vec3f> q(n);
  const float lambda = settings_.step;
  if (settings_.smoothing == MushSmoothing::Uniform) {
    std::vector<float> factor(n);
    for (std::size_t v = 0; v < n; ++v) {
      const std::uint32_t degree = adjacency_.degree(v);
      const float share = degree ? 1.0f / static_cast<float>(degree) : 1.0f;
      factor[v] = blender_weighted_ ? vertex_weight_[v] * lambda * share : lambda * share;
    }
    for (int iteration = 0; iteration < settings_.iterations; ++iteration) {
      parallel_chunks(pool, n, kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t v = begin; v < end; ++v) {
          Vec3f sum = Vec3f::Zero();
          for (std::uint32_t u : adjacency_.of(v)) sum += p[u] - p[v];
          q[v] = p[v] + sum * factor[v];
        }
      });
      p.swap(q);
    }
  } else {
    const float eps = FLT_EPSILON * 10.0f;
    const float lambda2 = lambda * 2.0f;  // this weighting is about half as strong: doubled
    for (int iteration = 0; iteration < settings_.iterations; ++iteration) {
      parallel_chunks(pool, n, kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t v = begin; v < end; ++v) {
          Vec3f sum = Vec3f::Zero();
          float length_sum = 0.0f;
          for (std::uint32_t u : adjacency_.of(v)) {
            Vec3f d = p[u] - p[v];
            const float length = std::sqrt(dot(d, d));
            d *= length;
            sum += d;
            length_sum += length;
          }
          const float div = length_sum * static_cast<float>(adjacency_.degree(v));
          const float step = blender_weighted_ ? lambda2 * vertex_weight_[v] / div : lambda2 / div;
          q[v] = div > eps ? Vec3f(p[v] + sum * step) : p[v];
        }
      });
      p.swap(q);
    }
  }
}

void DeltaMush::evaluate_blender(std::span<Vec3f> positions, ThreadPool* pool) {
  const std::size_t n = positions.size();
  work_.assign(positions.begin(), positions.end());
  smooth_blender(work_, pool);
  if (settings_.smooth_only) {
    std::copy(work_.begin(), work_.end(), positions.begin());
    return;
  }
  const float scale = settings_.scale;
  parallel_chunks(pool, n, kGrain, [&](std::size_t begin, std::size_t end) {
    constexpr std::size_t kMostCorners = 64;
    float weights[kMostCorners];
    BlenderMatrix frames[kMostCorners];
    for (std::size_t v = begin; v < end; ++v) {
      // Blender sums every corner weight of the vertex before it normalises any: a first pass
      // for the total (keeping the frames of the first kMostCorners corners), then the deltas.
      Vec3f position = work_[v];
      float total = 0.0f;
      for (std::uint32_t c = vcorner_offsets_[v], k = 0; c < vcorner_offsets_[v + 1]; ++c, ++k) {
        Vec3f dir_prev, dir_next;
        corner_directions(work_, vcorner_prev_[c], static_cast<std::uint32_t>(v), vcorner_next_[c], dir_prev, dir_next);
        BlenderMatrix frame;
        const float weight = corner_weight(dir_prev, dir_next, frame, settings_.blender_version);
        total += weight;
        if (k < kMostCorners) weights[k] = weight, frames[k] = frame;
      }
      for (std::uint32_t c = vcorner_offsets_[v], k = 0; c < vcorner_offsets_[v + 1]; ++c, ++k) {
        float weight;
        BlenderMatrix frame;
        if (k < kMostCorners) {
          weight = weights[k], frame = frames[k];
        } else {
          Vec3f dir_prev, dir_next;
          corner_directions(work_, vcorner_prev_[c], static_cast<std::uint32_t>(v), vcorner_next_[c], dir_prev,
                            dir_next);
          weight = corner_weight(dir_prev, dir_next, frame, settings_.blender_version);
        }
        const float share = weight / total;
        if (!(share > 0.0f)) continue;  // zero weight, a zero total, or NaN anywhere in the total
        Vec3f delta = multiply(frame, vcorner_delta_[c]);
        delta *= share;
        position += delta * scale;
      }
      positions[v] = position;
    }
  });
}

}  // namespace wobble
