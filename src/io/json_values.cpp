#include <wobble/json_values.hpp>

#include <cmath>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

namespace wobble {

namespace {

const nlohmann::json& empty_object() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

}  // namespace

std::string json_error_text(const nlohmann::json::exception& error) {
  std::string text = error.what();
  if (text.rfind("[json.exception.", 0) == 0) {
    const std::size_t close = text.find("] ");
    if (close != std::string::npos) text.erase(0, close + 2);
  }
  return text;
}

std::string describe_json(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_float()) return format_real(value.get<double>());
  if (value.is_number()) return value.dump();
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    if (text.size() > 40) text = text.substr(0, 40) + "...";
    return "\"" + text + "\"";
  }
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "a value of another kind";
}

JsonObject::JsonObject(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {
  if (!value.is_object()) fail_plain("{}: expected an object, got {}", name(), describe_json(value));
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
  const nlohmann::json& value = value_->at(std::string(key));
  if (!value.is_number()) fail_at(key, "expected a number, got " + describe_json(value));
  const double number = value.get<double>();
  check_range(number, name(key), low, high);
  return number;
}

std::int64_t JsonObject::integer(std::string_view key, std::int64_t fallback, std::int64_t low,
                                 std::int64_t high) const {
  if (!has(key)) return fallback;
  const nlohmann::json& value = value_->at(std::string(key));
  if (value.is_number_integer()) {
    const std::int64_t number =
        value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(INT64_MAX) ? INT64_MAX
                                                                                           : value.get<std::int64_t>();
    check_range(static_cast<double>(number), name(key), static_cast<double>(low), static_cast<double>(high));
    return number;
  }
  // 3.0 is the integer 3; 1.5 is not an integer.
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && number == std::floor(number) && std::abs(number) < 9e15) {
      check_range(number, name(key), static_cast<double>(low), static_cast<double>(high));
      return static_cast<std::int64_t>(number);
    }
  }
  fail_at(key, "expected an integer, got " + describe_json(value));
}

bool JsonObject::boolean(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& value = value_->at(std::string(key));
  if (!value.is_boolean()) fail_at(key, "expected true or false, got " + describe_json(value));
  return value.get<bool>();
}

std::string JsonObject::text(std::string_view key, std::string fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& value = value_->at(std::string(key));
  if (!value.is_string()) fail_at(key, "expected a string, got " + describe_json(value));
  return value.get<std::string>();
}

const nlohmann::json& JsonObject::require_array(std::string_view key, std::size_t size) const {
  const nlohmann::json& value = value_->at(std::string(key));
  if (!value.is_array() || value.size() != size)
    fail_at(key, "expected an array of " + std::to_string(size) + " numbers, got " +
                     (value.is_array() ? "an array of " + std::to_string(value.size()) : describe_json(value)));
  return value;
}

double JsonObject::element_real(const nlohmann::json& value, std::string_view key, std::size_t index, double low,
                                double high) const {
  const std::string element = name(key) + "[" + std::to_string(index) + "]";
  if (!value.is_number()) throw Error(element + ": expected a number, got " + describe_json(value));
  const double number = value.get<double>();
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
  if (!array.is_array()) fail_at(key, "expected an array of objects, got " + describe_json(array));
  for (std::size_t i = 0; i < array.size(); ++i)
    out.emplace_back(array[i], file_, child_path(key) + "[" + std::to_string(i) + "]");
  return out;
}

}  // namespace wobble
