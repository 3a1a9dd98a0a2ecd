#include "render/panel_spec.hpp"

#include <set>
#include <sstream>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

PanelSpec parse_panel_spec(const std::string& text) {
  PanelSpec spec;
  spec.text = text;
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ':');) parts.push_back(part);
  if (parts.empty() || parts[0].empty()) fail_plain("--compare '{}': no deformer stack before ':'", text);
  spec.stack = StackDescription::parse(parts[0]);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string::npos || equals == 0) {
      fail_plain("--compare '{}': '{}' is not flag=value (e.g. lbs,dynamic:amplitude=0)", text, parts[i]);
    }
    std::string flag = parts[i].substr(0, equals);
    while (!flag.empty() && flag.front() == '-') flag.erase(flag.begin());
    if (!find_flag(flag)) fail_plain("--compare '{}': unknown deformer parameter '{}'", text, flag);
    spec.overrides.emplace_back(flag, parts[i].substr(equals + 1));
  }
  return spec;
}

std::vector<StackSettings> panel_settings(const DeformerOptions& shared, const std::vector<PanelSpec>& panels) {
  std::string all;
  for (const PanelSpec& panel : panels) {
    for (const StackEntry& entry : panel.stack.entries()) {
      if (("," + all + ",").find("," + entry.deformer->name + ",") == std::string::npos) {
        all += (all.empty() ? "" : ",") + entry.deformer->name;
      }
    }
  }
  DeformerOptions union_options = shared;
  union_options.set_stack(all);
  const StackSettings common = union_options.settings();
  std::vector<StackSettings> result;
  for (const PanelSpec& panel : panels) {
    StackSettings settings = common;
    for (const auto& [flag, value] : panel.overrides) {
      const FlagTarget target = flag_target(flag);  // parse_panel_spec has refused unknown flags by name
      if (!panel.stack.contains(target.deformer->name)) {
        fail_plain("--compare '{}': --{} sets a parameter of deformer '{}', which is not in the panel's stack",
                   panel.text, flag, target.deformer->name);
      }
      settings.set_flag(flag, target, value);
    }
    result.push_back(std::move(settings));
  }
  return result;
}

}  // namespace wobble::cli
