#include "glb_preflight.hpp"

#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace {

constexpr std::size_t kHeader = 12, kChunkHeader = 8;
constexpr std::uint32_t kJsonChunk = 0x4E4F534A;  // "JSON"

std::uint32_t u32_at(const std::vector<std::uint8_t>& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(bytes[at + i]) << (8 * i);
  return value;
}

}  // namespace

void check_glb_before_tinygltf(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  if (bytes.size() < kHeader + kChunkHeader || u32_at(bytes, kHeader + 4) != kJsonChunk) return;
  const std::size_t length = u32_at(bytes, kHeader);
  if (length > bytes.size() - kHeader - kChunkHeader) return;
  const auto* text = bytes.data() + kHeader + kChunkHeader;
  const nlohmann::json document = nlohmann::json::parse(text, text + length, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || !document.contains("buffers") || !document["buffers"].is_array()) return;
  const nlohmann::json& buffers = document["buffers"];
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].is_object() || !buffers[i].contains("byteLength")) continue;
    const nlohmann::json& byte_length = buffers[i]["byteLength"];
    if (byte_length.is_number() && byte_length.get<double>() < 1.0)
      fail(path, "buffers[{}].byteLength: {} is below glTF's minimum of 1 (an empty buffer)", i, byte_length.dump());
  }
}

}  // namespace wobble
