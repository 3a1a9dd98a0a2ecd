#include "core/json_values.hpp"

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/regular_file.hpp>
#include "core/fail.hpp"

namespace wobble {

namespace {

const nlohmann::json& empty_object() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

constexpr std::size_t kShownCharacters = 40;

}  // namespace

std::string without_json_exception_prefix(std::string text) {
  for (std::size_t at = text.find("[json.exception."); at != std::string::npos;
       at = text.find("[json.exception.", at)) {
    const std::size_t close = text.find("] ", at);
    if (close == std::string::npos) break;
    text.erase(at, close + 2 - at);
  }
  return text;
}

std::string json_error_text(const nlohmann::json::exception& error) {
  return without_json_exception_prefix(error.what());
}

std::string describe_json(const nlohmann::json& value) {
  // dump() escapes control characters, so the text stays on one line; invalid UTF-8 is replaced.
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > kShownCharacters ? text.substr(0, kShownCharacters - 3) + "..." : text;
}

nlohmann::json parse_json_text(std::string_view text, std::string_view where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // parse errors, and numbers beyond double's range
    throw Error(std::string(where) + ": not valid JSON: " + json_error_text(error));
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes) {
  const std::vector<std::uint8_t> bytes = read_regular_file(path, what, max_bytes);
  return parse_json_text(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path.string());
}

void json_expected(std::string_view where, std::string_view what, const nlohmann::json& got) {
  throw Error(std::string(where) + ": expected " + std::string(what) + ", got " + describe_json(got));
}

double json_number(const nlohmann::json& value, std::string_view where) {
  if (!value.is_number()) json_expected(where, "a number", value);
  return value.get<double>();
}

std::int64_t json_integer(const nlohmann::json& value, std::string_view where) {
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
    json_expected(where, "an integer", value);
  return value.get<std::int64_t>();
}

bool json_boolean(const nlohmann::json& value, std::string_view where) {
  if (!value.is_boolean()) json_expected(where, "true or false", value);
  return value.get<bool>();
}

std::string json_string(const nlohmann::json& value, std::string_view where) {
  if (!value.is_string()) json_expected(where, "a string", value);
  return value.get<std::string>();
}

JsonObject::JsonObject(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {
  if (!value.is_object()) json_expected(name(), "an object", value);
}

std::string JsonObject::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string JsonObject::name(std::string_view key) const { return file_ + ": " + child_path(key); }

std::string JsonObject::name() const { return path_.empty() ? file_ : file_ + ": " + path_; }

void JsonObject::fail_at(std::string_view key, const std::string& problem) const {
  throw Error(name(key) + ": " + problem);
}

void JsonObject::allow_only(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : value_->items()) {
    bool found = false;
    for (std::string_view k : known) found = found || k == key;
    if (found) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail_plain("{}: unknown key '{}' (known: {})", name(), key, list);
  }
}

bool JsonObject::has(std::string_view key) const { return value_->contains(key); }

double JsonObject::real(std::string_view key, double fallback, double low, double high) const {
  if (!has(key)) return fallback;
  const double number = json_number(value_->at(std::string(key)), name(key));
  check_range(number, name(key), low, high);
  return number;
}

std::int64_t JsonObject::integer(std::string_view key, std::int64_t fallback, std::int64_t low,
                                 std::int64_t high) const {
  if (!has(key)) return fallback;
  const std::int64_t number = json_integer(value_->at(std::string(key)), name(key));
  check_integer_range(number, name(key), low, high);
  return number;
}

bool JsonObject::boolean(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  return json_boolean(value_->at(std::string(key)), name(key));
}

std::string JsonObject::text(std::string_view key, std::string fallback) const {
  if (!has(key)) return fallback;
  return json_string(value_->at(std::string(key)), name(key));
}

const nlohmann::json& JsonObject::require_array(std::string_view key, std::size_t size) const {
  const nlohmann::json& value = value_->at(std::string(key));
  if (!value.is_array() || value.size() != size)
    json_expected(name(key), "an array of " + std::to_string(size) + " numbers", value);
  return value;
}

double JsonObject::element_real(const nlohmann::json& value, std::string_view key, std::size_t index, double low,
                                double high) const {
  const std::string element = name(key) + "[" + std::to_string(index) + "]";
  const double number = json_number(value, element);
  check_range(number, element, low, high);
  return number;
}

JsonObject JsonObject::object(std::string_view key) const {
  if (!has(key)) return JsonObject(empty_object(), file_, child_path(key));
  return JsonObject(value_->at(std::string(key)), file_, child_path(key));
}

std::vector<JsonObject> JsonObject::objects(std::string_view key) const {
  std::vector<JsonObject> out;
  if (!has(key)) return out;
  const nlohmann::json& array = value_->at(std::string(key));
  if (!array.is_array()) json_expected(name(key), "an array of objects", array);
  for (std::size_t i = 0; i < array.size(); ++i)
    out.emplace_back(array[i], file_, child_path(key) + "[" + std::to_string(i) + "]");
  return out;
}

}  // namespace wobble
