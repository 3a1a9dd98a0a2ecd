#include "deformer_options.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

void DeformerOptions::add_to(CLI::App& command) {
  std::string names;
  for (const DeformerDescription* d : deformer_descriptions()) names += (names.empty() ? "" : ", ") + d->name;
  command.add_option("--deformer", stack_, "comma-separated deformer stack, applied in order (" + names + ")")
      ->capture_default_str();
  command.add_option("--settings", settings_file_, "JSON file with one section per deformer (docs/parameters.md)");
  for (const DeformerDescription* d : deformer_descriptions()) {
    for (const ParameterDescription& parameter : d->parameters) {
      const std::string flag = parameter.flag;
      auto* option = command.add_option_function<std::string>(
          "--" + flag, [this, flag](const std::string& value) { values_[flag] = value; },
          "[" + d->name + "] " + parameter.describe());
      option->group("Deformer parameters");
      if (parameter.type == ParameterType::Boolean) option->expected(0, 1)->default_str("true");
    }
  }
}

StackSettings DeformerOptions::settings(const std::vector<std::string>& other_stacks) const {
  std::vector<std::string> texts = {stack_};
  texts.insert(texts.end(), other_stacks.begin(), other_stacks.end());
  std::vector<StackDescription> stacks;
  std::string quoted;
  for (const std::string& text : texts) {
    stacks.push_back(StackDescription::parse(text));
    quoted += (quoted.empty() ? "'" : ", '") + text + "'";
  }
  const std::string nowhere = texts.size() == 1 ? "not in the stack " + quoted : "in none of the stacks " + quoted;
  auto read_by_a_stack = [&](const std::string& deformer) {
    return std::any_of(stacks.begin(), stacks.end(), [&](const StackDescription& s) { return s.contains(deformer); });
  };
  StackSettings settings = settings_file_.empty() ? StackSettings() : StackSettings::from_file(settings_file_);
  for (const std::string& name : settings.deformers()) {
    if (!read_by_a_stack(name))
      spdlog::warn("{}: section '{}' is ignored: that deformer is {}", settings_file_, name, nowhere);
  }
  for (const auto& [flag, text] : values_) {
    const FlagTarget target = flag_target(flag);
    if (!read_by_a_stack(target.deformer->name)) {
      fail_plain("--{} sets a parameter of deformer '{}', which is {}", flag, target.deformer->name, nowhere);
    }
    settings.set_flag(flag, target, text);
  }
  return settings;
}

}  // namespace wobble::cli
