#pragma once
// Points hashed into cubic cells, for neighbour queries: the points within r cell sides of a
// position are among those of the (2r + 1)^3 cells around it. The contact search
// (World::build_contacts) and the point clouds' nearest neighbours (point_normals.cpp) use it.
#include <cmath>
#include <unordered_map>
#include <utility>
#include <vector>

#include <wobble/math.hpp>

namespace wobble::fields {

class CellHash {
 public:
  explicit CellHash(double cell) : cell_(cell) {}

  // A point of object `object` (any numbering the caller chooses) with index `point`.
  void add(const Vec3d& position, int object, int point) { cells_[key_of(position)].emplace_back(object, point); }

  // visit(object, point) for every point added in the (2 rings + 1)^3 cells around `position`.
  template <class Visit>
  void visit_near(const Vec3d& position, Visit&& visit, long long rings = 1) const {
    const Key k = key_of(position);
    for (long long dx = -rings; dx <= rings; ++dx)
      for (long long dy = -rings; dy <= rings; ++dy)
        for (long long dz = -rings; dz <= rings; ++dz) {
          const auto it = cells_.find(Key{k.x + dx, k.y + dy, k.z + dz});
          if (it == cells_.end()) continue;
          for (const auto& [object, point] : it->second) visit(object, point);
        }
  }

 private:
  struct Key {
    long long x, y, z;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      return static_cast<std::size_t>(k.x * 73856093LL ^ k.y * 19349663LL ^ k.z * 83492791LL);
    }
  };
  Key key_of(const Vec3d& p) const {
    return Key{static_cast<long long>(std::floor(p.x() / cell_)), static_cast<long long>(std::floor(p.y() / cell_)),
               static_cast<long long>(std::floor(p.z() / cell_))};
  }

  double cell_;
  std::unordered_map<Key, std::vector<std::pair<int, int>>, Hash> cells_;
};

}  // namespace wobble::fields
