#pragma once
// The MIME type of an encoded image from its first bytes, for glTF's images (the reader names
// embedded images the same way the writer declares them): "image/png", "image/jpeg" or "".
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace wobble {

inline std::string image_mime_type(const std::vector<std::uint8_t>& bytes) {
  static const std::uint8_t png[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), png, 8) == 0) return "image/png";
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return "image/jpeg";
  return {};
}

}  // namespace wobble
