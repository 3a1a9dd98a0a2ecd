// Settings as text: the `--settings` JSON file, command-line values, and the descriptions as
// JSON and Markdown. nlohmann-json stays inside the libraries (the runtime's headers do not use
// it); JSON values are read through core/json_values.hpp, as the scene files' are.
#include <wobble/parameters.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/regular_file.hpp>

#include "core/json_values.hpp"
#include "deform/description_json.hpp"

namespace wobble {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMostSettingsBytes = std::uint64_t(256) << 20;  // masks of big meshes are large

Keys keys_from_json(const json& j, std::string_view where) {
  Keys keys;
  for (const auto& [name, value] : j.items()) {
    if (name == "interpolation") {
      if (value == "step")
        keys.step = true;
      else if (value != "linear")
        json_expected(std::string(where) + ".interpolation", "\"linear\" or \"step\"", value);
    } else if (name != "keys") {
      throw Error(std::string(where) + ": unknown key '" + name +
                  "' (a keyed value has \"keys\" and \"interpolation\")");
    }
  }
  if (!j.contains("keys") || !j["keys"].is_array()) {
    json_expected(where, "a number or {\"keys\": [[time, value], ...]}", j);
  }
  const json& points = j["keys"];
  for (std::size_t k = 0; k < points.size(); ++k) {
    const std::string at = std::string(where) + ".keys[" + std::to_string(k) + "]";
    if (!points[k].is_array() || points[k].size() != 2) json_expected(at, "[time, value]", points[k]);
    keys.points.push_back({json_number(points[k][0], at + "[0]"), json_number(points[k][1], at + "[1]")});
  }
  return keys;
}

ParameterValue value_from_json(const ParameterDescription& d, const json& j, std::string_view where);

JointTable table_from_json(const ParameterDescription& d, const json& j, std::string_view where) {
  if (!j.is_object()) json_expected(where, "an object {\"joint name\": {...}}", j);
  JointTable table;
  for (const auto& [joint, fields] : j.items()) {
    const std::string at = std::string(where) + "." + joint;
    if (!fields.is_object()) json_expected(at, "an object of per-joint settings", fields);
    JointEntry entry{joint, {}};
    for (const auto& [key, value] : fields.items()) {
      const ParameterDescription* field = d.field(key);
      if (!field) {
        std::vector<std::string> keys;
        for (const ParameterDescription& f : d.fields) keys.push_back(f.key);
        throw Error(at + ": unknown key '" + key + "'" + did_you_mean(key, keys));
      }
      entry.values.push_back({key, value_from_json(*field, value, at + "." + key)});
    }
    table.push_back(std::move(entry));
  }
  return table;
}

ParameterValue value_from_json(const ParameterDescription& d, const json& j, std::string_view where) {
  if (j.is_object() && d.type == ParameterType::Number) return keys_from_json(j, where);
  switch (d.type) {
    case ParameterType::Number: return json_number(j, where);
    case ParameterType::Integer: return json_integer(j, where);
    case ParameterType::Boolean: return json_boolean(j, where);
    case ParameterType::Choice:
    case ParameterType::Text: return json_string(j, where);
    case ParameterType::VertexArray: {
      if (j.is_string() && d.attribute_allowed) return VertexValues{{}, j.get<std::string>()};
      if (!j.is_array())
        json_expected(where, d.attribute_allowed ? "an array of numbers or an attribute name" : "an array of numbers",
                      j);
      VertexValues array;
      array.values.reserve(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) {
        // Checked before the values become floats, so that a message shows the number the file
        // holds (3.4e+38, not 3.3999999521443642e+38; 1e+39, not inf).
        const std::string at = std::string(where) + "[" + std::to_string(i) + "]";
        const double value = json_number(j[i], at);
        check_range(value, at, std::max(d.minimum, double(-FLT_MAX)), std::min(d.maximum, double(FLT_MAX)));
        array.values.push_back(static_cast<float>(value));
      }
      return array;
    }
    case ParameterType::Vector3: {
      if (!j.is_array() || j.size() != 3) json_expected(where, "[x, y, z]", j);
      std::array<double, 3> v{};
      for (int i = 0; i < 3; ++i) v[i] = json_number(j[i], std::string(where) + "[" + std::to_string(i) + "]");
      return v;
    }
    case ParameterType::JointTable: return table_from_json(d, j, where);
  }
  return {};
}

json value_to_json(const ParameterValue& value) {
  return std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, VertexValues>) {
          return v.attribute.empty() ? json(v.values) : json(v.attribute);
        } else if constexpr (std::is_same_v<T, JointTable>) {
          json table = json::object();
          for (const JointEntry& entry : v) {
            json fields = json::object();
            for (const NamedValue& nv : entry.values) fields[nv.key] = value_to_json(nv.value);
            table[entry.joint] = fields;
          }
          return table;
        } else if constexpr (std::is_same_v<T, Keys>) {
          json keys = {{"keys", v.points}};
          if (v.step) keys["interpolation"] = "step";
          return keys;
        } else {
          return v;
        }
      },
      value);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// StackSettings

