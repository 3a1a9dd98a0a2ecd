#include "deformer_options.hpp"

#include <spdlog/spdlog.h>

#include <wobble/error.hpp>

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

StackSettings DeformerOptions::settings() const {
  const StackDescription stack = this->stack();
  StackSettings settings = settings_file_.empty() ? StackSettings() : StackSettings::from_file(settings_file_);
  for (const std::string& name : settings.deformers()) {
    if (!stack.contains(name)) {
      spdlog::warn("{}: section '{}' is ignored: that deformer is not in the stack '{}'", settings_file_, name, stack_);
    }
  }
  for (const auto& [flag, text] : values_) {
    const std::optional<FlagTarget> target = find_flag(flag);
    if (!target) throw Error("--" + flag + ": not a deformer parameter");
    if (!stack.contains(target->deformer->name)) {
      fail_plain("--{} sets a parameter of deformer '{}', which is not in the stack '{}'", flag,
                 target->deformer->name, stack_);
    }
    settings.set_flag(flag, text);
  }
  return settings;
}

}  // namespace wobble::cli
