#pragma once
// Errors: one exception type whose message names the file (or element) and the problem, on one line.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

namespace wobble {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
