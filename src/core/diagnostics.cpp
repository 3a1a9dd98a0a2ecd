#include <wobble/diagnostics.hpp>

#include <algorithm>

#include <string>

#include <wobble/log.hpp>

namespace wobble {

void Diagnostics::repair(const std::string& kind, const std::string& message, std::size_t count) {
  if (count == 0) return;
  auto found = std::find_if(repairs_.begin(), repairs_.end(), [&](const Repair& r) { return r.kind == kind; });
  if (found == repairs_.end()) {
    repairs_.push_back({kind, message, count});
  } else {
    found->count += count;
  }
}

std::size_t Diagnostics::count(const std::string& kind) const {
  auto found = std::find_if(repairs_.begin(), repairs_.end(), [&](const Repair& r) { return r.kind == kind; });
  return found == repairs_.end() ? 0 : found->count;
}

void Diagnostics::log_warnings(const std::string& source) const {
  for (const Repair& r : repairs_) {
    const std::string times = r.count > 1 ? " (" + std::to_string(r.count) + " times)" : "";
    warn(source + ": " + r.message + times);
  }
}

}  // namespace wobble
