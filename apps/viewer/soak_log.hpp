#pragma once
// --soak-log FILE: one JSON line per second of wall time, for soak runs (scripts/soak.py):
// {"seconds", "frames", "rss_kib", "frame_ms" (median over that second), "finite" (every shown
// vertex of every frame in that second was finite)}. Lines are flushed as written, so a soak that
// dies still leaves its record.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <span>

#include <wobble/math.hpp>

#include "frame_statistics.hpp"

namespace wobble::viewer {

class SoakLog {
 public:
  explicit SoakLog(const std::filesystem::path& file);  // throws Error naming the file
  ~SoakLog();
  SoakLog(const SoakLog&) = delete;
  SoakLog& operator=(const SoakLog&) = delete;

  // After each frame: its wall time and the vertices it showed.
  void frame(double milliseconds, std::span<const Vec3f> shown);
  // Seconds of wall time since the log began.
  double seconds() const;

 private:
  void write_line();

  std::FILE* out_ = nullptr;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double next_line_ = 1.0;
  long frames_ = 0;
  bool finite_ = true;
  FrameStatistics second_{1u << 14};
};

// The process's resident memory in KiB (/proc/self/statm; 0 where there is none).
long resident_kib();

}  // namespace wobble::viewer
