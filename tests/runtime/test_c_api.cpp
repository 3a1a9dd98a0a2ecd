// The C API (wobble.h) against the C++ API on a procedural tube: the same frames, strides, the
// errors it reports, its thread-local messages, and no allocation per frame.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/wobble.h>

#include "c_api_arrays.hpp"
#include "procedural.hpp"

// Counts the calling thread's allocations while counting is on (for the no-allocation check).
namespace {
std::atomic<long> allocations{0};
thread_local bool counting = false;
}  // namespace

void* operator new(std::size_t size) {
  if (counting) ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
// GCC 12 takes the replaced operator new for the built-in one and warns that free() gets its memory.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace wobble {

namespace {

using test::Arrays;
using test::Handles;
using test::world_matrices;

std::vector<float> local_transforms(const Pose& pose) {
  std::vector<float> l;
  for (const Transform& t : pose.local) {
    l.insert(l.end(), {t.translation.x(), t.translation.y(), t.translation.z(), t.rotation.x(), t.rotation.y(),
                       t.rotation.z(), t.rotation.w(), t.scale.x(), t.scale.y(), t.scale.z()});
  }
  return l;
}

// Poses the tube for time t and evaluates one frame through the C API.
wobble_status evaluate_frame(wobble_stack* stack, const Character& tube, double t, Pose& pose,
                             std::vector<float>& positions, std::vector<float>& normals) {
  test::bend_pose(tube, t, pose);
  const std::vector<float> world = world_matrices(pose);
  const wobble_frame input{t, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), nullptr};
  return wobble_stack_evaluate(stack, &input, positions.data(), 0, normals.data(), 0);
}

// The C++ side: the same character (normals from the triangles, as the C API computes them).
Character cpp_character(const Character& tube) {
  Character c = tube;
  c.mesh.compute_normals();
  return c;
}

TEST(CApi, FramesMatchTheCppStackForLbsAndDynamic) {
  const Character tube = test::tube_character({.joints = 4, .rings = 40, .sides = 16});
  const Arrays arrays(tube);
  const Character character = cpp_character(tube);
  for (const char* spec : {"lbs", "lbs,dynamic"}) {
    SCOPED_TRACE(spec);
    Handles c, with_locals;
    ASSERT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
    ASSERT_EQ(wobble_stack_create(c.character, spec, R"({"dynamic": {"amplitude": 1.5}})", 1, &c.stack), WOBBLE_OK)
        << wobble_last_error();
    ASSERT_EQ(wobble_stack_create(c.character, spec, R"({"dynamic": {"amplitude": 1.5}})", 1, &with_locals.stack),
              WOBBLE_OK);
    const StackSettings settings = std::string(spec).find("dynamic") != std::string::npos
                                       ? StackSettings::from_json(R"({"dynamic": {"amplitude": 1.5}})", "test")
                                       : StackSettings{};
    DeformerStack stack = DeformerStack::parse(spec, settings);
    stack.bind(character);
    std::vector<float> positions(3 * tube.mesh.vertex_count()), normals(positions.size());
    std::vector<Vec3f> want_p, want_n;
    Pose pose;
    double worst = 0;
    for (int frame = 0; frame < 40; ++frame) {
      const double t = frame / 30.0;
      ASSERT_EQ(evaluate_frame(c.stack, tube, t, pose, positions, normals), WOBBLE_OK) << wobble_last_error();
      stack.evaluate(FrameInput{character, pose, t, {}, nullptr}, want_p, want_n);
      // Given the local transforms too, the C API's pose is the C++ one: the same bytes.
      const std::vector<float> world = world_matrices(pose), local = local_transforms(pose);
      const wobble_frame full{t, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), local.data()};
      std::vector<float> exact(positions.size());
      ASSERT_EQ(wobble_stack_evaluate(with_locals.stack, &full, exact.data(), 0, nullptr, 0), WOBBLE_OK)
          << wobble_last_error();
      ASSERT_EQ(0, std::memcmp(exact.data(), want_p.data(), exact.size() * sizeof(float))) << "frame " << frame;
      for (std::size_t v = 0; v < want_p.size(); ++v) {
        worst = std::max<double>(worst, (Vec3f(positions.data() + 3 * v) - want_p[v]).norm());
        if (std::strcmp(spec, "lbs") == 0) {
          // LBS reads only the world matrices, given as they are: the very same bytes.
          ASSERT_EQ(0, std::memcmp(positions.data() + 3 * v, want_p[v].data(), 3 * sizeof(float))) << v;
          ASSERT_EQ(0, std::memcmp(normals.data() + 3 * v, want_n[v].data(), 3 * sizeof(float))) << v;
        }
      }
    }
    // Without local transforms, the C API recovers them from the world matrices (rounding apart).
    EXPECT_LT(worst, 1e-5 * tube.mesh.size());
  }
}

