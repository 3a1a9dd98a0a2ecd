// The deformers' descriptions (what --help, settings files, the viewer, Python and Blender use)
// against the deformers themselves: defaults, round trips, strict values, the typed stack, live
// updates and keyframes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/delayed_lbs.hpp>
#include <wobble/dynamic_skinning.hpp>
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

using test::error_of;

TEST(DeformerRegistry, DescriptionsAreComplete) {
  std::set<std::string> flags;
  for (const DeformerDescription* d : deformer_descriptions()) {
    std::set<std::string> keys;
    for (const ParameterDescription& p : d->parameters) {
      SCOPED_TRACE(d->name + "." + p.key);
      EXPECT_FALSE(p.help.empty());
      EXPECT_TRUE(keys.insert(p.key).second) << "keys are unique within a deformer";
      EXPECT_TRUE(flags.insert(p.flag).second) << "flags are unique over all deformers: --" << p.flag;
      EXPECT_NO_THROW(p.check(p.default_value, p.key)) << "the default is an allowed value";
      EXPECT_TRUE(p.get && p.set);
      if (!p.unit.empty()) {
        EXPECT_NE(p.describe().find(p.unit), std::string::npos);
      }
      for (const ParameterDescription& f : p.fields) EXPECT_NO_THROW(f.check(f.default_value, f.key)) << f.key;
    }
  }
  EXPECT_GE(flags.size(), 29u);
  EXPECT_EQ(find_flag("delay-step")->parameter->key, "delay_step");
  EXPECT_EQ(find_flag("skip-below")->deformer->name, "dynamic");
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

// Non-default values of every kind survive settings -> JSON -> settings.
TEST(DeformerRegistry, SettingsRoundTripThroughJson) {
  const std::string text = R"({
    "dlbs": {"wave_speed": 2.5, "delay_step": 0.0125},
    "dynamic": {"frequency": {"keys": [[0, 2], [1.5, 4]], "interpolation": "step"}, "max_angle": 45,
                "bend_weights": [0.5, 1, -0.25], "bend_weight_attribute": "",
                "joints": {"Head": {"amplitude_scale": 2, "enabled": false, "origin": [0, 0.5, 0], "radius": 1.5,
                                    "frequency": {"keys": [[0.25, 3], [1, 1]]}}}},
    "deltamush": {"iterations": 7, "step": 0.25, "smoothing": "length", "pin_boundary": true, "mask": "weights",
                  "mode": "blender"},
    "ddm": {"variant": "v3", "max_influences": 4, "min_weight": 0.001}})";
  const StackSettings settings = StackSettings::from_json(text, "round.json");
  const StackSettings again = StackSettings::from_json(settings.to_json(), "again.json");
  EXPECT_EQ(again, settings);
  EXPECT_EQ(again.to_json(), settings.to_json());
  const DeformerSettings dynamic = settings.get("dynamic");
  EXPECT_EQ(dynamic.as<DynamicSkinningParameters>().max_angle, 45 * std::numbers::pi / 180);
  EXPECT_EQ(dynamic.keyed().size(), 2u);
  EXPECT_EQ(std::get<double>(settings.get("dlbs").get("delay_step")), 0.0125);
}

TEST(DeformerRegistry, FractionsAreExactAndJunkIsRefused) {
  StackSettings settings;
  settings.set_flag("delay-step", "1/240");
  EXPECT_EQ(settings.get("dlbs").as<DelayedLbsParameters>().delay_step, 1.0 / 240);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"frequency", "2abc"},
      {"frequency", "nan"},
      {"frequency", "inf"},
      {"frequency", "1e400"},
      {"frequency", ""},
      {"frequency", "31"},
      {"mush-iterations", "1.5"},
      {"mush-iterations", "0x10"},
      {"mush-iterations", "1e400"},
      {"mush-pin-boundary", "maybe"},
      {"mush-smoothing", "bilateral"},
      {"max-angle", "0"},
      {"ddm-min-weight", "1"},
      {"bend-weights", "[1, \"x\"]"},
      {"dynamic-joints", "{\"Head\": {\"amplitude\": \"2\"}}"}};
  for (const auto& [flag, text] : bad) {
    const std::string message = error_of([&, &flag = flag, &text = text] { StackSettings().set_flag(flag, text); });
    EXPECT_EQ(message.rfind("--" + flag, 0), 0u) << flag << " " << text << ": " << message;
  }
  EXPECT_EQ(error_of([] { StackSettings().set_flag("frequency", "31"); }), "--frequency: 31 is out of range [0, 30]");
  EXPECT_EQ(error_of([] { StackSettings().set_flag("mush-smoothing", "lenght"); }),
            "--mush-smoothing: 'lenght' is not one of uniform, length, cotangent (did you mean 'length'?)");
}

