#pragma once
// The MIME type of an image, "image/png", "image/jpeg" or "": from its first bytes (glTF's reader
// names embedded images the same way the writer declares them), or from a file's extension or a
// format hint (texture references of glTF, OBJ and assimp's formats).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/ascii.hpp"

namespace wobble {

inline std::string image_mime_type(const std::vector<std::uint8_t>& bytes) {
  static const std::uint8_t png[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), png, 8) == 0) return "image/png";
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) return "image/jpeg";
  return {};
}

// ".png", "PNG", "jpg", ".JPEG" (any case, with or without the dot): an extension or assimp's hint.
inline std::string image_mime_type_of_extension(std::string extension) {
  extension = ascii_lower(std::move(extension));
  if (!extension.empty() && extension.front() == '.') extension.erase(0, 1);
  if (extension == "png") return "image/png";
  if (extension == "jpg" || extension == "jpeg") return "image/jpeg";
  return {};
}

}  // namespace wobble
