#pragma once
// Recent frame times (milliseconds) and their median, for the on-screen display and the
// --benchmark-frames report.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace wobble::viewer {

class FrameStatistics {
 public:
  explicit FrameStatistics(std::size_t capacity = 120) : capacity_(capacity) {}
  void add(double milliseconds) {
    if (values_.size() < capacity_)
      values_.push_back(milliseconds);
    else
      values_[next_++ % capacity_] = milliseconds;
  }
  void clear() { values_.clear(), next_ = 0; }
  std::size_t count() const { return values_.size(); }
  // Median of the kept values (0 when empty).
  double median() const {
    if (values_.empty()) return 0;
    std::vector<double> sorted = values_;
    const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
    std::nth_element(sorted.begin(), middle, sorted.end());
    if (sorted.size() % 2) return *middle;
    return 0.5 * (*middle + *std::max_element(sorted.begin(), middle));
  }

 private:
  std::size_t capacity_;
  std::size_t next_ = 0;
  std::vector<double> values_;
};

}  // namespace wobble::viewer
