// The deformers' descriptions (what --help, settings files, the viewer, Python and Blender use):
// complete, round trips through JSON, strict values, the typed stack, live and bind changes, keys.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <wobble/deformer.hpp>
#include <wobble/delayed_lbs.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/parameters.hpp>

#include "error_of.hpp"

namespace wobble {
namespace {

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

}  // namespace
}  // namespace wobble
