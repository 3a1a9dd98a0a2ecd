#pragma once
// The message of the wobble::Error a call throws: for tests that check that bad input gives one
// clear line naming the problem.
#include <string>

#include <wobble/error.hpp>

namespace wobble::test {

// The message of the wobble::Error that `call` throws; empty when it throws none.
template <typename Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const wobble::Error& error) {
    return error.what();
  }
  return {};
}

}  // namespace wobble::test
