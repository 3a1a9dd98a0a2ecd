#pragma once
// Errors: one exception type whose message names the file (or element) and the problem, on one line.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

namespace wobble {

class Error : public std::runtime_error {
 public:
  // Control characters (a newline in a joint name read from a file, say) are shown as \xNN, so
  // that a message stays one line whatever the names in it.
  explicit Error(const std::string& message) : std::runtime_error(one_line(message)) {}
  explicit Error(const char* message) : Error(std::string(message)) {}

 private:
  static std::string one_line(const std::string& message) {
    std::string out;
    out.reserve(message.size());
    for (char c : message) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 32 || byte == 127) {
        static constexpr char hex[] = "0123456789abcdef";
        out += {'\\', 'x', hex[byte >> 4], hex[byte & 15]};
      } else {
        out += c;
      }
    }
    return out;
  }
};

// Throws Error("FILE: message").
template <typename... Args>
[[noreturn]] void fail(const std::filesystem::path& file, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format("{}: {}", file.string(), fmt::format(format, std::forward<Args>(args)...)));
}

// Throws Error(message), for problems that belong to no file (bad parameters, for example).
template <typename... Args>
[[noreturn]] void fail_plain(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace wobble
