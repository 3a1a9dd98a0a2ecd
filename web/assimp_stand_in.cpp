// Web build: formats read through assimp (FBX, Collada, ...) are not available in the browser.
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include "core/fail.hpp"

namespace wobble {

Character read_with_assimp(const std::filesystem::path& path) {
  fail(path, "this format needs the desktop build of wobble-viewer (the web viewer reads .glb, .gltf, .obj, .off)");
}

}  // namespace wobble
