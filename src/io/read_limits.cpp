#include <wobble/io/read_limits.hpp>

#include <cstdlib>
#include <fstream>
#include <limits>
#include <system_error>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include "core/fail.hpp"

namespace wobble {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t(1) << 20;
constexpr std::uint64_t kBaseBytes = 64 * kMiB;
constexpr double kDefaultFactor = 32;

double read_factor() {
  const char* text = std::getenv("WOBBLE_READ_FACTOR");
  if (!text) return kDefaultFactor;
  return parse_real(text, "WOBBLE_READ_FACTOR (the read allocation factor)", 1.0, 1e9);
}

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(kMiB); }

}  // namespace

std::uint64_t read_allocation_ceiling(std::uint64_t file_bytes) {
  const double ceiling = static_cast<double>(kBaseBytes) + read_factor() * static_cast<double>(file_bytes);
  constexpr double largest = static_cast<double>(std::numeric_limits<std::uint64_t>::max() / 2);
  return ceiling >= largest ? static_cast<std::uint64_t>(largest) : static_cast<std::uint64_t>(ceiling);
}

ReadBudget::ReadBudget(fs::path file, std::uint64_t file_bytes) : file_(std::move(file)), source_bytes_(file_bytes) {}

void ReadBudget::add_source_bytes(std::uint64_t bytes) { source_bytes_ += bytes; }

std::uint64_t ReadBudget::ceiling() const { return read_allocation_ceiling(source_bytes_); }

void ReadBudget::charge(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t limit = ceiling();
  if (bytes > limit || used_ > limit - bytes) {
    fail(file_,
         "{} needs {:.1f} MiB, more than reading this {:.1f} MiB file may allocate ({:.1f} MiB in all: "
         "64 MiB + {} x its size; WOBBLE_READ_FACTOR sets the factor)",
         what, mib(bytes), mib(source_bytes_), mib(limit), format_real(read_factor()));
  }
  used_ += bytes;
}

void ReadBudget::charge(std::uint64_t count, std::uint64_t element_bytes, std::string_view what) {
  if (element_bytes != 0 && count > std::numeric_limits<std::uint64_t>::max() / element_bytes) {
    fail(file_, "{}: {} elements of {} bytes overflow any memory", what, count, element_bytes);
  }
  charge(count * element_bytes, what);
}

}  // namespace wobble
