#pragma once
// How far two frames of the same mesh are apart: what the deformer tests compare results with.
#include <algorithm>
#include <span>

#include <wobble/math.hpp>

namespace wobble::test {

// The largest distance between corresponding vertices of a and b.
inline double max_distance(std::span<const Vec3f> a, std::span<const Vec3f> b) {
  double worst = 0;
  for (std::size_t v = 0; v < a.size(); ++v) worst = std::max<double>(worst, (a[v] - b[v]).norm());
  return worst;
}

}  // namespace wobble::test
