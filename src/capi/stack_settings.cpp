#include "capi/stack_settings.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include <wobble/error.hpp>

namespace wobble::capi {

DeformerStack parse_stack(const char* stack, const char* settings_json) {
  nlohmann::json settings = nlohmann::json::object();
  if (settings_json && *settings_json) {
    try {
      settings = nlohmann::json::parse(settings_json);
    } catch (const nlohmann::json::parse_error& e) {
      throw SettingsError(std::string("settings JSON: ") + e.what());
    }
    if (!settings.is_object()) throw SettingsError("settings JSON: must be an object {\"deformer\": {...}}");
  }
  try {
    return DeformerStack::parse(stack, settings);
  } catch (const Error& e) {
    throw SettingsError(e.what());
  }
}

}  // namespace wobble::capi
