#pragma once
// A tetrahedral mesh of a shape's volume for full-space finite elements (the reference the
// reduced simulations are measured against, subspace_fidelity.hpp): the cells of a regular grid
// whose centre lies inside the shape, each split into 6 tetrahedra around its diagonal, so that
// neighbouring cells share faces (a conforming mesh). Coordinates are the shape's normalised frame
// (sampling.hpp: centred, longest side spanning [-1, 1]).
#include <array>
#include <span>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/mesh.hpp>
#include <wobble/fields/sampling.hpp>

namespace wobble::physics {

struct TetMesh {
  std::vector<Vec3d> nodes;              // normalised frame
  std::vector<std::array<int, 4>> tets;  // node indices (either orientation)
  double spacing = 0;                    // grid cell size (normalised units)

  std::size_t node_count() const { return nodes.size(); }
  // Volume of each tetrahedron (normalised units^3).
  std::vector<double> volumes() const;
};

// Cells of `resolution` along [-1, 1] whose centre has a generalized winding number above 0.5
// (sampling.hpp) with respect to the mesh; positions in the mesh's file coordinates, mapped by
// `normalization`. Throws Error when no cell centre is inside (a shape thinner than one cell).
TetMesh voxel_tet_mesh(const Mesh& mesh, const fields::Normalization& normalization, int resolution);
// The same for a solid box [lo, hi] (normalised frame) meshed with cells of size `spacing`
// (tests: bars with known frequencies).
TetMesh box_tet_mesh(const Vec3d& lo, const Vec3d& hi, double spacing);

// The tetrahedra connected through shared faces to one with a node for which `keep` is true,
// unused nodes dropped: a piece the pins do not hold, or that meets the held part at a node or an
// edge only (a hinge), would move at no cost and make the static problem singular. `kept_nodes`
// receives, for each new node, its old index.
TetMesh connected_to(const TetMesh& mesh, const std::vector<bool>& keep, std::vector<int>* kept_nodes = nullptr);

}  // namespace wobble::physics
