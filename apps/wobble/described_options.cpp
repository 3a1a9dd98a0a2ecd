#include "described_options.hpp"

#include "value_options.hpp"

namespace wobble::cli {

namespace {

// The CLI11 type name a batch manifest reads the value as (batch_bake_options.cpp).
const char* type_name(const ParameterDescription& parameter) {
  if (parameter.type == ParameterType::Integer) return kIntegerType;
  if (parameter.type == ParameterType::Number) return kRealType;
  return "TEXT";
}

}  // namespace

void DescribedOptions::add_to(CLI::App& command, const std::string& group,
                              const std::function<bool(const ParameterDescription&)>& include) {
  for (const ParameterDescription& parameter : description_->parameters) {
    if (include && !include(parameter)) continue;
    const std::string key = parameter.key, where = flag(key);
    const DeformerDescription& description = *description_;
    auto check = [&description, key, where](const std::string& text) {
      DeformerSettings(description).set(key, parse_parameter_text(description.at(key, where), text, where), where);
    };
    add_strict_option(command, where, parameter.describe(), type_name(parameter), check,
                      [this, key](const std::string& text) { values_[key] = text; })
        ->group(group);
  }
}

std::string DescribedOptions::flag(std::string_view key) const {
  return "--" + prefix_ + description_->at(key, "flag").flag;
}

DeformerSettings DescribedOptions::settings() const {
  DeformerSettings settings(*description_);
  for (const auto& [key, text] : values_) {
    const std::string where = flag(key);
    settings.set(key, parse_parameter_text(description_->at(key, where), text, where), where);
  }
  return settings;
}

}  // namespace wobble::cli
