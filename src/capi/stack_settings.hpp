#pragma once
// The C API's text: a deformer stack from its text ("lbs,dynamic") and the settings JSON (NULL or
// "" for none), and live changes of one parameter. Problems throw SettingsError
// (WOBBLE_INVALID_SETTINGS), naming the key.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <wobble/deformer.hpp>

namespace wobble::capi {

struct SettingsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

DeformerStack parse_stack(const char* stack, const char* settings_json);

// The settings of one description (helper bones' fit, physics) from a JSON object of its keys
// (NULL or "": the defaults), each checked by the description; `allowed` refuses a key that the
// caller does not take. `where` begins every message ("wobble_helper_bones_fit: settings").
DeformerSettings described_settings_from_json(
    const DeformerDescription& description, const char* settings_json, const std::string& where,
    const std::function<bool(std::string_view key)>& allowed = [](std::string_view) { return true; });

// Sets deformer.key to `value` between frames (DeformerStack::update: the deformers keep their
// state). Refuses bind parameters (they would rebind the deformer: a new stack is the way).
void set_live_parameter(DeformerStack& stack, const char* deformer, const char* key, double value);
// The same from a JSON value: any type ("true", "\"uniform\"", "[0.1, 0.2]", keyframes).
void set_live_parameter_json(DeformerStack& stack, const char* deformer, const char* key, const char* json);
// Every setting at once (DeformerStack::update: deformers whose bind values differ are rebound);
// returns the rebound deformers' names, comma-separated ("" when none).
std::string update_settings(DeformerStack& stack, const char* settings_json);

}  // namespace wobble::capi
