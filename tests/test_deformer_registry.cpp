// The deformers' descriptions against the deformers themselves in baked stacks: documented
// defaults are the deformers' defaults, live updates keep the motion history and keyed bakes
// follow their keys. The descriptions alone (completeness, round trips, strict values, the typed
// stack, keys): tests/runtime/test_deformer_registry.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "synthetic_rigs.hpp"
#include "test_util.hpp"

namespace wobble {
namespace {

// The synthetic chain with its rings joined into a closed-ended tube, bending at joint 1.
Character bending_tube() {
  Character c = test::chain_character(3, 1.0f, 4);
  const auto rings = static_cast<std::uint32_t>(c.mesh.positions.size() / 4);
  // Ring vertices are +x, -x, +z, -z: around the ring that is +x, +z, -x, -z.
  const std::uint32_t around[4] = {0, 2, 1, 3};
  for (std::uint32_t r = 0; r + 1 < rings; ++r)
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t a = 4 * r + around[k], b = 4 * r + around[(k + 1) % 4];
      c.mesh.triangles.push_back({a, b, b + 4});
      c.mesh.triangles.push_back({a, b + 4, a + 4});
    }
  test::add_rotation(c, 1, Vec3f(0, 0, 1), 0.5f, [](double t) { return 2.0 * t; });
  return c;
}

std::string stack_for(const DeformerDescription& d) {
  return d.stage == DeformerStage::Base ? d.name : "lbs," + d.name;
}

BakedFrames bake_with(const Character& c, const std::string& stack, const StackSettings& settings, double fps = 30,
                      double end = 0.4) {
  BakeOptions options;
  options.fps = fps;
  options.end = end;
  options.stack = StackDescription::parse(stack);
  options.settings = settings;
  return bake(c, options);
}

void expect_same_bytes(const BakedFrames& a, const BakedFrames& b, std::size_t frames = SIZE_MAX) {
  ASSERT_EQ(a.positions.size(), b.positions.size());
  for (std::size_t f = 0; f < std::min(frames, a.positions.size()); ++f)
    for (std::size_t v = 0; v < a.positions[f].size(); ++v)
      ASSERT_EQ(a.positions[f][v], b.positions[f][v]) << "frame " << f << " vertex " << v;
}

// Setting every documented default explicitly gives exactly the output of not setting it: the
// help, the viewer and Blender show the values the deformers really use.
TEST(DeformerRegistry, DocumentedDefaultsAreTheDeformersDefaults) {
  const Character tube = bending_tube();
  int checked = 0;
  for (const DeformerDescription* d : deformer_descriptions()) {
    const BakedFrames reference = bake_with(tube, stack_for(*d), {});
    for (const ParameterDescription& p : d->parameters) {
      SCOPED_TRACE(d->name + "." + p.key + " = " + parameter_to_json(p.default_value));
      StackSettings settings;
      settings.section(d->name).set(p.key, p.default_value, "test");
      expect_same_bytes(bake_with(tube, stack_for(*d), settings), reference);
      // The same through the settings file's JSON.
      const std::string text = "{\"" + d->name + "\": {\"" + p.key + "\": " + parameter_to_json(p.default_value) + "}}";
      expect_same_bytes(bake_with(tube, stack_for(*d), StackSettings::from_json(text, "defaults.json")), reference);
      ++checked;
    }
  }
  EXPECT_GE(checked, 28);
}

// Dynamic Skinning on clonk's Walk, the frequency changed at frame k through update(): the
// frames before k are the unchanged run's bytes, and frame k continues the history (it differs
// from the unchanged run and from a fresh start at k).
TEST(DeformerRegistry, LiveUpdateKeepsTheMotionHistory) {
  const Character clonk = load_character(test::bundled_asset("clonk.glb"));
  const std::size_t walk = clonk.require_clip("Walk");
  const Clip& clip = clonk.clips[walk];
  const double fps = 30;
  const std::size_t frames = 30, k = 15;
  StackSettings changed;
  changed.section("dynamic").set("frequency", 4.0, "test");

  const auto run = [&](bool update_at_k, bool fresh_at_k) {
    DeformerStack stack = DeformerStack::parse("lbs,dynamic");
    stack.bind(clonk);
    std::vector<std::vector<Vec3f>> out(frames);
    std::vector<Vec3f> normals;
    Pose pose;
    for (std::size_t f = 0; f < frames; ++f) {
      if (f == k && update_at_k) stack.update(changed);
      if (f == k && fresh_at_k) {
        stack = DeformerStack::parse("lbs,dynamic", changed);
        stack.bind(clonk);
      }
      const double t = clip.start() + static_cast<double>(f) / fps;
      evaluate_pose(clonk.rig, &clip, static_cast<float>(t), pose);
      stack.evaluate(FrameInput{clonk, pose, t, clip_sampler(clonk.rig, clip)}, out[f], normals);
    }
    return out;
  };
  const auto unchanged = run(false, false), updated = run(true, false), fresh = run(false, true);
  for (std::size_t f = 0; f < k; ++f) ASSERT_EQ(updated[f], unchanged[f]) << "frame " << f;
  double from_unchanged = 0, from_fresh = 0;
  for (std::size_t v = 0; v < updated[k].size(); ++v) {
    from_unchanged = std::max(from_unchanged, double((updated[k][v] - unchanged[k][v]).norm()));
    from_fresh = std::max(from_fresh, double((updated[k][v] - fresh[k][v]).norm()));
  }
  const double size = clonk.mesh.size();
  EXPECT_GT(from_unchanged, 1e-6 * size);
  EXPECT_GT(from_fresh, 1e-3 * size) << "a fresh start would have no wobble pending";
}

// Keyed parameters through bake: constant keys are the constant's bytes; a change at time T
// gives the constant's bytes before T, then the live-update run's (history continued).
TEST(DeformerRegistry, KeyedBakesFollowTheKeys) {
  const Character clonk = load_character(test::bundled_asset("clonk.glb"));
  BakeOptions options;
  options.clip = clonk.require_clip("Walk");
  options.fps = 30;
  options.end = clonk.clips[options.clip].start() + 1.0;
  options.stack = StackDescription::parse("lbs,dynamic");
  const auto bake_settings = [&](const std::string& text) {
    BakeOptions o = options;
    o.settings = StackSettings::from_json(text, "keys.json");
    return bake(clonk, o);
  };
  const BakedFrames constant = bake_settings(R"({"dynamic": {"amplitude": 0.25}})");
  expect_same_bytes(bake_settings(R"({"dynamic": {"amplitude": {"keys": [[0, 0.25], [5, 0.25]]}}})"), constant);
  // Step down to 0.05 at T = start + 0.5 s (frame 15 at 30 fps).
  const double t0 = clonk.clips[options.clip].start();
  const std::string keyed = "{\"dynamic\": {\"amplitude\": {\"keys\": [[0, 0.25], [" + std::to_string(t0 + 0.49) +
                            ", 0.25], [" + std::to_string(t0 + 0.5) + ", 0.05]], \"interpolation\": \"step\"}}}";
  const BakedFrames stepped = bake_settings(keyed);
  expect_same_bytes(stepped, constant, 15);
  double after = 0;
  for (std::size_t v = 0; v < constant.positions[20].size(); ++v)
    after = std::max(after, double((stepped.positions[20][v] - constant.positions[20][v]).norm()));
  EXPECT_GT(after, 1e-4 * clonk.mesh.size()) << "the amplitude change shows after T";
}

}  // namespace
}  // namespace wobble
