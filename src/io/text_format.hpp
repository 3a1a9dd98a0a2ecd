#pragma once
// Line-oriented text formats (OFF, OBJ, MTL): lines with numbers, '#' comments removed and
// whitespace trimmed; tokens split on whitespace; numbers read whole ("2abc" is not 2). Internal.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <wobble/regular_file.hpp>

namespace wobble::text_format {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& path, const char* what) {
  const std::vector<std::uint8_t> bytes = read_regular_file(path, what);
  return std::string(bytes.begin(), bytes.end());
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on whitespace into `tokens` (reused between lines to avoid allocations).
inline void split(std::string_view s, std::vector<std::string_view>& tokens) {
  tokens.clear();
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) tokens.push_back(s.substr(start, i - start));
  }
}

// Shows a token in an error message, shortened so the message stays one readable line.
inline std::string shown(std::string_view token) {
  std::string s(token.substr(0, 40));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return token.size() > 40 ? s + "..." : s;
}

inline bool parse_float(std::string_view token, float& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size();
}

inline bool parse_long(std::string_view token, long long& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size();
}

// Lines of a text file, with line numbers (1-based), '#' comments removed and whitespace trimmed.
class Lines {
 public:
  explicit Lines(const std::string& text) : text_(text) {}
  // The next line (possibly empty); false at the end of the text.
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    std::string_view raw(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    ++number_;
    if (const auto hash = raw.find('#'); hash != std::string_view::npos) raw = raw.substr(0, hash);
    line = trim(raw);
    return true;
  }
  // The next non-empty line; false at the end of the text.
  bool next_nonempty(std::string_view& line) {
    while (next(line))
      if (!line.empty()) return true;
    return false;
  }
  int number() const { return number_; }

 private:
  const std::string& text_;
  std::size_t pos_ = 0;
  int number_ = 0;
};

}  // namespace wobble::text_format