TEST(DeformerRegistry, SettingsFileErrorsNameTheFileAndTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"dynamic": {"frequncy": 2}})",
       "s.json: dynamic: unknown parameter 'frequncy' for deformer 'dynamic' (did you mean 'frequency'?)"},
      {R"({"dynamic": {"frequency": "2"}})", "s.json: dynamic.frequency: expected a number, got \"2\""},
      {R"({"deltamush": {"iterations": 1.5}})", "s.json: deltamush.iterations: expected an integer, got 1.5"},
      {R"({"deltamush": {"iterations": true}})", "s.json: deltamush.iterations: expected an integer, got true"},
      {R"({"ddm": {"max_influences": true}})", "s.json: ddm.max_influences: expected an integer, got true"},
      {R"({"deltamush": {"mask": [0.5, -1]}})", "s.json: deltamush.mask[1]: -1 is out of range [0, 1]"},
      {R"({"deltamush": {"mask": [3.4e38]}})", "s.json: deltamush.mask[0]: 3.4e+38 is out of range [0, 1]"},
      {R"({"deltamush": {"mask": [0, 1e39]}})", "s.json: deltamush.mask[1]: 1e+39 is out of range [0, 1]"},
      {R"({"deltamush": {"mask": [1.5]}})", "s.json: deltamush.mask[0]: 1.5 is out of range [0, 1]"},
      {R"({"dynamic": {"damping": 1e400}})", "s.json: not valid JSON: number overflow parsing '1e400'"},
      {R"({"dynamic": {"joints": {"Head": {"amplitud": 2}}}})",
       "s.json: dynamic.joints.Head: unknown key 'amplitud' (did you mean 'amplitude'?)"},
      {R"({"wobbly": {}})", "s.json: unknown deformer 'wobbly' (known: lbs, dqs, dlbs, dynamic, deltamush, ddm)"},
      {R"({"deltamush": {"iterations": {"keys": [[0, 1]]}}})",
       "s.json: deltamush.iterations: expected an integer, got {\"keys\":[[0,1]]}"},
      {R"({"deltamush": {"mode": "blender", "smoothing": "cotangent"}})",
       "s.json: deltamush.smoothing: mode 'blender' supports smoothing 'uniform' (Simple) and 'length' (Length "
       "Weight), not 'cotangent'"},
      {R"({"dynamic": {"frequency": {"keys": [[1, 2], [1, 3]]}}})",
       "s.json: dynamic.frequency.keys[1]: key times must increase"},
      {R"([1, 2])", "s.json: expected an object with one section per deformer, got [1,2]"},
      {R"({"dynamic": )", "s.json: not valid JSON: "},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = error_of([&, &text = text] { StackSettings::from_json(text, "s.json"); });
    EXPECT_EQ(message.substr(0, expected.size()), expected) << text;
  }
}

TEST(DeformerRegistry, StackIsParsedOnceWithItsFoldingProperty) {
  EXPECT_TRUE(StackDescription::parse("lbs,deltamush").entries()[1].folds_input);
  EXPECT_FALSE(StackDescription::parse("dqs,deltamush").entries()[1].folds_input);
  EXPECT_FALSE(StackDescription::parse("lbs,dynamic,deltamush").entries()[2].folds_input);
  EXPECT_EQ(StackDescription::parse(" lbs , dynamic ").text(), "lbs,dynamic");
  EXPECT_EQ(StackDescription::parse("dynamic").base(), nullptr);
  EXPECT_EQ(error_of([] { StackDescription::parse("lbs,dynamc"); }),
            "deformer stack 'lbs,dynamc': unknown deformer 'dynamc' (did you mean 'dynamic'?) (known: lbs, dqs, dlbs, "
            "dynamic, deltamush, ddm)");
  EXPECT_EQ(error_of([] { StackDescription::parse("dynamic,lbs"); }),
            "deformer stack 'dynamic,lbs': base skinning 'lbs' must come first");
  EXPECT_EQ(error_of([] { StackDescription::parse("lbs,"); }), "deformer stack 'lbs,': empty deformer name");
  EXPECT_EQ(error_of([] { StackDescription::parse("lbs,dynamic,dynamic"); }),
            "deformer stack 'lbs,dynamic,dynamic': 'dynamic' appears twice");
}

TEST(DeformerRegistry, LiveAndBindChangesAreTold) {
  const DeformerSettings defaults = StackSettings().get("dynamic");
  DeformerSettings live = defaults;
  live.set("frequency", 4.0, "test");
  live.set("joints", JointTable{{"Head", {{"amplitude_scale", 2.0}}}}, "test");
  EXPECT_FALSE(live.bind_differs(defaults));
  DeformerSettings bind = defaults;
  bind.set("joints", JointTable{{"Head", {{"radius", 0.5}}}}, "test");
  EXPECT_TRUE(bind.bind_differs(defaults));
  DeformerSettings weights = defaults;
  weights.set("bend_weights", VertexValues{{1, 0.5f}, {}}, "test");
  EXPECT_TRUE(weights.bind_differs(defaults));
}

TEST(DeformerRegistry, KeysInterpolateAndHold) {
  const Keys keys{{{0.0, 2.0}, {1.0, 4.0}, {2.0, 0.0}}, false};
  EXPECT_EQ(keys.at(-1), 2.0);
  EXPECT_EQ(keys.at(0.5), 3.0);
  EXPECT_EQ(keys.at(1.0), 4.0);
  EXPECT_EQ(keys.at(1.5), 2.0);
  EXPECT_EQ(keys.at(9), 0.0);
  const Keys step{keys.points, true};
  EXPECT_EQ(step.at(0.99), 2.0);
  EXPECT_EQ(step.at(1.0), 4.0);
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
