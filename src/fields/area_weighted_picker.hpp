#pragma once
// Uniform random points on a triangle mesh's surface (internal): a triangle with probability
// proportional to its area (cumulative areas, a binary search), then barycentric weights uniform
// over it (a + b > 1 folded back into the triangle). The mesh sampler's surface samples and the
// encoder's surface cloud draw with it, three uniform numbers per point in the same order.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <wobble/fields/sampling.hpp>

namespace wobble::fields {

class AreaWeightedPicker {
 public:
  // Areas of the triangles, in order.
  explicit AreaWeightedPicker(const std::vector<double>& areas) : cumulative_(areas.size()) {
    double total = 0;
    for (std::size_t t = 0; t < areas.size(); ++t) cumulative_[t] = total += areas[t];
  }
  double total() const { return cumulative_.empty() ? 0.0 : cumulative_.back(); }

  // The point's triangle and its weights on the triangle's second and third corners. Needs total() > 0.
  struct Pick {
    std::size_t triangle;
    double a, b;
  };
  Pick operator()(Random& random) const {
    const double target = random.uniform() * total();
    const auto above = std::upper_bound(cumulative_.begin(), cumulative_.end(), target) - cumulative_.begin();
    Pick pick{std::min<std::size_t>(static_cast<std::size_t>(above), cumulative_.size() - 1), random.uniform(),
              random.uniform()};
    if (pick.a + pick.b > 1) {
      pick.a = 1 - pick.a;
      pick.b = 1 - pick.b;
    }
    return pick;
  }

 private:
  std::vector<double> cumulative_;
};

}  // namespace wobble::fields
