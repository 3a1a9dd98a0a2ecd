#pragma once
// Rows of a point set found by exact position (the same bits in every coordinate): a body's
// binding reuses the field's values at points it has already evaluated instead of evaluating the
// field there again (body_basis.cpp).
#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>

#include <Eigen/Core>

#include <wobble/math.hpp>

namespace wobble::physics {

class PointRows {
 public:
  PointRows() = default;
  explicit PointRows(std::span<const Vec3d> points) { add(points); }
  // Appends rows size() ... : a point already held keeps its first row.
  void add(std::span<const Vec3d> points);

  // The row of `point`, or -1 when the set does not hold it.
  Eigen::Index find(const Vec3d& point) const;

 private:
  using Key = std::array<std::uint64_t, 3>;
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  static Key key_of(const Vec3d& point);

  std::unordered_map<Key, Eigen::Index, KeyHash> rows_;
  Eigen::Index size_ = 0;  // rows added
};

}  // namespace wobble::physics
