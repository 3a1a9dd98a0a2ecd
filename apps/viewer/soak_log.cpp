#include "soak_log.hpp"

#include <cerrno>
#include <cstring>

#include <unistd.h>

#include "core/fail.hpp"

namespace wobble::viewer {

long resident_kib() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return 0;
  long pages = 0, resident = 0;
  const bool read = std::fscanf(statm, "%ld %ld", &pages, &resident) == 2;
  std::fclose(statm);
  return read ? resident * (::sysconf(_SC_PAGESIZE) / 1024) : 0;
}

SoakLog::SoakLog(const std::filesystem::path& file) : out_(std::fopen(file.c_str(), "w")) {
  if (!out_) fail(file, "cannot write the soak log: {}", std::strerror(errno));
}

SoakLog::~SoakLog() {
  if (out_) std::fclose(out_);
}

double SoakLog::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void SoakLog::frame(double milliseconds, std::span<const Vec3f> shown) {
  ++frames_;
  second_.add(milliseconds);
  for (const Vec3f& p : shown) finite_ = finite_ && p.allFinite();
  if (seconds() < next_line_) return;
  write_line();
  next_line_ += 1.0;
  second_.clear();
  finite_ = true;
}

void SoakLog::write_line() {
  std::fprintf(out_, "{\"seconds\": %.3f, \"frames\": %ld, \"rss_kib\": %ld, \"frame_ms\": %.4f, \"finite\": %s}\n",
               seconds(), frames_, resident_kib(), second_.median(), finite_ ? "true" : "false");
  std::fflush(out_);
}

}  // namespace wobble::viewer
