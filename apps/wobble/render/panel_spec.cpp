#include "core/fail.hpp"
#include "render/panel_spec.hpp"

#include <set>
#include <sstream>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>

namespace wobble::cli {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

bool is_parameter_flag(const std::string& flag) {
  for (const DeformerType& type : deformer_types()) {
    for (const ParameterSpec& parameter : type.parameters) {
      if (parameter.flag == flag) return true;
    }
  }
  return false;
}

}  // namespace

PanelSpec parse_panel_spec(const std::string& text) {
  PanelSpec spec;
  spec.text = text;
  const std::vector<std::string> parts = split(text, ':');
  if (parts.empty() || parts[0].empty()) fail_plain("--compare '{}': no deformer stack before ':'", text);
  spec.stack = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string::npos || equals == 0) {
      fail_plain("--compare '{}': '{}' is not flag=value (e.g. lbs,dynamic:amplitude=0)", text, parts[i]);
    }
    std::string flag = parts[i].substr(0, equals);
    while (!flag.empty() && flag.front() == '-') flag.erase(flag.begin());
    if (!is_parameter_flag(flag)) fail_plain("--compare '{}': unknown deformer parameter '{}'", text, flag);
    spec.overrides.emplace_back(flag, parts[i].substr(equals + 1));
  }
  return spec;
}

std::vector<nlohmann::json> panel_settings(const DeformerOptions& shared, const std::vector<PanelSpec>& panels) {
  std::string all;
  for (const PanelSpec& panel : panels) all += (all.empty() ? "" : ",") + panel.stack;
  DeformerOptions union_options = shared;
  union_options.set_stack(all);
  const nlohmann::json common = union_options.settings();

  std::vector<nlohmann::json> result;
  for (const PanelSpec& panel : panels) {
    const std::vector<std::string> names = split(panel.stack, ',');
    const std::set<std::string> in_stack(names.begin(), names.end());
    nlohmann::json settings = nlohmann::json::object();
    for (const auto& [name, section] : common.items()) {
      if (in_stack.count(name)) settings[name] = section;
    }
    if (!panel.overrides.empty()) {
      DeformerOptions own;
      own.set_stack(panel.stack);
      for (const auto& [flag, value] : panel.overrides) own.set_value(flag, value);
      const nlohmann::json overrides = own.settings();
      for (const auto& [name, section] : overrides.items()) {
        for (const auto& [key, value] : section.items()) settings[name][key] = value;
      }
    }
    result.push_back(std::move(settings));
  }
  return result;
}

}  // namespace wobble::cli
