#pragma once
// A deformer stack from the C API's text: the stack ("lbs,dynamic") and the settings JSON (NULL or
// "" for none). Problems with either throw SettingsError (WOBBLE_INVALID_SETTINGS).
#include <stdexcept>

#include <wobble/deformer.hpp>

namespace wobble::capi {

struct SettingsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

DeformerStack parse_stack(const char* stack, const char* settings_json);

}  // namespace wobble::capi
