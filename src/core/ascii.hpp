#pragma once
// ASCII case folding for file extensions, format hints and keywords (locale-free). Internal.
#include <algorithm>
#include <cctype>
#include <string>

namespace wobble {

inline std::string ascii_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace wobble
