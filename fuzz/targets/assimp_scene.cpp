// What assimp hands wobble, converted into a Character (src/io/assimp_scene.hpp), for any scene:
// the bytes describe meshes, bones, nodes and clips whose indices may point anywhere
// (assimp_scene_bytes.hpp). Each converted character must pass Character::validate and survive
// the trip through the isolated importer's wire format (src/io/character_wire.hpp) unchanged.
#include <assimp/scene.h>

#include "../../src/io/assimp_scene.hpp"
#include "../../src/io/character_wire.hpp"
#include "../assimp_scene_bytes.hpp"
#include "../fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::unique_ptr<aiScene> scene = wobble::fuzz::decode_scene(data, size);
  wobble::fuzz::expect_clean(
      [&] {
        const wobble::Character character = wobble::character_from_assimp(*scene, "scene.x");
        character.check();
        const std::string bytes = wobble::encode_character(character);
        if (wobble::encode_character(wobble::decode_character(bytes, "scene.x")) != bytes)
          wobble::fuzz::finding("a character does not survive the isolated importer's wire format");
      },
      "scene.x");
  return 0;
}
