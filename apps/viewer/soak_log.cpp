#include "soak_log.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>

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

namespace {
double cpu_milliseconds(clockid_t clock) {
  timespec t{};
  if (::clock_gettime(clock, &t) != 0) return 0;
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}
}  // namespace

double process_cpu_milliseconds() { return cpu_milliseconds(CLOCK_PROCESS_CPUTIME_ID); }

double thread_cpu_milliseconds() { return cpu_milliseconds(CLOCK_THREAD_CPUTIME_ID); }

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
  const double cpu_ms = process_cpu_milliseconds();
  cpu_second_.add(cpu_ms - last_cpu_ms_);
  last_cpu_ms_ = cpu_ms;
  const double thread_ms = thread_cpu_milliseconds();
  thread_cpu_second_.add(thread_ms - last_thread_ms_);
  last_thread_ms_ = thread_ms;
  for (const Vec3f& p : shown) finite_ = finite_ && p.allFinite();
  if (seconds() < next_line_) return;
  write_line();
  next_line_ += 1.0;
  second_.clear();
  cpu_second_.clear();
  thread_cpu_second_.clear();
  finite_ = true;
}

void SoakLog::write_line() {
  std::fprintf(out_,
               "{\"seconds\": %.3f, \"frames\": %ld, \"rss_kib\": %ld, \"frame_ms\": %.4f, \"cpu_ms\": %.4f, "
               "\"thread_cpu_ms\": %.4f, \"finite\": %s}\n",
               seconds(), frames_, resident_kib(), second_.median(), cpu_second_.median(), thread_cpu_second_.median(),
               finite_ ? "true" : "false");
  std::fflush(out_);
}

}  // namespace wobble::viewer
