// The strict readers of values typed by people (include/wobble/parse.hpp): every flag of the
// command line, the viewer and the web page's URL goes through them. Beyond "no crash", each
// accepted value must be what the text says: finite, in range, and written back by format_real
// as a text that reads as the same number.
#include <cmath>
#include <string>

#include <wobble/parse.hpp>

#include "../fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using namespace wobble;
  switch (data[0] % 4) {
    case 0:
      fuzz::expect_clean(
          [&] {
            const double value = parse_real(text, "--flag");
            if (!std::isfinite(value)) fuzz::finding("parse_real accepted a non-finite value from '" + text + "'");
            if (parse_real(format_real(value), "--flag") != value)
              fuzz::finding("format_real does not read back: " + text);
            if (text.find_first_of("xXnN") != std::string::npos && text.find_first_of("eE") == std::string::npos)
              fuzz::finding("parse_real accepted hex, inf or nan: '" + text + "'");
          },
          "--flag");
      break;
    case 1:
      fuzz::expect_clean(
          [&] {
            const std::int64_t value = parse_integer(text, "--count", -1000, 1000);
            if (value < -1000 || value > 1000) fuzz::finding("parse_integer returned a value out of range");
            if (text.find_first_of(".eExX") != std::string::npos)
              fuzz::finding("parse_integer accepted '" + text + "'");
          },
          "--count");
      break;
    case 2:
      fuzz::expect_clean(
          [&] {
            const bool value = parse_boolean(text, "--switch");
            if (parse_boolean(value ? "true" : "false", "--switch") != value)
              fuzz::finding("parse_boolean is not stable");
            if (text.empty()) fuzz::finding("parse_boolean accepted an empty text");
          },
          "--switch");
      break;
    default: fuzz::expect_clean([&] { parse_real(text, "--range", -1.0, 1.0); }, "--range"); break;
  }
  return 0;
}