TEST(CApi, LiveParametersChangeBetweenFramesAsTheCppStackUpdates) {
  const Character tube = test::tube_character({.joints = 4, .rings = 30, .sides = 12});
  const Arrays arrays(tube);
  const Character character = cpp_character(tube);
  Handles c, unchanged;
  ASSERT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(c.character, "lbs,dynamic", nullptr, 1, &c.stack), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(c.character, "lbs,dynamic", nullptr, 1, &unchanged.stack), WOBBLE_OK);
  StackSettings settings;
  DeformerStack stack = DeformerStack::parse("lbs,dynamic", settings);
  stack.bind(character);
  Pose pose;
  std::vector<float> got(3 * tube.mesh.vertex_count()), before(got.size());
  std::vector<Vec3f> want, want_normals;
  bool differs = false;
  for (int frame = 0; frame < 30; ++frame) {
    const double t = frame / 60.0;
    if (frame == 12) {  // a live change: the C API and the C++ stack's update
      ASSERT_EQ(wobble_stack_set_parameter(c.stack, "dynamic", "amplitude", 3.0), WOBBLE_OK) << wobble_last_error();
      ASSERT_EQ(wobble_stack_set_parameter_json(c.stack, "dynamic", "drag", "{\"keys\": [[0, 0.1], [0.5, 0.3]]}"),
                WOBBLE_OK)
          << wobble_last_error();
      settings.section("dynamic").set("amplitude", 3.0, "test");
      settings.section("dynamic").set("drag", Keys{{{{0, 0.1}}, {{0.5, 0.3}}}}, "test");
      stack.update(settings);
    }
    test::bend_pose(tube, t, pose);
    const std::vector<float> world = world_matrices(pose), local = local_transforms(pose);
    const wobble_frame input{t, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), local.data()};
    ASSERT_EQ(wobble_stack_evaluate(c.stack, &input, got.data(), 0, nullptr, 0), WOBBLE_OK) << wobble_last_error();
    ASSERT_EQ(wobble_stack_evaluate(unchanged.stack, &input, before.data(), 0, nullptr, 0), WOBBLE_OK);
    stack.evaluate(FrameInput{character, pose, t, {}, nullptr}, want, want_normals);
    ASSERT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float))) << "frame " << frame;
    if (frame < 12) {
      ASSERT_EQ(got, before) << "frame " << frame;
    }
    differs |= got != before;
  }
  EXPECT_TRUE(differs) << "the change had no effect";
  // Unknown keys (with the closest one), deformers not in the stack, bind parameters, bad values.
  EXPECT_EQ(wobble_stack_set_parameter(c.stack, "dynamic", "amplitud", 1.0), WOBBLE_INVALID_SETTINGS);
  EXPECT_NE(std::string(wobble_last_error()).find("amplitude"), std::string::npos) << wobble_last_error();
  EXPECT_EQ(wobble_stack_set_parameter(c.stack, "deltamush", "scale", 1.0), WOBBLE_INVALID_SETTINGS);
  EXPECT_NE(std::string(wobble_last_error()).find("no deformer 'deltamush'"), std::string::npos) << wobble_last_error();
  EXPECT_EQ(wobble_stack_set_parameter(c.stack, "dynamic", "frequency", 1e9), WOBBLE_INVALID_SETTINGS);
  EXPECT_EQ(wobble_stack_set_parameter_json(c.stack, "dynamic", "amplitude", "\"loud\""), WOBBLE_INVALID_SETTINGS);
  Handles mush;
  ASSERT_EQ(wobble_stack_create(c.character, "lbs,deltamush", nullptr, 1, &mush.stack), WOBBLE_OK);
  EXPECT_EQ(wobble_stack_set_parameter(mush.stack, "deltamush", "iterations", 4), WOBBLE_INVALID_SETTINGS);
  EXPECT_NE(std::string(wobble_last_error()).find("bind parameter"), std::string::npos) << wobble_last_error();
  EXPECT_EQ(wobble_stack_set_parameter(mush.stack, "deltamush", "scale", 0.5), WOBBLE_OK) << wobble_last_error();
}

