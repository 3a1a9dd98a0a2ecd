#include "described_options.hpp"

namespace wobble::cli {

void DescribedOptions::add_to(CLI::App& command, const std::string& group) {
  for (const ParameterDescription& parameter : description_->parameters) {
    const std::string key = parameter.key;
    command
        .add_option_function<std::string>(flag(key), [this, key](const std::string& text) { values_[key] = text; },
                                          parameter.describe())
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
