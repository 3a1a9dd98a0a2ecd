#pragma once
// The edges Blender 3.4 makes for a triangle mesh (Mesh.from_pydata, then BKE_mesh_calc_edges), in
// Blender's order. Corrective Smooth sums each vertex's neighbours in this order, and near a
// corner that smoothing folds flat the last bit of that sum decides the corner's frame: wobble's
// Blender mode sums in the same order to agree with Blender on every vertex.
//
// Blender puts each edge (v_low, v_high) into one of `maps` hash maps (v_low & (maps - 1)), each a
// blender::Map reserved for 2 x faces / maps edges (load factor 1/2, power-of-two sizes, Python's
// probing on the hash (v_low << 8) ^ v_high), and lists the maps in turn, each in slot order.
// `maps` is 1 for meshes under 1000 faces and for Blender run on one thread (`blender -t 1`);
// otherwise the largest power of two <= min(8, Blender's thread count).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <wobble/mesh.hpp>

namespace wobble {

using BlenderEdge = std::array<std::uint32_t, 2>;  // (v_low, v_high)

std::vector<BlenderEdge> blender_mesh_edges(std::span<const Triangle> triangles, std::uint32_t maps = 1);

}  // namespace wobble
