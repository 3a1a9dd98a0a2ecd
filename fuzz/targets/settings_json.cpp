// Deformer settings (`wobble bake --settings FILE`): the first line of the input is the stack, the
// rest the settings file's text. The text is read by the deformer descriptions' settings reader
// (StackSettings::from_json, as --settings FILE), the stack parsed with it, bound to a small
// skinned box and evaluated for two frames, through the entry points every front end uses.
#include <string>
#include <string_view>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/parameters.hpp>
#include <wobble/pose.hpp>

#include "../fuzz_support.hpp"

namespace {

// A box of 8 vertices and 12 triangles on a two-joint chain, with one short clip.
wobble::Character box_character() {
  using namespace wobble;
  Character c;
  c.source = "box";
  c.rig.add_joint("root", -1, Transform{}, Mat4f::Identity(), true);
  Transform up;
  up.translation = Vec3f(0, 1, 0);
  Mat4f down = Mat4f::Identity();
  down(1, 3) = -1;
  c.rig.add_joint("tip", 0, up, down, true);
  for (int i = 0; i < 8; ++i) {
    c.mesh.positions.emplace_back(i & 1 ? 0.5f : -0.5f, i & 2 ? 2.0f : 0.0f, i & 4 ? 0.5f : -0.5f);
    const Influence influence{static_cast<std::uint32_t>(i & 2 ? 1 : 0), 1.0f};
    c.skin.add_vertex({&influence, 1});
  }
  const std::uint32_t f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                  {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  for (auto& t : f) c.mesh.triangles.push_back({t[0], t[1], t[2]});
  c.mesh.compute_normals();
  Clip clip{"bend", {}};
  Channel turn;
  turn.joint = 1;
  turn.path = ChannelPath::Rotation;
  turn.times = {0.0f, 1.0f};
  turn.values = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f};
  clip.channels.push_back(turn);
  c.clips.push_back(clip);
  return c;
}

}  // namespace

WOBBLE_FUZZ_QUIET_LOGS

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const wobble::Character character = box_character();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  if (newline == std::string::npos || newline > 200) return 0;
  const std::string stack = text.substr(0, newline);
  const std::string_view settings_text = std::string_view(text).substr(newline + 1);
  // The settings file's errors name the file; a bad stack names the stack.
  wobble::fuzz::expect_clean([&] {
    const wobble::StackSettings settings = wobble::StackSettings::from_json(settings_text, "settings.json");
    wobble::DeformerStack deformers = wobble::DeformerStack::parse(stack, settings);
    deformers.bind(character);
    wobble::Pose pose;
    for (float t : {0.0f, 0.5f}) {
      wobble::evaluate_pose(character.rig, &character.clips[0], t, pose);
      std::vector<wobble::Vec3f> positions, normals;
      deformers.evaluate(wobble::FrameInput{character, pose, t}, positions, normals);
    }
  });
  return 0;
}