TEST(CApi, DescriptionsListEveryDeformerWithItsParametersForAnEnginesUi) {
  const char* text = nullptr;
  ASSERT_EQ(wobble_deformer_descriptions(&text), WOBBLE_OK) << wobble_last_error();
  const nlohmann::json listed = nlohmann::json::parse(text);
  ASSERT_TRUE(listed.is_array());
  ASSERT_EQ(listed.size(), deformer_descriptions().size());
  for (const DeformerDescription* deformer : deformer_descriptions()) {
    SCOPED_TRACE(deformer->name);
    const auto entry = std::find_if(listed.begin(), listed.end(),
                                    [&](const nlohmann::json& d) { return d["name"] == deformer->name; });
    ASSERT_NE(entry, listed.end());
    EXPECT_EQ((*entry)["stage"], to_string(deformer->stage));
    const nlohmann::json& parameters = (*entry)["parameters"];
    ASSERT_EQ(parameters.size(), deformer->parameters.size());
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const ParameterDescription& p = deformer->parameters[i];
      EXPECT_EQ(parameters[i]["key"], p.key);
      EXPECT_EQ(parameters[i]["type"], to_string(p.type));
      EXPECT_EQ(parameters[i]["lifetime"], to_string(p.lifetime));
      if (p.type == ParameterType::Number) {
        EXPECT_EQ(parameters[i]["default"].get<double>(), std::get<double>(p.default_value)) << p.key;
      }
    }
  }
  // Dynamic Skinning's amplitude, as an engine's slider would read it: a live number whose default
  // is the parameters struct's.
  const auto dynamic =
      std::find_if(listed.begin(), listed.end(), [](const nlohmann::json& d) { return d["name"] == "dynamic"; });
  const auto& parameters = (*dynamic)["parameters"];
  const auto amplitude = std::find_if(parameters.begin(), parameters.end(),
                                      [](const nlohmann::json& p) { return p["key"] == "amplitude"; });
  ASSERT_NE(amplitude, parameters.end());
  EXPECT_EQ((*amplitude)["lifetime"], "live");
  EXPECT_EQ((*amplitude)["default"], DynamicSkinningParameters{}.amplitude);
  EXPECT_EQ((*amplitude)["unit"], "s");
  const char* again = nullptr;
  ASSERT_EQ(wobble_deformer_descriptions(&again), WOBBLE_OK);
  EXPECT_EQ(again, text) << "the text stays where it was";
  EXPECT_EQ(wobble_deformer_descriptions(nullptr), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("json"), std::string::npos) << wobble_last_error();
}

TEST(CApi, AStacksSettingsAfterLiveChangesMakeTheSameStackAgain) {
  const Character tube = test::tube_character({.joints = 3, .rings = 16, .sides = 8});
  const Arrays arrays(tube);
  Handles tuned, remade;
  ASSERT_EQ(wobble_character_create(&arrays.mesh, &tuned.character), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(tuned.character, "lbs,dynamic", R"({"dynamic": {"frequency": 3}})", 1, &tuned.stack),
            WOBBLE_OK)
      << wobble_last_error();
  const char* json = nullptr;
  ASSERT_EQ(wobble_stack_settings(tuned.stack, &json), WOBBLE_OK) << wobble_last_error();
  EXPECT_EQ(nlohmann::json::parse(json), nlohmann::json::parse(R"({"dynamic": {"frequency": 3.0}})")) << json;
  ASSERT_EQ(wobble_stack_set_parameter(tuned.stack, "dynamic", "amplitude", 2.5), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_set_parameter_json(tuned.stack, "dynamic", "drag", "{\"keys\": [[0, 0.1], [1, 0.4]]}"),
            WOBBLE_OK)
      << wobble_last_error();
  ASSERT_EQ(wobble_stack_settings(tuned.stack, &json), WOBBLE_OK) << wobble_last_error();
  const nlohmann::json settings = nlohmann::json::parse(json);
  EXPECT_EQ(settings["dynamic"]["frequency"], 3.0) << json;
  EXPECT_EQ(settings["dynamic"]["amplitude"], 2.5) << json;
  EXPECT_EQ(settings["dynamic"]["drag"]["keys"], nlohmann::json::parse("[[0, 0.1], [1, 0.4]]")) << json;
  // A fresh stack from that text runs the same frames as the tuned one reset.
  const std::string text = json;
  ASSERT_EQ(wobble_stack_create(tuned.character, "lbs,dynamic", text.c_str(), 1, &remade.stack), WOBBLE_OK)
      << wobble_last_error();
  ASSERT_EQ(wobble_stack_reset(tuned.stack), WOBBLE_OK);
  Pose pose;
  std::vector<float> a(3 * tube.mesh.vertex_count()), b(a.size()), na(a.size()), nb(a.size());
  for (int frame = 0; frame < 40; ++frame) {
    ASSERT_EQ(evaluate_frame(tuned.stack, tube, frame / 60.0, pose, a, na), WOBBLE_OK) << wobble_last_error();
    ASSERT_EQ(evaluate_frame(remade.stack, tube, frame / 60.0, pose, b, nb), WOBBLE_OK) << wobble_last_error();
    ASSERT_EQ(a, b) << "frame " << frame;
  }
  EXPECT_EQ(wobble_stack_settings(nullptr, &json), WOBBLE_INVALID_ARGUMENT);
  EXPECT_EQ(json, nullptr);
}

