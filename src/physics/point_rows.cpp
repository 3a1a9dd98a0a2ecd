#include "physics/point_rows.hpp"

#include <cstring>

#include "core/fnv1a.hpp"

namespace wobble::physics {

void PointRows::add(std::span<const Vec3d> points) {
  rows_.reserve(rows_.size() + points.size());
  for (const Vec3d& point : points) rows_.emplace(key_of(point), size_++);
}

Eigen::Index PointRows::find(const Vec3d& point) const {
  const auto found = rows_.find(key_of(point));
  return found == rows_.end() ? -1 : found->second;
}

// Bits, not values: -0 and 0 are two keys (a miss only costs an evaluation) and equal keys always
// hash alike.
PointRows::Key PointRows::key_of(const Vec3d& point) {
  static_assert(sizeof(Key) == sizeof(Vec3d));
  Key key;  // std::memcpy, not std::bit_cast: the web build's libc++ lacks it
  std::memcpy(key.data(), point.data(), sizeof key);
  return key;
}

std::size_t PointRows::KeyHash::operator()(const Key& key) const {
  std::uint64_t hash = kFnvOffset;
  fnv1a(hash, key.data(), sizeof key);
  return static_cast<std::size_t>(hash);
}

}  // namespace wobble::physics
