#include "stack_settings.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <wobble/error.hpp>

namespace wobble::viewer {
namespace {

// Position of a deformer in the registry, stage first: the order a stack must have.
std::pair<int, std::size_t> stack_rank(const std::string& name) {
  const auto types = deformer_types();
  for (std::size_t i = 0; i < types.size(); ++i)
    if (types[i].name == name) return {static_cast<int>(types[i].stage), i};
  return {99, 0};
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

StackSettings StackSettings::from(const std::string& spec, const nlohmann::json& settings) {
  DeformerStack::parse(spec, settings);  // validates names, order, sections and keys
  StackSettings s;
  std::stringstream in(spec);
  for (std::string name; std::getline(in, name, ',');)
    if (!trim(name).empty()) s.deformers_.push_back(trim(name));
  if (settings.is_object()) s.sections_ = settings;
  return s;
}

std::string StackSettings::spec() const {
  std::string out;
  for (const auto& d : deformers_) out += (out.empty() ? "" : ",") + d;
  return out;
}

bool StackSettings::contains(const std::string& deformer) const {
  return std::find(deformers_.begin(), deformers_.end(), deformer) != deformers_.end();
}

std::string StackSettings::base() const {
  for (const auto& d : deformers_) {
    const DeformerType* type = find_deformer_type(d);
    if (type && type->stage == DeformerStage::Base) return d;
  }
  return {};
}

void StackSettings::set_base(const std::string& name) {
  std::erase_if(deformers_, [](const std::string& d) {
    const DeformerType* type = find_deformer_type(d);
    return type && type->stage == DeformerStage::Base;
  });
  if (!name.empty()) deformers_.push_back(name);
  sort();
}

void StackSettings::set_enabled(const std::string& name, bool enabled) {
  std::erase(deformers_, name);
  if (enabled) deformers_.push_back(name);
  sort();
}

void StackSettings::sort() {
  std::stable_sort(deformers_.begin(), deformers_.end(),
                   [](const std::string& a, const std::string& b) { return stack_rank(a) < stack_rank(b); });
}

nlohmann::json& StackSettings::section(const std::string& deformer) {
  if (!sections_.contains(deformer)) sections_[deformer] = nlohmann::json::object();
  return sections_[deformer];
}

const nlohmann::json* StackSettings::find_section(const std::string& deformer) const {
  const auto it = sections_.find(deformer);
  return it == sections_.end() ? nullptr : &*it;
}

nlohmann::json StackSettings::settings_file() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& d : deformers_)
    if (const auto* s = find_section(d); s && !s->empty()) out[d] = *s;
  return out;
}

DeformerStack StackSettings::build() const { return DeformerStack::parse(spec(), settings_file()); }

ParameterView parameter_view(const ParameterSpec& spec) {
  ParameterView view;
  view.default_text = spec.default_value;
  view.choices = spec.choices;
  const double number = default_number(spec);
  if (!std::isnan(number)) view.default_number = number;
  return view;
}

}  // namespace wobble::viewer
