#pragma once
// Errors: one exception type whose message names the file (or element) and the problem, on one line.
#include <stdexcept>

namespace wobble {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wobble
