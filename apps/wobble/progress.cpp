#include "progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace wobble::cli {

Progress::Progress(std::string label, bool quiet) : label_(std::move(label)) {
  enabled_ = !quiet && isatty(STDERR_FILENO);
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t done, std::size_t total, const std::string& note) {
  if (!enabled_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done / total);
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu  %.1f s  %s\033[K", label_.c_str(), filled,
               "##############################", kWidth - filled, "", done, total, seconds, note.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (enabled_ && drawn_ && !finished_) {
    std::fprintf(stderr, "\n");
    finished_ = true;
  }
}

}  // namespace wobble::cli
