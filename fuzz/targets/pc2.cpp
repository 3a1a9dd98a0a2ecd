// PC2 point caches through read_pc2.
#include <wobble/io/files.hpp>

#include "../fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = wobble::fuzz::input_file("input.pc2", data, size);
  wobble::fuzz::expect_clean([&] { wobble::read_pc2(path); }, path.string());
  return 0;
}
