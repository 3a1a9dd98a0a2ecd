#include <wobble/log.hpp>

#include <cstdio>
#include <mutex>
#include <string>

namespace wobble {

namespace {

std::mutex& sink_mutex() {
  static std::mutex mutex;
  return mutex;
}

WarningSink& current_sink() {
  static WarningSink sink;
  return sink;
}

}  // namespace

WarningSink set_warning_sink(WarningSink sink) {
  std::lock_guard lock(sink_mutex());
  WarningSink previous = std::move(current_sink());
  current_sink() = std::move(sink);
  return previous;
}

void warn(std::string_view message) {
  std::lock_guard lock(sink_mutex());
  if (current_sink()) {
    current_sink()(message);
    return;
  }
  std::fprintf(stderr, "wobble: warning: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace wobble
