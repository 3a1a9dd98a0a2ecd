#include "core/fail.hpp"
#include "deformer_options.hpp"

#include <fstream>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>

namespace wobble::cli {

void DeformerOptions::add_to(CLI::App& command) {
  std::string names;
  for (const DeformerType& type : deformer_types()) names += (names.empty() ? "" : ", ") + type.name;
  command.add_option("--deformer", stack_, "comma-separated deformer stack, applied in order (" + names + ")")
      ->capture_default_str();
  command.add_option("--settings", settings_file_, "JSON file with one section per deformer");
  for (const DeformerType& type : deformer_types()) {
    for (const ParameterSpec& parameter : type.parameters) {
      const std::string flag = parameter.flag;
      auto* option = command.add_option_function<std::string>(
          "--" + flag, [this, flag](const std::string& value) { values_[flag] = value; },
          "[" + type.name + "] " + describe(parameter));
      option->group("Deformer parameters");
      if (parameter.type == ParameterSpec::Type::Boolean) option->expected(0, 1)->default_str("true");
    }
  }
}

nlohmann::json DeformerOptions::settings() const {
  nlohmann::json settings = nlohmann::json::object();
  if (!settings_file_.empty()) {
    std::ifstream in(settings_file_);
    if (!in) fail(settings_file_, "cannot open the settings file");
    try {
      settings = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& error) {
      fail(settings_file_, "not valid JSON: {}", error.what());
    }
    if (!settings.is_object()) fail(settings_file_, "settings must be a JSON object with one section per deformer");
  }
  const std::string stack_list = "," + stack_ + ",";
  for (const auto& [flag, text] : values_) {
    for (const DeformerType& type : deformer_types()) {
      for (const ParameterSpec& parameter : type.parameters) {
        if (parameter.flag != flag) continue;
        if (stack_list.find("," + type.name + ",") == std::string::npos) {
          fail_plain("--{} sets a parameter of deformer '{}', which is not in the stack '{}'", flag, type.name, stack_);
        }
        nlohmann::json value;
        try {
          switch (parameter.type) {
            case ParameterSpec::Type::Number: value = std::stod(text); break;
            case ParameterSpec::Type::Integer: value = std::stoll(text); break;
            case ParameterSpec::Type::Boolean: value = text.empty() || text == "true" || text == "1" || text == "on"; break;
            case ParameterSpec::Type::Text: value = text; break;
          }
        } catch (const std::exception&) {
          fail_plain("--{}: '{}' is not a valid value", flag, text);
        }
        settings[type.name][parameter.key] = value;
      }
    }
  }
  return settings;
}

}  // namespace wobble::cli
