#pragma once
// Strict reading of values typed by people: command-line flags, URL options, CSV cells. A value
// is read whole or refused with an Error that names where it came from and the text; a prefix
// is never taken for the whole ("2abc" is not 2, "1.5" is not an integer, "0x10" is not 16).
//
//   real     decimal or scientific notation ("0.25", "-3", "1e-4"), or an exact fraction of two
//            such numbers ("1/240" is 1.0/240.0); NaN, infinities and overflow are refused
//   integer  an optional sign and decimal digits only, within the type's range
//   boolean  true/false, yes/no, on/off, 1/0 (any letter case); an empty text is refused
//
// `what` names the source in messages: "--frequency", "scene.json: planes[0].height", "?fps".
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace wobble {

// Throws Error("WHAT: 'TEXT' is not a number").
double parse_real(std::string_view text, std::string_view what);
// As parse_real, then requires low <= value <= high ("WHAT: 3 is out of range [0, 1]").
double parse_real(std::string_view text, std::string_view what, double low, double high);

// Throws Error("WHAT: 'TEXT' is not an integer") or the range message.
std::int64_t parse_integer(std::string_view text, std::string_view what,
                           std::int64_t low = std::numeric_limits<std::int64_t>::min(),
                           std::int64_t high = std::numeric_limits<std::int64_t>::max());

// Throws Error("WHAT: 'TEXT' is not a boolean (true or false)").
bool parse_boolean(std::string_view text, std::string_view what);

// Requires low <= value <= high for a value already read (a JSON number, say); throws the same
// range message as the parsers, with the value written back with round-trip precision.
void check_range(double value, std::string_view what, double low, double high);
// The same for an integer, written as one ("WHAT: 0 is out of range [1, 10000000]").
void check_integer_range(std::int64_t value, std::string_view what, std::int64_t low, std::int64_t high);

// The candidate closest to `word` in edit distance (the first of equals); "" when there is none.
std::string closest_name(std::string_view word, std::span<const std::string> candidates);

// " (did you mean 'frequency'?)" for the candidate closest to `word` in edit distance, when it
// is close enough to be a likely typo; otherwise "".
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

// The shortest text that reads back as exactly `value` ("0.25", "1e-05", "60").
std::string format_real(double value);

}  // namespace wobble
