// SCENE.json files through describe_scene: every key's type and range, before anything is built.
#include <nlohmann/json.hpp>

#include <wobble/physics/scene_description.hpp>

#include "../fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json scene = nlohmann::json::parse(data, data + size, nullptr, false);
  if (scene.is_discarded()) return 0;
  wobble::fuzz::expect_clean([&] { wobble::physics::describe_scene(scene, "scene.json"); }, "scene.json");
  return 0;
}
