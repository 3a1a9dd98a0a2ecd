#pragma once
// JSON values from files people wrote (settings, scenes, manifests, scripts), read by type and
// range, with errors that name the file and the JSON path of the key, on one line:
//     scene.json: planes[0].half_size[1]: expected a number, got true
//     scene.json: objects[0].handles: 300 is out of range [1, 256]
//     scene.json: objects[0]: unknown key 'handels' (known: file, kinematic, handles, ...)
// The one place where wobble turns JSON into values: the deformer descriptions' settings reader
// (src/deform/settings_json.cpp) and the scene reader (JsonObject) share these functions.
// Private to the libraries (nlohmann-json stays out of the public headers).
//
// Integers are JSON integers: 3 is one, 3.0 and 1.5 are not (as on the command line, where an
// integer is digits only).
#include <array>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wobble {

// The message of a JSON library error without its "[json.exception.parse_error.101] " prefix.
std::string json_error_text(const nlohmann::json::exception& error);
// `text` with every such prefix removed (a library that passes the JSON library's message on:
// tinygltf).
std::string without_json_exception_prefix(std::string text);

// What a value is, for messages: its JSON text on one line, cut to 40 characters
// ("true", "1.5", "\"abc\"", "[1,2]", "{\"keys\":[[0,1]]}").
std::string describe_json(const nlohmann::json& value);

// Parses JSON text; throws Error("WHERE: not valid JSON: ...").
nlohmann::json parse_json_text(std::string_view text, std::string_view where);
// Reads and parses a regular file of at most `max_bytes` (regular_file.hpp); errors name the file.
nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what,
                              std::uint64_t max_bytes = std::uint64_t(64) << 20);

// Throws Error("WHERE: expected WHAT, got VALUE").
[[noreturn]] void json_expected(std::string_view where, std::string_view what, const nlohmann::json& got);
// One value of a type, or json_expected's error; `where` names it ("s.json: dynamic.frequency").
double json_number(const nlohmann::json& value, std::string_view where);
std::int64_t json_integer(const nlohmann::json& value, std::string_view where);
bool json_boolean(const nlohmann::json& value, std::string_view where);
std::string json_string(const nlohmann::json& value, std::string_view where);

// An object of a document, read key by key.
class JsonObject {
 public:
  // `value` must be an object; `file` names the document, `path` the object in it ("" at the top,
  // "objects[2]", "objects[2].material").
  JsonObject(const nlohmann::json& value, std::string file, std::string path = "");

  // Refuses every key not in `known`.
  void allow_only(std::initializer_list<std::string_view> known) const;
  bool has(std::string_view key) const;

  double real(std::string_view key, double fallback, double low, double high) const;
  std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t low, std::int64_t high) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::string text(std::string_view key, std::string fallback) const;
  // An array of exactly N numbers, each in [low, high].
  template <std::size_t N>
  std::array<double, N> reals(std::string_view key, std::array<double, N> fallback, double low, double high) const {
    if (!has(key)) return fallback;
    const nlohmann::json& array = require_array(key, N);
    std::array<double, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = element_real(array[i], key, i, low, high);
    return out;
  }
  // A nested object (an empty one stands in when the key is absent).
  JsonObject object(std::string_view key) const;
  // The objects of an array of objects (none when the key is absent).
  std::vector<JsonObject> objects(std::string_view key) const;

  // "FILE: PATH.KEY", the name of a key in messages.
  std::string name(std::string_view key) const;
  // "FILE: PATH" (or "FILE" at the top).
  std::string name() const;
  [[noreturn]] void fail_at(std::string_view key, const std::string& problem) const;

 private:
  const nlohmann::json& require_array(std::string_view key, std::size_t size) const;
  double element_real(const nlohmann::json& value, std::string_view key, std::size_t index, double low,
                      double high) const;
  std::string child_path(std::string_view key) const;

  const nlohmann::json* value_;
  std::string file_, path_;
};

}  // namespace wobble