StackSettings StackSettings::from_json(std::string_view text, std::string_view source) {
  const json root = parse_json_text(text, source);
  if (!root.is_object()) json_expected(source, "an object with one section per deformer", root);
  StackSettings settings;
  for (const auto& [name, section] : root.items()) {
    const DeformerDescription& deformer = deformer_at(name, source);
    const std::string at = std::string(source) + ": " + name;
    if (!section.is_object()) json_expected(at, "an object of parameters", section);
    DeformerSettings& target = settings.section(name);
    for (const auto& [key, value] : section.items()) {
      const ParameterDescription& parameter = deformer.at(key, at);
      target.set(key, value_from_json(parameter, value, at + "." + key), at + "." + key);
    }
  }
  return settings;
}

StackSettings StackSettings::from_file(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_regular_file(path, "a settings file", kMostSettingsBytes);
  return from_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

std::string StackSettings::to_json(int indent) const {
  json root = json::object();
  for (const auto& [name, section] : sections_) {
    for (const std::string& key : section.changed_keys()) root[name][key] = value_to_json(section.given(key));
  }
  return root.dump(indent);
}

DeformerSettings& StackSettings::section(std::string_view deformer) {
  auto found = sections_.find(deformer);
  if (found == sections_.end()) {
    found = sections_.emplace(std::string(deformer), DeformerSettings(deformer_at(deformer, "settings"))).first;
  }
  return found->second;
}

const DeformerSettings* StackSettings::find(std::string_view deformer) const {
  const auto found = sections_.find(deformer);
  return found == sections_.end() ? nullptr : &found->second;
}

DeformerSettings StackSettings::get(std::string_view deformer) const {
  if (const DeformerSettings* found = find(deformer)) return *found;
  return DeformerSettings(deformer_at(deformer, "settings"));
}

void StackSettings::set_flag(std::string_view flag, std::string_view text) { set_flag(flag, flag_target(flag), text); }

void StackSettings::set_flag(std::string_view flag, const FlagTarget& target, std::string_view text) {
  const std::string what = "--" + std::string(flag);
  section(target.deformer->name).set(target.parameter->key, parse_parameter_text(*target.parameter, text, what), what);
}

void StackSettings::merge(const StackSettings& other) {
  for (const auto& [name, section] : other.sections_) {
    DeformerSettings& target = this->section(name);
    for (const std::string& key : section.changed_keys()) target.set(key, section.given(key), name + "." + key);
  }
}

std::vector<std::string> StackSettings::deformers() const {
  std::vector<std::string> names;
  for (const DeformerDescription* d : deformer_descriptions()) {
    if (sections_.count(d->name)) names.push_back(d->name);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Command-line values

ParameterValue parse_parameter_text(const ParameterDescription& d, std::string_view text, std::string_view what) {
  const bool json_text = !text.empty() && (text.front() == '{' || text.front() == '[');
  switch (d.type) {
    case ParameterType::Number:
      if (json_text) return value_from_json(d, parse_json_text(text, what), what);
      return parse_real(text, what);
    case ParameterType::Integer: return parse_integer(text, what);
    case ParameterType::Boolean: return parse_boolean(text, what);
    case ParameterType::Choice:
    case ParameterType::Text: return std::string(text);
    case ParameterType::VertexArray:
      if (!json_text && d.attribute_allowed) return VertexValues{{}, std::string(text)};
      return value_from_json(d, parse_json_text(text, what), what);
    case ParameterType::Vector3:
    case ParameterType::JointTable: return value_from_json(d, parse_json_text(text, what), what);
  }
  return {};
}

ParameterValue parameter_from_json(const ParameterDescription& parameter, std::string_view text,
                                   std::string_view what) {
  ParameterValue value = value_from_json(parameter, parse_json_text(text, what), what);
  parameter.check(value, what);
  return value;
}

std::string parameter_to_json(const ParameterValue& value) { return value_to_json(value).dump(); }

// ---------------------------------------------------------------------------------------------
// Descriptions as JSON and Markdown

namespace {

json limit(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json description_json(const ParameterDescription& p) {
  json j = {{"key", p.key},
            {"flag", p.flag},
            {"type", to_string(p.type)},
            {"unit", p.unit},
            {"default", value_to_json(p.default_value)},
            {"minimum", limit(p.minimum)},
            {"maximum", limit(p.maximum)},
            {"minimum_exclusive", p.minimum_exclusive},
            {"maximum_exclusive", p.maximum_exclusive},
            {"soft_minimum", limit(p.slider_minimum())},
            {"soft_maximum", limit(p.slider_maximum())},
            {"choices", p.choices},
            {"lifetime", to_string(p.lifetime)},
            {"optional", p.optional},
            {"attribute_allowed", p.attribute_allowed},
            {"help", p.help}};
  if (p.type == ParameterType::JointTable) {
    j["fields"] = json::array();
    for (const ParameterDescription& f : p.fields) j["fields"].push_back(description_json(f));
  }
  return j;
}

std::string markdown_row(const ParameterDescription& p, const std::string& prefix) {
  std::string range;
  if (!p.choices.empty()) {
    for (const std::string& c : p.choices) range += (range.empty() ? "" : ", ") + ("`" + c + "`");
  } else if (std::isfinite(p.minimum) || std::isfinite(p.maximum)) {
    range = std::string(p.minimum_exclusive ? "(" : "[") +
            (std::isfinite(p.minimum) ? p.bound_text(p.minimum) : "-inf") + ", " +
            (std::isfinite(p.maximum) ? p.bound_text(p.maximum) : "inf") + (p.maximum_exclusive ? ")" : "]");
  }
  const std::string shown_default = p.default_text();
  return "| `" + prefix + p.key + "` | " + (p.flag.empty() ? "" : "`--" + p.flag + "`") + " | " + to_string(p.type) +
         " | " + p.unit + " | " + (shown_default.empty() ? "" : "`" + shown_default + "`") + " | " + range + " | " +
         to_string(p.lifetime) + " | " + p.help + " |\n";
}

json deformer_json(const DeformerDescription& d) {
  json parameters = json::array();
  for (const ParameterDescription& p : d.parameters) parameters.push_back(description_json(p));
  return {{"name", d.name}, {"stage", to_string(d.stage)}, {"summary", d.summary}, {"parameters", parameters}};
}

}  // namespace

std::string deformer_descriptions_json(int indent) {
  json all = json::array();
  for (const DeformerDescription* d : deformer_descriptions()) all.push_back(deformer_json(*d));
  return all.dump(indent);
}

std::string deformer_description_json(const DeformerDescription& description, int indent) {
  return deformer_json(description).dump(indent);
}

std::string deformer_descriptions_markdown() {
  std::string text =
      "# Deformer parameters\n\n"
      "Generated from the deformers' own descriptions (`wobble deformers --markdown`); a test keeps this file\n"
      "equal to that output. Keys go into a deformer's section of the `--settings` file, flags onto the\n"
      "command line. `bind` parameters change what the deformer precomputes (a change rebinds it);\n"
      "`live` ones may change between any two frames and keep the motion's history. Any live number may\n"
      "be keyframed in the settings file: `{\"keys\": [[time_s, value], ...], \"interpolation\": \"linear\"}`\n"
      "(or `\"step\"`), in seconds of clip time, held before the first key and after the last.\n";
  for (const DeformerDescription* d : deformer_descriptions()) {
    text += "\n## `" + d->name + "` (" + to_string(d->stage) + ")\n\n" + d->summary + ".\n\n";
    if (d->parameters.empty()) {
      text += "No parameters.\n";
      continue;
    }
    text += parameter_table_markdown(*d);
  }
  return text;
}

std::string parameter_table_markdown(const DeformerDescription& description) {
  std::string text =
      "| key | flag | type | unit | default | range | lifetime | help |\n|---|---|---|---|---|---|---|---|\n";
  for (const ParameterDescription& p : description.parameters) {
    text += markdown_row(p, "");
    for (const ParameterDescription& f : p.fields) text += markdown_row(f, p.key + ".JOINT.");
  }
  return text;
}

}  // namespace wobble