TEST(CApi, StridedBuffersHoldTheSameRowsAndTheirPaddingIsUntouched) {
  const Character tube = test::tube_character({.joints = 3, .rings = 12, .sides = 8});
  const Arrays arrays(tube);
  Handles c;
  ASSERT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(c.character, "lbs,dynamic", nullptr, 1, &c.stack), WOBBLE_OK) << wobble_last_error();
  Pose pose;
  test::bend_pose(tube, 0.2, pose);
  const std::vector<float> world = world_matrices(pose);
  const wobble_frame frame{0.2, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), nullptr};
  const std::size_t n = tube.mesh.vertex_count();
  std::vector<float> packed(3 * n), interleaved(8 * n, -1.0f);
  ASSERT_EQ(wobble_stack_evaluate(c.stack, &frame, packed.data(), 0, nullptr, 0), WOBBLE_OK);
  ASSERT_EQ(wobble_stack_reset(c.stack), WOBBLE_OK);
  // Positions in floats 0-2 and normals in floats 4-6 of 32-byte vertices.
  ASSERT_EQ(wobble_stack_evaluate(c.stack, &frame, interleaved.data(), 32, interleaved.data() + 4, 32), WOBBLE_OK);
  for (std::size_t v = 0; v < n; ++v) {
    ASSERT_EQ(0, std::memcmp(interleaved.data() + 8 * v, packed.data() + 3 * v, 3 * sizeof(float))) << v;
    ASSERT_EQ(interleaved[8 * v + 3], -1.0f);
    ASSERT_EQ(interleaved[8 * v + 7], -1.0f);
    ASSERT_NEAR(Vec3f(interleaved.data() + 8 * v + 4).norm(), 1.0f, 1e-5f);
  }
  EXPECT_EQ(wobble_stack_evaluate(c.stack, &frame, packed.data(), 10, nullptr, 0), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("stride"), std::string::npos) << wobble_last_error();
}

TEST(CApi, AFrameAllocatesNothingOnceTheStackHasRun) {
  const Character tube = test::tube_character({.joints = 4, .rings = 30, .sides = 12});
  const Arrays arrays(tube);
  for (const char* spec : {"lbs", "lbs,dynamic", "lbs,dynamic,deltamush", "lbs,ddm"}) {
    SCOPED_TRACE(spec);
    Handles c;
    ASSERT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
    ASSERT_EQ(wobble_stack_create(c.character, spec, nullptr, 1, &c.stack), WOBBLE_OK) << wobble_last_error();
    std::vector<float> positions(3 * tube.mesh.vertex_count()), normals(positions.size());
    Pose pose;
    long during = 0;
    for (int frame = 0; frame < 20; ++frame) {
      test::bend_pose(tube, frame / 60.0, pose);
      const std::vector<float> world = world_matrices(pose);  // allocates: before counting
      const wobble_frame input{frame / 60.0, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), nullptr};
      const long before = allocations.load();
      counting = frame >= 2;
      const wobble_status status = wobble_stack_evaluate(c.stack, &input, positions.data(), 0, normals.data(), 0);
      counting = false;
      ASSERT_EQ(status, WOBBLE_OK) << wobble_last_error();
      during += allocations.load() - before;
    }
    EXPECT_EQ(during, 0) << "allocations in 18 frames";
  }
}

