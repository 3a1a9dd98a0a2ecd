// glTF and GLB through wobble's reader (tinygltf underneath), as `wobble info` reads them.
#include <cstring>

#include "../fuzz_support.hpp"

WOBBLE_FUZZ_QUIET_LOGS

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const bool binary = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  return wobble::fuzz::load_as(binary ? "input.glb" : "input.gltf", data, size);
}
