#pragma once
// Reading values from a JSON document (settings and scene files) by type and range, with errors
// that name the file and the JSON path of the key:
//     scene.json: planes[0].half_size[1]: expected a number, got true
//     scene.json: objects[0].handles: 300 is out of range [1, 256]
//     scene.json: objects[0]: unknown key 'handels' (known: file, kinematic, handles, ...)
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wobble {

// The message of a JSON library error without its "[json.exception.parse_error.101] " prefix.
std::string json_error_text(const nlohmann::json::exception& error);

// "true", "1.5", "\"abc\"", "an array", "an object", "null": what a value is, for messages.
std::string describe_json(const nlohmann::json& value);

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
  // A nested object (required when `required`; an empty object stands in when absent).
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
