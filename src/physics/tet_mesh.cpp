// Voxel tetrahedral meshes (see tet_mesh.hpp).
#include <wobble/physics/tet_mesh.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <Eigen/LU>

#include "core/fail.hpp"

namespace wobble::physics {

namespace {

using Cell = std::array<int, 3>;

// Cells (integer corners) of size h with the node of cell corner (i, j, k) at origin + h (i, j, k),
// each split into six tetrahedra around the diagonal from corner 0 to corner 7 (corner bits x, y, z).
TetMesh mesh_of_cells(const std::vector<Cell>& cells, const Vec3d& origin, double h) {
  static const int six[6][4] = {{0, 1, 3, 7}, {0, 3, 2, 7}, {0, 2, 6, 7}, {0, 6, 4, 7}, {0, 4, 5, 7}, {0, 5, 1, 7}};
  TetMesh mesh;
  mesh.spacing = h;
  std::map<Cell, int> index;
  auto node = [&](int i, int j, int k) {
    auto [it, fresh] = index.try_emplace(Cell{i, j, k}, static_cast<int>(mesh.nodes.size()));
    if (fresh) mesh.nodes.push_back(origin + h * Vec3d(i, j, k));
    return it->second;
  };
  for (const Cell& c : cells) {
    int corner[8];
    for (int b = 0; b < 8; ++b) corner[b] = node(c[0] + (b & 1), c[1] + ((b >> 1) & 1), c[2] + ((b >> 2) & 1));
    for (const auto& t : six) mesh.tets.push_back({corner[t[0]], corner[t[1]], corner[t[2]], corner[t[3]]});
  }
  return mesh;
}

}  // namespace

std::vector<double> TetMesh::volumes() const {
  std::vector<double> out;
  out.reserve(tets.size());
  for (const auto& t : tets) {
    Eigen::Matrix3d D;
    for (int c = 0; c < 3; ++c)
      D.col(c) = nodes[static_cast<std::size_t>(t[c + 1])] - nodes[static_cast<std::size_t>(t[0])];
    out.push_back(std::abs(D.determinant()) / 6.0);
  }
  return out;
}

TetMesh voxel_tet_mesh(const Mesh& mesh, const fields::Normalization& normalization, int resolution) {
  if (mesh.triangles.empty()) fail_plain("voxel tetrahedra: the shape has no triangles");
  if (resolution < 2 || resolution > 256)
    fail_plain("voxel tetrahedra: grid resolution {} out of range [2, 256]", resolution);
  const double h = 2.0 / resolution;
  std::vector<Vec3d> vertices;
  for (const Vec3f& p : mesh.positions) vertices.push_back(normalization.to_normalized(p.cast<double>()));
  std::vector<Cell> candidates;
  std::vector<Vec3d> centres;
  const int half = resolution / 2 + 1;
  for (int k = -half; k < half; ++k)
    for (int j = -half; j < half; ++j)
      for (int i = -half; i < half; ++i) {
        candidates.push_back({i, j, k});
        centres.push_back(h * Vec3d(i + 0.5, j + 0.5, k + 0.5));
      }
  const std::vector<double> inside = fields::winding_numbers(vertices, mesh.triangles, centres);
  std::vector<Cell> cells;
  for (std::size_t c = 0; c < candidates.size(); ++c)
    if (inside[c] > 0.5) cells.push_back(candidates[c]);
  if (cells.empty())
    fail_plain("voxel tetrahedra: no cell of a {}-cell grid lies inside the shape (too thin)", resolution);
  return mesh_of_cells(cells, Vec3d::Zero(), h);
}

TetMesh box_tet_mesh(const Vec3d& lo, const Vec3d& hi, double spacing) {
  if (!(spacing > 0) || !((hi - lo).array() >= spacing * 0.5).all())
    fail_plain("box tetrahedra: the box is smaller than a cell");
  int n[3];
  for (int a = 0; a < 3; ++a) n[a] = std::max(1, static_cast<int>(std::lround((hi[a] - lo[a]) / spacing)));
  std::vector<Cell> cells;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) cells.push_back({i, j, k});
  return mesh_of_cells(cells, lo, spacing);
}

TetMesh connected_to(const TetMesh& mesh, const std::vector<bool>& keep, std::vector<int>* kept_nodes) {
  // Union-find over the tetrahedra, joined through shared faces: pieces that meet at a node or an
  // edge only would hinge there (a zero-energy motion), so they count as apart.
  std::vector<std::size_t> parent(mesh.tets.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto root = [&](std::size_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  std::map<std::array<int, 3>, std::size_t> face_owner;
  for (std::size_t e = 0; e < mesh.tets.size(); ++e)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> face;
      for (int c = 0, k = 0; c < 4; ++c)
        if (c != skip) face[static_cast<std::size_t>(k++)] = mesh.tets[e][static_cast<std::size_t>(c)];
      std::sort(face.begin(), face.end());
      const auto [it, fresh] = face_owner.try_emplace(face, e);
      if (!fresh) parent[root(e)] = root(it->second);
    }
  std::vector<bool> held(mesh.tets.size(), false);
  for (std::size_t e = 0; e < mesh.tets.size(); ++e)
    for (int v : mesh.tets[e])
      if (keep[static_cast<std::size_t>(v)]) held[root(e)] = true;
  TetMesh out;
  out.spacing = mesh.spacing;
  std::vector<int> renumber(mesh.node_count(), -1);
  if (kept_nodes) kept_nodes->clear();
  for (std::size_t e = 0; e < mesh.tets.size(); ++e) {
    if (!held[root(e)]) continue;
    std::array<int, 4> nt;
    for (int c = 0; c < 4; ++c) {
      const int old = mesh.tets[e][static_cast<std::size_t>(c)];
      int& r = renumber[static_cast<std::size_t>(old)];
      if (r < 0) {
        r = static_cast<int>(out.nodes.size());
        out.nodes.push_back(mesh.nodes[static_cast<std::size_t>(old)]);
        if (kept_nodes) kept_nodes->push_back(old);
      }
      nt[static_cast<std::size_t>(c)] = r;
    }
    out.tets.push_back(nt);
  }
  return out;
}

}  // namespace wobble::physics
