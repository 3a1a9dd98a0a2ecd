#include <wobble/mesh_topology.hpp>

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include <fmt/core.h>

#include "core/fnv1a.hpp"

namespace wobble {

namespace {

std::uint32_t float_bits(float x) {
  if (x == 0.0f) x = 0.0f;  // -0 and +0 weld
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

}  // namespace

MeshFingerprint MeshFingerprint::of(std::span<const Vec3f> positions, std::span<const Triangle> triangles) {
  MeshFingerprint f;
  f.vertex_count = positions.size();
  f.triangle_count = triangles.size();
  std::uint64_t hash = kFnvOffset;
  for (const Vec3f& p : positions) fnv1a(hash, p.data(), 3 * sizeof(float));
  for (const Triangle& t : triangles) fnv1a(hash, t.data(), 3 * sizeof(std::uint32_t));
  f.hash = hash;
  return f;
}

std::string MeshFingerprint::describe() const {
  return fmt::format("{} vertices, {} triangles, hash {:016x}", vertex_count, triangle_count, hash);
}

std::vector<Edge> unique_edges(std::span<const Triangle> triangles) {
  // Collect (a, b) keys of every triangle edge, sort, and count runs: no hashing, deterministic.
  std::vector<std::uint64_t> keys;
  keys.reserve(3 * triangles.size());
  for (const Triangle& t : triangles) {
    for (int k = 0; k < 3; ++k) {
      std::uint32_t a = t[k], b = t[(k + 1) % 3];
      if (a == b) continue;
      if (a > b) std::swap(a, b);
      keys.push_back((std::uint64_t(a) << 32) | b);
    }
  }
  std::sort(keys.begin(), keys.end());
  std::vector<Edge> edges;
  edges.reserve(keys.size() / 2 + 1);
  for (std::size_t i = 0; i < keys.size();) {
    std::size_t j = i;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    edges.push_back({static_cast<std::uint32_t>(keys[i] >> 32), static_cast<std::uint32_t>(keys[i] & 0xffffffffu),
                     static_cast<std::uint32_t>(j - i)});
    i = j;
  }
  return edges;
}

Adjacency Adjacency::from_edges(std::size_t vertex_count, std::span<const Edge> edges) {
  Adjacency adjacency;
  adjacency.offsets.assign(vertex_count + 1, 0);
  for (const Edge& e : edges) {
    ++adjacency.offsets[e.a + 1];
    ++adjacency.offsets[e.b + 1];
  }
  for (std::size_t v = 0; v < vertex_count; ++v) adjacency.offsets[v + 1] += adjacency.offsets[v];
  adjacency.neighbours.resize(adjacency.offsets.back());
  std::vector<std::uint32_t> fill(adjacency.offsets.begin(), adjacency.offsets.end() - 1);
  // Edges are sorted by (a, b): every list comes out ascending if we first place the smaller
  // neighbours (edges where v is b) and then the larger ones (v is a).
  for (const Edge& e : edges) adjacency.neighbours[fill[e.b]++] = e.a;
  for (const Edge& e : edges) adjacency.neighbours[fill[e.a]++] = e.b;
  for (std::size_t v = 0; v < vertex_count; ++v) {
    std::sort(adjacency.neighbours.begin() + adjacency.offsets[v],
              adjacency.neighbours.begin() + adjacency.offsets[v + 1]);
  }
  return adjacency;
}

std::vector<bool> boundary_vertices(std::size_t vertex_count, std::span<const Edge> edges) {
  std::vector<bool> boundary(vertex_count, false);
  for (const Edge& e : edges) {
    if (e.faces == 1) boundary[e.a] = boundary[e.b] = true;
  }
  return boundary;
}

Welding Welding::by_position(std::span<const Vec3f> positions) {
  struct Key {
    std::uint32_t x, y, z;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = kFnvOffset;
      fnv1a(h, &k, sizeof k);
      return static_cast<std::size_t>(h);
    }
  };
  Welding welding;
  welding.welded_of.resize(positions.size());
  std::unordered_map<Key, std::uint32_t, KeyHash> first;
  first.reserve(positions.size());
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const Key key{float_bits(positions[v].x()), float_bits(positions[v].y()), float_bits(positions[v].z())};
    auto [it, inserted] = first.try_emplace(key, welding.welded_count);
    if (inserted) ++welding.welded_count;
    welding.welded_of[v] = it->second;
  }
  return welding;
}

std::vector<Triangle> Welding::weld(std::span<const Triangle> triangles) const {
  std::vector<Triangle> out(triangles.size());
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (int k = 0; k < 3; ++k) out[t][k] = welded_of[triangles[t][k]];
  }
  return out;
}

}  // namespace wobble
