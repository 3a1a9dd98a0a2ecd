#include <wobble/parse.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

#include <wobble/error.hpp>

namespace wobble {

namespace {

// "WHAT: 'TEXT'", the text shown on one line: control and non-ASCII bytes as \xNN, and cut
// after 60 characters.
std::string quoted(std::string_view what, std::string_view text) {
  std::string shown;
  for (char c : text.substr(0, 60)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 32 || byte > 126) {
      static const char* hex = "0123456789abcdef";
      shown += std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
    } else {
      shown += c;
    }
  }
  if (text.size() > 60) shown += "...";
  return std::string(what) + ": '" + shown + "'";
}

// A whole decimal number (a leading '+' allowed), or nothing; from_chars alone would also take
// "inf", "nan" and a prefix.
bool read_decimal(std::string_view text, double& value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() ||
      !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.' || text.front() == '-')) {
    return false;
  }
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value, std::chars_format::general);
  return error == std::errc() && stop == end && std::isfinite(value);
}

}  // namespace

double parse_real(std::string_view text, std::string_view what) {
  double value = 0;
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    if (read_decimal(text, value)) return value;
  } else {
    double numerator = 0, denominator = 0;
    if (read_decimal(text.substr(0, slash), numerator) && read_decimal(text.substr(slash + 1), denominator) &&
        denominator != 0) {
      value = numerator / denominator;
      if (std::isfinite(value)) return value;
    }
    throw Error(quoted(what, text) +
                " is not a number (a fraction needs two finite numbers and a divisor other than 0)");
  }
  throw Error(quoted(what, text) + " is not a number");
}

double parse_real(std::string_view text, std::string_view what, double low, double high) {
  const double value = parse_real(text, what);
  check_range(value, what, low, high);
  return value;
}

std::int64_t parse_integer(std::string_view text, std::string_view what, std::int64_t low, std::int64_t high) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [stop, error] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || (digits.front() != '-' && !std::isdigit(static_cast<unsigned char>(digits.front()))) ||
      error != std::errc() || stop != end) {
    throw Error(quoted(what, text) + " is not an integer");
  }
  check_integer_range(value, what, low, high);
  return value;
}

bool parse_boolean(std::string_view text, std::string_view what) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* yes : {"true", "yes", "on", "1"}) {
    if (lower == yes) return true;
  }
  for (const char* no : {"false", "no", "off", "0"}) {
    if (lower == no) return false;
  }
  throw Error(quoted(what, text) + " is not a boolean (true or false)");
}

void check_integer_range(std::int64_t value, std::string_view what, std::int64_t low, std::int64_t high) {
  if (value < low || value > high) {
    throw Error(std::string(what) + ": " + std::to_string(value) + " is out of range [" + std::to_string(low) + ", " +
                std::to_string(high) + "]");
  }
}

void check_range(double value, std::string_view what, double low, double high) {
  if (std::isnan(value)) throw Error(std::string(what) + ": NaN is not a number");
  if (value < low || value > high) {
    throw Error(std::string(what) + ": " + format_real(value) + " is out of range [" + format_real(low) + ", " +
                format_real(high) + "]");
  }
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(std::string_view word, std::span<const std::string> candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (!best || d < best_distance) best = &candidate, best_distance = d;
  }
  return best ? *best : std::string();
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const std::string best = closest_name(word, candidates);
  if (best.empty()) return {};
  const std::size_t distance = edit_distance(word, best);
  // A typo: at most a third of the letters wrong (and at least one letter right).
  if (distance == 0 || 3 * distance > std::max(word.size(), best.size())) return {};
  return " (did you mean '" + best + "'?)";
}

std::string format_real(double value) {
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return error == std::errc() ? std::string(buffer.data(), end) : std::string("?");
}

}  // namespace wobble
