#pragma once
// A flood fill over a box of cells: from cell (0, 0, 0) through the cells still `unknown`
// (6-connected), marking them `outside`. Both voxelisations (the eigenmodes' cell grid, the point
// cloud's sampling grid) give their grids a margin of empty cells, so that the corner is outside
// and what the fill cannot reach is enclosed. Cells are numbered (k * ny + j) * nx + i.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wobble::fields {

inline void flood_fill_outside(const std::array<int, 3>& cells, std::vector<std::uint8_t>& state, std::uint8_t unknown,
                               std::uint8_t outside) {
  const auto index = [&](const std::array<int, 3>& c) {
    return (static_cast<std::size_t>(c[2]) * cells[1] + c[1]) * cells[0] + c[0];
  };
  std::vector<std::array<int, 3>> stack{{0, 0, 0}};
  state[0] = outside;
  while (!stack.empty()) {
    const auto c = stack.back();
    stack.pop_back();
    for (int a = 0; a < 3; ++a)
      for (int d = -1; d <= 1; d += 2) {
        auto q = c;
        q[a] += d;
        if (q[a] < 0 || q[a] >= cells[a]) continue;
        std::uint8_t& s = state[index(q)];
        if (s == unknown) {
          s = outside;
          stack.push_back(q);
        }
      }
  }
}

}  // namespace wobble::fields
