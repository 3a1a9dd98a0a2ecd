#pragma once
// A one-line progress bar on the terminal (stderr); silent when stderr is not a terminal or
// when quiet.
#include <chrono>
#include <cstddef>
#include <string>

namespace wobble::cli {

class Progress {
 public:
  Progress(std::string label, bool quiet);
  ~Progress();
  // `note` follows the bar ("RMSE 0.012").
  void update(std::size_t done, std::size_t total, const std::string& note = {});
  void finish();

 private:
  std::string label_;
  bool enabled_ = false, drawn_ = false, finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace wobble::cli
