#pragma once
// Mesh topology for smoothing deformers: unique edges with their face counts, compressed
// (CSR) vertex adjacency, boundary vertices, welding of vertices split along UV or normal
// seams, and a fingerprint of a rest mesh so that cached bind data can refuse another mesh.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/mesh.hpp>

namespace wobble {

// What bind data was computed from: counts and a 64-bit hash (FNV-1a over the bytes of the
// rest positions and the triangles). Two meshes with equal fingerprints are, for all practical
// purposes, the same rest mesh.
struct MeshFingerprint {
  std::size_t vertex_count = 0;
  std::size_t triangle_count = 0;
  std::uint64_t hash = 0;

  static MeshFingerprint of(std::span<const Vec3f> positions, std::span<const Triangle> triangles);
  bool operator==(const MeshFingerprint&) const = default;
  // "370 vertices, 680 triangles, hash 0123abcd..."
  std::string describe() const;
};

// An undirected edge (a < b) and the number of triangles that use it (1: boundary edge,
// 2: interior manifold edge, more: non-manifold edge).
struct Edge {
  std::uint32_t a = 0, b = 0;
  std::uint32_t faces = 0;
};

// Unique edges of the triangles, sorted by (a, b). Triangles that repeat a vertex contribute
// only their distinct edges; a triangle with all three corners equal contributes none.
std::vector<Edge> unique_edges(std::span<const Triangle> triangles);

// Compressed vertex adjacency: the neighbours of v are neighbours[offsets[v] .. offsets[v+1]),
// sorted ascending, each once. Isolated vertices have none.
struct Adjacency {
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> neighbours;

  std::size_t vertex_count() const { return offsets.size() - 1; }
  std::uint32_t degree(std::size_t v) const { return offsets[v + 1] - offsets[v]; }
  std::span<const std::uint32_t> of(std::size_t v) const {
    return {neighbours.data() + offsets[v], neighbours.data() + offsets[v + 1]};
  }
  static Adjacency from_edges(std::size_t vertex_count, std::span<const Edge> edges);
};

// Vertices on a boundary edge (an edge used by exactly one triangle).
std::vector<bool> boundary_vertices(std::size_t vertex_count, std::span<const Edge> edges);

// Welding by exact position: vertices with bit-identical positions (after mapping -0 to +0)
// share one welded index. welded_of[v] is v's welded index; welded indices are numbered in
// order of first appearance, so a mesh without duplicates maps every vertex to itself.
struct Welding {
  std::vector<std::uint32_t> welded_of;  // per original vertex
  std::uint32_t welded_count = 0;
  bool identity() const { return welded_count == welded_of.size(); }

  static Welding by_position(std::span<const Vec3f> positions);
  // The triangles with welded indices.
  std::vector<Triangle> weld(std::span<const Triangle> triangles) const;
};

}  // namespace wobble
