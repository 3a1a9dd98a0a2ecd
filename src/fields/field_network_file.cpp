// The .wfield container: a safetensors file (an 8-byte little-endian header length, a JSON header
// naming each tensor's dtype, shape and byte range, then the raw little-endian data) whose
// __metadata__ holds the model description as JSON text under "wobble".
#include <wobble/fields/field_network.hpp>

#include <bit>
#include <cmath>
#include <cstring>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/regular_file.hpp>

#include "core/fail.hpp"

namespace wobble::fields {

static_assert(std::endian::native == std::endian::little, "the .wfield reader assumes a little-endian machine");

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxHeaderBytes = 64u << 20;
constexpr const char* kMetadataKey = "__metadata__";

std::uint64_t read_u64(const std::uint8_t* bytes) {
  std::uint64_t value = 0;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

// One tensor entry of the header, checked against the data section of `data_bytes` bytes.
FieldTensor read_tensor(const std::string& name, const json& entry, const std::uint8_t* data, std::uint64_t data_bytes,
                        const std::string& source) {
  if (!entry.is_object() || !entry.contains("dtype") || entry["dtype"] != "F32")
    fail(source, "tensor '{}' must be an object with dtype F32", name);
  const json& shape = entry.contains("shape") ? entry["shape"] : json();
  const json& offsets = entry.contains("data_offsets") ? entry["data_offsets"] : json();
  if (!shape.is_array() || !offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail(source, "tensor '{}' needs a 'shape' array and 'data_offsets' [begin, end]", name);
  FieldTensor tensor;
  std::uint64_t count = 1;
  const std::uint64_t limit = data_bytes / sizeof(float);
  for (const json& d : shape) {
    if (!d.is_number_unsigned()) fail(source, "tensor '{}' has a dimension that is not a count", name);
    const std::uint64_t size = d.get<std::uint64_t>();
    if (size != 0 && count > limit / size) fail(source, "tensor '{}' is larger than the file's data", name);
    count *= size;
    tensor.shape.push_back(static_cast<std::int64_t>(size));
  }
  const std::uint64_t begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
  if (begin > end || end > data_bytes || end - begin != count * sizeof(float))
    fail(source, "tensor '{}' has data_offsets [{}, {}] that do not fit its shape or the file", name, begin, end);
  tensor.values.resize(count);
  std::memcpy(tensor.values.data(), data + begin, end - begin);
  for (const float v : tensor.values)
    if (!std::isfinite(v)) fail(source, "tensor '{}' holds a value that is not finite", name);
  return tensor;
}

json read_description(const json& header, const std::string& source) {
  const json& metadata = header.contains(kMetadataKey) ? header[kMetadataKey] : json();
  if (!metadata.is_object() || !metadata.contains("wobble") || !metadata["wobble"].is_string())
    fail(source, "not a wobble fields model (no __metadata__.wobble description)");
  json description = json::parse(metadata["wobble"].get<std::string>(), nullptr, false);
  if (description.is_discarded() || !description.is_object())
    fail(source, "the model description (__metadata__.wobble) is not a JSON object");
  // Compared as JSON values: a wrong type is a wrong value, never the JSON library's type error.
  if (!description.contains("format") || description["format"] != "wobble-field")
    fail(source, "not a wobble fields model (format is not wobble-field)");
  if (!description.contains("version") || description["version"] != 1)
    fail(source, "unsupported .wfield version (this build reads version 1)");
  return description;
}

}  // namespace

FieldNetworkFile parse_field_network_file(std::span<const std::uint8_t> bytes, const std::string& source) {
  if (bytes.size() < 8) fail(source, "too short for a .wfield file ({} bytes)", bytes.size());
  const std::uint64_t header_bytes = read_u64(bytes.data());
  if (header_bytes > kMaxHeaderBytes || header_bytes > bytes.size() - 8)
    fail(source, "header length {} does not fit the file ({} bytes)", header_bytes, bytes.size());
  const char* text = reinterpret_cast<const char*>(bytes.data() + 8);
  const json header = json::parse(text, text + header_bytes, nullptr, false);
  if (header.is_discarded() || !header.is_object()) fail(source, "the header is not a JSON object");
  FieldNetworkFile file;
  file.description = read_description(header, source);
  const std::uint8_t* data = bytes.data() + 8 + header_bytes;
  const std::uint64_t data_bytes = bytes.size() - 8 - header_bytes;
  for (const auto& [name, entry] : header.items())
    if (name != kMetadataKey) file.tensors[name] = read_tensor(name, entry, data, data_bytes, source);
  return file;
}

FieldNetworkFile read_field_network_file(const std::filesystem::path& path) {
  return parse_field_network_file(read_regular_file(path, "a model file"), path.string());
}

std::vector<std::uint8_t> serialize_field_network_file(const FieldNetworkFile& file) {
  json header = json::object();
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : file.tensors) {  // std::map: name order
    const std::uint64_t size = tensor.values.size() * sizeof(float);
    header[name] = {{"dtype", "F32"}, {"shape", tensor.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  header[kMetadataKey] = {{"wobble", file.description.dump()}};
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  std::vector<std::uint8_t> bytes(8 + text.size() + offset);
  const std::uint64_t length = text.size();
  std::memcpy(bytes.data(), &length, 8);
  std::memcpy(bytes.data() + 8, text.data(), text.size());
  std::uint8_t* data = bytes.data() + 8 + text.size();
  for (const auto& [name, tensor] : file.tensors) {
    std::memcpy(data, tensor.values.data(), tensor.values.size() * sizeof(float));
    data += tensor.values.size() * sizeof(float);
  }
  return bytes;
}

void write_field_network_file(const std::filesystem::path& path, const FieldNetworkFile& file) {
  const std::vector<std::uint8_t> bytes = serialize_field_network_file(file);
  write_output(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace wobble::fields
