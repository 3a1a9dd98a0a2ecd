// OFF files through load_character, as `wobble info` and `wobble simulate` read them.
#include "../fuzz_support.hpp"

WOBBLE_FUZZ_QUIET_LOGS

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wobble::fuzz::load_as("input.off", data, size);
}
