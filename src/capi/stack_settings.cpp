#include "capi/stack_settings.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include <wobble/error.hpp>
#include <wobble/parameters.hpp>

#include "core/fail.hpp"
#include "core/json_values.hpp"

namespace wobble::capi {

namespace {

// Runs body; a wobble::Error (a description's check) becomes a SettingsError.
template <typename Body>
auto as_settings_error(Body&& body) {
  try {
    return body();
  } catch (const Error& e) {
    throw SettingsError(e.what());
  }
}

// The settings with deformer.key = value (checked), for DeformerStack::update.
StackSettings changed(const DeformerStack& stack, const std::string& deformer, const std::string& key,
                      const std::string& where,
                      const std::function<ParameterValue(const ParameterDescription&)>& value) {
  if (!stack.description().contains(deformer)) {
    throw SettingsError(where + ": the stack '" + stack.spec() + "' has no deformer '" + deformer + "'");
  }
  StackSettings settings = stack.settings();
  DeformerSettings& section = settings.section(deformer);
  const ParameterDescription& parameter = section.description().at(key, where);
  if (parameter.lifetime == Lifetime::Bind) {
    throw SettingsError(where + ": a bind parameter (changing it rebinds the deformer): create a new stack instead");
  }
  section.set(key, value(parameter), where);
  return settings;
}

// NULL or "": the defaults.
StackSettings settings_from(const char* settings_json) {
  return settings_json && *settings_json ? StackSettings::from_json(settings_json, "settings") : StackSettings{};
}

}  // namespace

DeformerSettings described_settings_from_json(const DeformerDescription& description, const char* settings_json,
                                              const std::string& where,
                                              const std::function<bool(std::string_view key)>& allowed) {
  DeformerSettings settings(description);
  if (!settings_json || !*settings_json) return settings;
  as_settings_error([&] {
    const nlohmann::json root = parse_json_text(settings_json, where);
    if (!root.is_object()) json_expected(where, "an object of settings", root);
    for (const auto& [key, value] : root.items()) {
      const std::string at = where + "." + key;
      const ParameterDescription& parameter = description.at(key, where);
      if (!allowed(key)) fail_plain("{}: not a setting here", at);
      settings.set(key, parameter_from_json(parameter, value.dump(), at), at);
    }
  });
  return settings;
}

DeformerStack parse_stack(const char* stack, const char* settings_json) {
  return as_settings_error([&] { return DeformerStack::parse(stack, settings_from(settings_json)); });
}

void set_live_parameter(DeformerStack& stack, const char* deformer, const char* key, double value) {
  const std::string where = std::string("set_parameter: ") + deformer + "." + key;
  as_settings_error([&] {
    stack.update(changed(stack, deformer, key, where, [&](const ParameterDescription& parameter) -> ParameterValue {
      if (parameter.type == ParameterType::Number) return value;
      if (parameter.type == ParameterType::Integer && std::isfinite(value) && value == std::trunc(value) &&
          std::abs(value) < 9e15) {
        return static_cast<std::int64_t>(value);
      }
      throw SettingsError(where + ": takes " +
                          (parameter.type == ParameterType::Integer ? "a whole number" : "a JSON value") +
                          " (wobble_stack_set_parameter_json)");
    }));
  });
}

void set_live_parameter_json(DeformerStack& stack, const char* deformer, const char* key, const char* json) {
  const std::string where = std::string("set_parameter_json: ") + deformer + "." + key;
  as_settings_error([&] {
    stack.update(changed(stack, deformer, key, where, [&](const ParameterDescription& parameter) {
      return parameter_from_json(parameter, json, where);
    }));
  });
}

std::string update_settings(DeformerStack& stack, const char* settings_json) {
  return as_settings_error([&] {
    const StackSettings next = settings_from(settings_json);
    std::string rebound;
    for (const StackEntry& entry : stack.description().entries()) {
      const std::string& name = entry.deformer->name;
      if (!next.get(name).bind_differs(stack.settings().get(name))) continue;
      rebound += (rebound.empty() ? "" : ",") + name;
    }
    stack.update(next);
    return rebound;
  });
}

}  // namespace wobble::capi
