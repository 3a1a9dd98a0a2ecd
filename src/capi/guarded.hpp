#pragma once
// The C API's boundary, shared by the files that implement its functions (src/capi for
// wobble.h, src/offline for wobble_offline.h): exceptions stop here and become a wobble_status
// plus the calling thread's message (wobble_last_error), and the handles' C++ contents.
#include <exception>
#include <new>
#include <string>

#include <wobble/character.hpp>
#include <wobble/wobble.h>

#include "capi/host_motion.hpp"
#include "capi/stack_settings.hpp"
#include "core/fail.hpp"

struct wobble_character {
  wobble::Character character;
};

namespace wobble::capi {

// The calling thread's last failure message (wobble_last_error's text).
std::string& last_error();

// Runs body; a failure becomes `status` (settings errors WOBBLE_INVALID_SETTINGS, a host's failing
// callback WOBBLE_FAILED) and its message.
template <typename Body>
wobble_status guarded(wobble_status status, Body&& body) {
  try {
    body();
    return WOBBLE_OK;
  } catch (const SettingsError& e) {
    last_error() = e.what();
    return WOBBLE_INVALID_SETTINGS;
  } catch (const HostFailure& e) {
    last_error() = e.what();
    return WOBBLE_FAILED;
  } catch (const std::bad_alloc&) {
    last_error() = "out of memory";
    return WOBBLE_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error() = e.what();
    return status;
  } catch (...) {
    last_error() = "unknown failure";
    return WOBBLE_FAILED;
  }
}

template <typename T>
void require(const T* pointer, const char* what) {
  if (!pointer) fail_plain("{} is NULL", what);
}

}  // namespace wobble::capi
