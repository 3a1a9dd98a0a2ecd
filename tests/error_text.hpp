#pragma once
// The message of the wobble::Error a call throws, or "" when it throws none: for tests that check
// that bad input gives one clear line naming the problem.
#include <functional>
#include <string>

#include <wobble/error.hpp>

namespace wobble::test {

inline std::string error_text(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace wobble::test
