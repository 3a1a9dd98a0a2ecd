#pragma once
// Errors: one exception type whose message names the file (or element) and the problem, on one line.
#include <stdexcept>
#include <string>

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

}  // namespace wobble
