#pragma once
// --soak-log FILE: one JSON line per second of wall time, for soak runs (scripts/soak.py):
// {"seconds", "frames", "rss_kib", "frame_ms" (median wall time of a frame over that second),
// "cpu_ms" (median CPU time of the process per frame: the frame's work, which other tenants of a
// shared machine do not inflate as they do its wall time), "thread_cpu_ms" (the same for the
// viewer's own thread alone: simulation, deformation and GL calls, without the software
// renderer's worker threads, whose time grows with the machine's load), "finite" (every shown vertex of every
// frame in that second was finite)}. Lines are flushed as written, so a soak that
// dies still leaves its record.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <span>

#include <wobble/math.hpp>

#include "frame_statistics.hpp"

namespace wobble::viewer {

// CPU time used by the process so far (all threads), in milliseconds.
double process_cpu_milliseconds();
// CPU time used by the calling thread so far, in milliseconds.
double thread_cpu_milliseconds();

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
  double last_cpu_ms_ = process_cpu_milliseconds();
  double last_thread_ms_ = thread_cpu_milliseconds();
  bool finite_ = true;
  FrameStatistics second_{1u << 14}, cpu_second_{1u << 14}, thread_cpu_second_{1u << 14};
};

// The process's resident memory in KiB (/proc/self/statm; 0 where there is none).
long resident_kib();

}  // namespace wobble::viewer