TEST(CApi, MistakesAreStatusCodesWithAMessageNamingTheProblem) {
  const Character tube = test::tube_character({.joints = 3, .rings = 6, .sides = 6});
  Arrays arrays(tube);
  wobble_character* character = nullptr;
  EXPECT_EQ(wobble_character_create(nullptr, &character), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("mesh"), std::string::npos);
  arrays.parents[1] = 2;  // a parent after its child
  EXPECT_EQ(wobble_character_create(&arrays.mesh, &character), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("joint 1 has parent 2"), std::string::npos) << wobble_last_error();
  EXPECT_EQ(character, nullptr);
  arrays.parents[1] = 0;
  const std::size_t slot = std::find_if(arrays.weights.begin(), arrays.weights.end(), [](float w) { return w > 0; }) -
                           arrays.weights.begin();
  const std::uint16_t joint = arrays.joints[slot];
  arrays.joints[slot] = 9;  // no such joint (with a weight; unused slots may hold anything)
  EXPECT_EQ(wobble_character_create(&arrays.mesh, &character), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("joint 9"), std::string::npos) << wobble_last_error();
  arrays.joints[slot] = joint;
  arrays.triangles[4] = 100000;
  EXPECT_EQ(wobble_character_create(&arrays.mesh, &character), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("vertex 100000"), std::string::npos) << wobble_last_error();
  arrays.triangles[4] = 0;
  arrays.positions[7] = std::nanf("");
  EXPECT_EQ(wobble_character_create(&arrays.mesh, &character), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("positions[2]"), std::string::npos) << wobble_last_error();
  arrays.positions[7] = 0.5f;

  Handles c;
  ASSERT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
  wobble_stack* stack = nullptr;
  EXPECT_EQ(wobble_stack_create(c.character, "lbs,wobbly", nullptr, 1, &stack), WOBBLE_INVALID_SETTINGS);
  EXPECT_NE(std::string(wobble_last_error()).find("wobbly"), std::string::npos) << wobble_last_error();
  EXPECT_EQ(wobble_stack_create(c.character, "lbs,dynamic", "{\"dynamic\": {\"amplitude\": }", 1, &stack),
            WOBBLE_INVALID_SETTINGS);
  EXPECT_EQ(wobble_stack_create(c.character, "lbs,dynamic", "[1, 2]", 1, &stack), WOBBLE_INVALID_SETTINGS);
  EXPECT_EQ(stack, nullptr);
  ASSERT_EQ(wobble_stack_create(c.character, "lbs,dynamic", "", 2, &c.stack), WOBBLE_OK) << wobble_last_error();
  std::vector<float> world(16 * tube.rig.joint_count()), out(3 * tube.mesh.vertex_count());
  for (std::size_t j = 0; j < tube.rig.joint_count(); ++j) Eigen::Map<Mat4f>(world.data() + 16 * j).setIdentity();
  wobble_frame frame{0.0, world.data(), 2, nullptr};
  EXPECT_EQ(wobble_stack_evaluate(c.stack, &frame, out.data(), 0, nullptr, 0), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("2 joint matrices for a character of 3"), std::string::npos);
  frame.joint_count = 3;
  world[5] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(wobble_stack_evaluate(c.stack, &frame, out.data(), 0, nullptr, 0), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("joint 0"), std::string::npos) << wobble_last_error();
  world[5] = 0;
  EXPECT_EQ(wobble_stack_evaluate(c.stack, &frame, out.data(), 0, nullptr, 0), WOBBLE_OK) << wobble_last_error();
  EXPECT_EQ(wobble_stack_evaluate(c.stack, nullptr, out.data(), 0, nullptr, 0), WOBBLE_INVALID_ARGUMENT);
  EXPECT_EQ(wobble_character_destroy(nullptr), WOBBLE_OK);
  EXPECT_EQ(wobble_stack_destroy(nullptr), WOBBLE_OK);
}

TEST(CApi, LastErrorIsPerThreadAndWarningsReachTheCallback) {
  const std::string here = (wobble_character_create(nullptr, nullptr), wobble_last_error());
  std::string there = "unset";
  std::thread([&] { there = wobble_last_error(); }).join();
  EXPECT_FALSE(here.empty());
  EXPECT_EQ(there, "");
  // Weights summing to 0.5 are normalised, with one warning.
  const Character tube = test::tube_character({.joints = 3, .rings = 6, .sides = 6});
  Arrays arrays(tube);
  for (float& w : arrays.weights) w *= 0.5f;
  std::vector<std::string> warnings;
  ASSERT_EQ(
      wobble_set_warning_callback(
          [](const char* message, void* user) { static_cast<std::vector<std::string>*>(user)->push_back(message); },
          &warnings),
      WOBBLE_OK);
  Handles c;
  EXPECT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
  wobble_set_warning_callback(nullptr, nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("wobble_character_create"), std::string::npos) << warnings[0];
  EXPECT_STREQ(wobble_version(), WOBBLE_TEST_VERSION);
}

}  // namespace

}  // namespace wobble
