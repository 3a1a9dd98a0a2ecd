#pragma once
// An axis-aligned box centred at the origin, as 12 outward triangles: the tests' simplest closed shape.
#include <cstdint>

#include <wobble/mesh.hpp>

namespace wobble::test {

inline Mesh box_mesh(float half_x, float half_y, float half_z) {
  Mesh m;
  for (int i = 0; i < 8; ++i)
    m.positions.emplace_back(i & 1 ? half_x : -half_x, i & 2 ? half_y : -half_y, i & 4 ? half_z : -half_z);
  const std::uint32_t f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                  {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  for (auto& t : f) m.triangles.push_back({t[0], t[1], t[2]});
  return m;
}

}  // namespace wobble::test
