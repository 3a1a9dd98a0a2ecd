#pragma once
// Throwing wobble::Error with a formatted one-line message (fmt), for the libraries' and front
// ends' .cpp files. Private: the public wobble/error.hpp carries no fmt.
#include <filesystem>
#include <utility>

#include <fmt/core.h>

#include <wobble/error.hpp>

namespace wobble {

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
