#pragma once
// The edges Blender makes for a triangle mesh (Mesh.from_pydata, then its edge calculation), in
// Blender's order, which changed between versions. Corrective Smooth sums each vertex's
// neighbours in this order, and near a corner that smoothing folds flat the last bit of that sum
// decides the corner's frame: wobble's Blender mode sums in the same order to agree with Blender
// on every vertex.
//
// Both versions visit each face's edges from its last corner to its first, then around, and put
// each edge (v_low, v_high) into one of `maps` groups (v_low & (maps - 1)), listed in turn.
// `maps` is 1 for meshes under 1000 faces and for Blender run on one thread (`blender -t 1`);
// otherwise the largest power of two <= min(8, Blender's thread count). Within a group:
// - Blender 3.4: a blender::Map reserved for 2 x faces / maps edges (load factor 1/2,
//   power-of-two sizes, Python's probing on the hash (v_low << 8) ^ v_high), in slot order;
// - Blender 4.3: the order in which the faces first reach each edge.
// Found by experiment: the edge lists Blender 3.4.1 and 4.3.2 made for grids of 3,200 shuffled
// triangles at 1, 2 and 4 threads, and for the shared characters at one thread
// (tests/test_blender_parity.cpp checks those against each Blender).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <wobble/delta_mush.hpp>  // BlenderVersion
#include <wobble/mesh.hpp>

namespace wobble {

using BlenderEdge = std::array<std::uint32_t, 2>;  // (v_low, v_high)

std::vector<BlenderEdge> blender_mesh_edges(std::span<const Triangle> triangles, BlenderVersion version,
                                            std::uint32_t maps = 1);

}  // namespace wobble
